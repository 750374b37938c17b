// Stored session documents: the worker-thread batch encoding (encodeDocuments) gives documents that decode to
// what was sent, the same as the synchronous encodeDocument, for several batches in flight at once.
import { describe, expect, it } from 'vitest';
import { decodeDocument, encodeDocument, encodeDocuments, type AgentSessionV1 } from '../../../src/areas/sessions/document.js';
import { canonical } from './fixtures.js';

const docs = (['full', 'minimal', 'downconverted-metrics', 'downconverted-redacted', 'subagent-redacted'] as const).map((n) => canonical(n) as unknown as AgentSessionV1);

describe('encodeDocuments', () => {
  it('encodes each document of a batch as Brotli that decodes to the document, as encodeDocument does', async () => {
    const batches = await Promise.all([docs, [...docs].reverse(), docs.slice(0, 2)].map((batch) => encodeDocuments(batch)));
    const expected = [docs, [...docs].reverse(), docs.slice(0, 2)];
    batches.forEach((encoded, b) => {
      expect(encoded).toHaveLength(expected[b]!.length);
      encoded.forEach((e, i) => {
        const doc = expected[b]![i]!;
        expect(e.encoding).toBe('br');
        expect(e.rawBytes).toBe(Buffer.byteLength(JSON.stringify(doc)));
        expect(decodeDocument(e.encoding, e.body)).toEqual(doc);
        expect(decodeDocument('br', encodeDocument(doc).body)).toEqual(doc);
      });
    });
    expect(await encodeDocuments([])).toEqual([]);
  });
});
