// Decoded session documents kept between requests for a writer that extends the same sessions over and over
// (the OTLP receiver: a running session gets new events every few seconds). Decompressing and parsing the stored
// document is most of what reading it costs; an entry is used only when the bytes stored now are the very bytes
// written from it, so what a reader gets is exactly what decoding the stored document would give, whichever
// gateway or request wrote it last. No SQL, no HTTP.
import type { AgentSessionV1 } from './document.js';
import { BoundedMap } from './bounded-map.js';

interface Entry {
  body: Buffer;
  rawBytes: number;
  doc: AgentSessionV1;
}

const asBuffer = (body: Uint8Array | ArrayBuffer): Buffer =>
  body instanceof ArrayBuffer ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);

export class DocumentCache {
  private readonly entries: BoundedMap<Entry>;

  /** `maxRawBytes`: the JSON size of the documents held together, at most (least recently stored go first). */
  constructor(maxRawBytes: number) {
    this.entries = new BoundedMap(maxRawBytes, (entry) => entry.rawBytes);
  }

  /**
   * The document of session row `id` if `body` (its stored bytes, read in the caller's transaction) is what it
   * was stored as. The entry is removed either way: the caller takes the document over (it may change it in
   * place), and puts back what it stores once that is committed.
   */
  take(id: string, body: Uint8Array | ArrayBuffer): AgentSessionV1 | undefined {
    const entry = this.entries.take(id);
    return entry?.body.equals(asBuffer(body)) ? entry.doc : undefined;
  }

  /** Keep `doc`, committed as `body` (`rawBytes` of JSON) for session row `id`. The caller must not change it. */
  put(id: string, body: Buffer, rawBytes: number, doc: AgentSessionV1): void {
    this.entries.set(id, { body, rawBytes, doc });
  }
}
