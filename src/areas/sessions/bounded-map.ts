// Values kept in memory under a total size, the least recently set going first: the decoded documents the OTLP
// receiver extends (document-cache.ts) and the session list's answers (list-answers.ts).

export class BoundedMap<V> {
  private readonly values = new Map<string, V>();
  private size = 0;

  /** `sizeOf` measures a value in the unit of `maxSize`; a value larger than `maxSize` is not kept. */
  constructor(
    private readonly maxSize: number,
    private readonly sizeOf: (value: V) => number,
  ) {}

  /** The value kept for `key`, no longer kept (set it again to keep it, as the most recent). */
  take(key: string): V | undefined {
    const value = this.values.get(key);
    if (value !== undefined) {
      this.values.delete(key);
      this.size -= this.sizeOf(value);
    }
    return value;
  }

  /** Keep `value` for `key` (in place of any kept), as the most recent; the oldest go until the rest fit. */
  set(key: string, value: V): void {
    this.take(key);
    const size = this.sizeOf(value);
    if (size > this.maxSize) return;
    this.values.set(key, value);
    this.size += size;
    for (const [oldest, kept] of this.values) {
      if (this.size <= this.maxSize) break;
      this.values.delete(oldest);
      this.size -= this.sizeOf(kept);
    }
  }
}
