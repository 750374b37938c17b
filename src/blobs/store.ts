// Content-addressed blob storage (sha256). Files under the data dir by default; S3 when configured.
export interface BlobStore {
  readonly kind: 'fs' | 's3';
  /** Store bytes under their sha256 (hex). Storing the same bytes twice is a no-op. Durable on return. */
  put(sha256: string, bytes: Buffer): Promise<void>;
  /** The bytes, or null when absent. */
  get(sha256: string): Promise<Buffer | null>;
  has(sha256: string): Promise<boolean>;
  /** Remove the bytes (absent already is fine). Callers decide first that nothing refers to them. */
  delete(sha256: string): Promise<void>;
  /**
   * Every stored blob and when it was last written (a put of bytes already there counts as a write), in no
   * particular order: the blob sweep's input, which leaves alone what was written within its grace period.
   */
  list(): AsyncIterable<StoredBlob>;
  /** A write-read round trip for health checks; throws when the store is unusable. */
  check(): Promise<void>;
  /** Release connections (S3 keep-alive sockets); the gateway calls it on close. */
  close?(): void;
}

export interface StoredBlob {
  sha256: string;
  /** Epoch milliseconds of the last write (file mtime, S3 LastModified). */
  writtenAt: number;
}

export function isSha256(value: string): boolean {
  return /^[0-9a-f]{64}$/.test(value);
}
