import { describe, expect, it } from 'vitest';
import { DocumentCache } from '../../../src/areas/sessions/document-cache.js';
import type { AgentSessionV1 } from '../../../src/areas/sessions/document.js';

const doc = (id: string) => ({ id }) as unknown as AgentSessionV1;

describe('DocumentCache', () => {
  it('gives a document back only for the exact bytes it was stored as, and only once', () => {
    const cache = new DocumentCache(1000);
    const a = doc('a');
    cache.put('s1', Buffer.from([1, 2, 3]), 10, a);
    expect(cache.take('s1', new Uint8Array([1, 2, 4]))).toBeUndefined(); // stored since by someone else
    cache.put('s1', Buffer.from([1, 2, 3]), 10, a);
    expect(cache.take('s1', new Uint8Array([1, 2, 3]).buffer)).toBe(a);
    expect(cache.take('s1', new Uint8Array([1, 2, 3]))).toBeUndefined(); // taken over by the first caller
  });

  it('keeps at most its size of JSON, forgetting the least recently stored first', () => {
    const cache = new DocumentCache(100);
    cache.put('s1', Buffer.from([1]), 40, doc('1'));
    cache.put('s2', Buffer.from([2]), 40, doc('2'));
    cache.put('s3', Buffer.from([3]), 40, doc('3')); // 120 > 100: s1 goes
    cache.put('s4', Buffer.from([4]), 101, doc('4')); // larger than the whole cache: not kept
    expect(cache.take('s1', Buffer.from([1]))).toBeUndefined();
    expect(cache.take('s2', Buffer.from([2]))?.id).toBe('2');
    expect(cache.take('s3', Buffer.from([3]))?.id).toBe('3');
    expect(cache.take('s4', Buffer.from([4]))).toBeUndefined();
  });
});
