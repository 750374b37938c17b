// Stored session documents: the Brotli encoding, with its window fitted to each document's size, decodes to
// what was sent, for documents from a few hundred bytes to the largest fixture.
import { describe, expect, it } from 'vitest';
import { decodeDocument, encodeDocument, type AgentSessionV1 } from '../../../src/areas/sessions/document.js';
import { canonical } from './fixtures.js';

const docs = (['full', 'minimal', 'downconverted-metrics', 'downconverted-redacted', 'subagent-redacted'] as const).map(
  (n) => canonical(n) as unknown as AgentSessionV1,
);

describe('encodeDocument', () => {
  it('encodes each document as Brotli that decodes to the document', () => {
    for (const doc of docs) {
      const e = encodeDocument(doc);
      expect(e.encoding).toBe('br');
      expect(e.rawBytes).toBe(Buffer.byteLength(JSON.stringify(doc)));
      expect(e.body.length).toBeLessThan(e.rawBytes);
      expect(decodeDocument(e.encoding, e.body)).toEqual(doc);
    }
  });
});
