// The session list's answers kept in memory, each with the factory's list version it was read at
// (migration 0054: raised in the writing transaction by every write to a table the list reads). A request whose
// factory still has that version gets the same bytes without reading the list: one indexed read instead of the
// list's statements and the making of its 26 KB answer. A version read before the list's own reads can only be
// older than what they saw, so an answer is never kept under a version newer than its data. Bounded in bytes,
// least recently used first out.
import { BoundedMap } from './bounded-map.js';

interface KeptAnswer {
  version: number;
  body: Buffer;
}

export class ListAnswers {
  private readonly answers: BoundedMap<KeptAnswer>;

  /** An answer larger than an eighth of `maxBytes` is not kept: a few would push every other out. */
  constructor(private readonly maxBytes: number) {
    this.answers = new BoundedMap(maxBytes, (answer) => answer.body.length);
  }

  /** The answer kept for `key` if it was read at `version`; an answer read at another version is dropped. */
  get(key: string, version: number): Buffer | undefined {
    const kept = this.answers.take(key);
    if (kept === undefined || kept.version !== version) return undefined;
    this.answers.set(key, kept);
    return kept.body;
  }

  set(key: string, version: number, body: Buffer): void {
    if (body.length <= this.maxBytes / 8) this.answers.set(key, { version, body });
  }
}
