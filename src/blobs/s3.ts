// Blobs in an S3 bucket: key blobs/<aa>/<sha256>. Path-style requests (https://endpoint/<bucket>/<key>),
// so MinIO, Ceph RGW, R2 and other S3-compatible endpoints work without wildcard DNS.
import crypto from 'node:crypto';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { isSha256, type BlobStore, type StoredBlob } from './store.js';

export interface S3BlobStoreOptions {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Defaults: 3 s to connect, 30 s for a whole request. */
  timeouts?: { connectMs: number; requestMs: number };
}

/** Error names S3 uses for "this object is not there" (HEAD answers carry no body, hence NotFound). */
const MISSING_OBJECT = new Set(['NoSuchKey', 'NotFound']);

export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;

  close(): void {
    this.client.destroy();
  }

  constructor(options: S3BlobStoreOptions) {
    this.bucket = options.bucket;
    this.client = new S3Client({
      endpoint: options.endpoint,
      region: options.region,
      forcePathStyle: true,
      credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
      // Checksum headers only where S3 requires them: several S3-compatible stores reject or mishandle the
      // default CRC32 trailers. Integrity is checked on read instead (the key is the content's sha256).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // An unreachable or stalled endpoint must fail the request (and the health check), not hang it.
      requestHandler: {
        connectionTimeout: options.timeouts?.connectMs ?? 3_000,
        requestTimeout: options.timeouts?.requestMs ?? 30_000,
        throwOnRequestTimeout: true,
      },
      maxAttempts: 3,
    });
  }

  private keyOf(sha256: string): string {
    if (!isSha256(sha256)) throw new Error('blob name must be a lowercase sha256 hex digest');
    return `blobs/${sha256.slice(0, 2)}/${sha256}`;
  }

  // Content-addressed: the same key always holds the same bytes, so a repeated PUT is harmless and one
  // request is cheaper than a HEAD followed by a PUT for the common case of new content.
  async put(sha256: string, bytes: Buffer): Promise<void> {
    const key = this.keyOf(sha256);
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: bytes,
          ContentLength: bytes.length,
          ContentType: 'application/octet-stream',
        }),
      );
    } catch (err) {
      throw surfaced(err);
    }
  }

  async get(sha256: string): Promise<Buffer | null> {
    const key = this.keyOf(sha256);
    let body: Uint8Array;
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!res.Body) throw new Error(`S3 returned no body for ${key}`);
      body = await res.Body.transformToByteArray();
    } catch (err) {
      if (isMissingObject(err)) return null;
      throw surfaced(err);
    }
    const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    const actual = crypto.createHash('sha256').update(bytes).digest('hex');
    if (actual !== sha256) throw new Error(`S3 object ${key} does not hash to its name (got ${actual})`);
    return bytes;
  }

  async has(sha256: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.keyOf(sha256) }));
      return true;
    } catch (err) {
      if (isMissingObject(err)) return false;
      throw surfaced(err);
    }
  }

  async delete(sha256: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.keyOf(sha256) }));
    } catch (err) {
      if (isMissingObject(err)) return;
      throw surfaced(err);
    }
  }

  /** The objects under blobs/, a page (up to 1000 keys) at a time. */
  async *list(): AsyncIterable<StoredBlob> {
    let token: string | undefined;
    do {
      let page: ListObjectsV2CommandOutput;
      try {
        page = await this.client.send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: 'blobs/', ContinuationToken: token }),
        );
      } catch (err) {
        throw surfaced(err);
      }
      for (const o of page.Contents ?? []) {
        const name = o.Key?.slice(o.Key.lastIndexOf('/') + 1) ?? '';
        if (isSha256(name) && o.LastModified) yield { sha256: name, writtenAt: o.LastModified.getTime() };
      }
      token = page.NextContinuationToken;
    } while (token);
  }

  /** Put, read back and delete a probe object outside blobs/; throws (unreachable, denied, no bucket). */
  async check(): Promise<void> {
    const key = `health/${crypto.randomUUID()}`;
    let back: string | undefined;
    try {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: 'ok', ContentType: 'text/plain' }),
      );
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      back = await res.Body?.transformToString();
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (err) {
      throw surfaced(err);
    }
    if (back !== 'ok') throw new Error('S3 blob store read back different bytes');
  }
}

// A 404 about the object, not the bucket: a missing bucket is a misconfiguration and must surface.
function isMissingObject(err: unknown): boolean {
  if (!(err instanceof S3ServiceException)) return false;
  if (err.name === 'NoSuchBucket') return false;
  return MISSING_OBJECT.has(err.name) || err.$metadata.httpStatusCode === 404;
}

// The SDK's connect timeout is an Error named TimeoutError without an errno code; give it ETIMEDOUT so the
// error handler answers 503 store_unavailable (as for ECONNREFUSED) instead of 500.
function surfaced(err: unknown): unknown {
  if (err instanceof Error && err.name === 'TimeoutError' && (err as NodeJS.ErrnoException).code === undefined) {
    Object.assign(err, { code: 'ETIMEDOUT' });
  }
  return err;
}
