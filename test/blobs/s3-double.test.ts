// The S3 double answers the way the AWS SDK expects S3 to: the SDK itself parses its XML errors into
// NoSuchKey / NoSuchBucket / InvalidAccessKeyId / SignatureDoesNotMatch. And S3BlobStore maps those
// answers right: missing object → null, missing bucket, bad credentials or an unreachable endpoint → throw.
import crypto from 'node:crypto';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GetObjectCommand,
  HeadObjectCommand,
  NoSuchBucket,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { S3BlobStore, type S3BlobStoreOptions } from '../../src/blobs/s3.js';
import { startS3Double, type S3Double } from '../s3-double/server.js';

const credentials = {
  bucket: 'attest-double',
  accessKeyId: 'AKIATESTDOUBLE',
  secretAccessKey: 'double-secret',
  region: 'us-east-1',
};
const sha256 = (bytes: Buffer) => crypto.createHash('sha256').update(bytes).digest('hex');

let double: S3Double;

beforeAll(async () => {
  double = await startS3Double(credentials);
});

afterAll(async () => {
  await double.close();
});

function client(overrides: { accessKeyId?: string; secretAccessKey?: string } = {}): S3Client {
  return new S3Client({
    endpoint: double.url,
    region: credentials.region,
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: {
      accessKeyId: overrides.accessKeyId ?? credentials.accessKeyId,
      secretAccessKey: overrides.secretAccessKey ?? credentials.secretAccessKey,
    },
  });
}

async function rejection(promise: Promise<unknown>): Promise<S3ServiceException> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof S3ServiceException) return err;
    throw err;
  }
  throw new Error('expected the S3 call to fail');
}

describe('S3 double, through the AWS SDK', () => {
  it('stores a PutObject under the path-style key and serves it to GetObject with its content type', async () => {
    const s3 = client();
    await s3.send(
      new PutObjectCommand({
        Bucket: credentials.bucket,
        Key: 'a/b c+d.txt',
        Body: 'hello',
        ContentType: 'text/plain',
      }),
    );
    expect(double.objects.get('a/b c+d.txt')?.bytes.toString()).toBe('hello');
    const got = await s3.send(new GetObjectCommand({ Bucket: credentials.bucket, Key: 'a/b c+d.txt' }));
    expect(await got.Body?.transformToString()).toBe('hello');
    expect(got.ContentType).toBe('text/plain');
    expect(got.ETag).toBe(`"${crypto.createHash('md5').update('hello').digest('hex')}"`);
  });

  it('makes the SDK throw NoSuchKey (404) for GetObject on a missing key', async () => {
    const err = await rejection(client().send(new GetObjectCommand({ Bucket: credentials.bucket, Key: 'nope' })));
    expect(err).toBeInstanceOf(NoSuchKey);
    expect(err.name).toBe('NoSuchKey');
    expect(err.$metadata.httpStatusCode).toBe(404);
    expect(err.$metadata.requestId).toMatch(/^[0-9A-F]{16}$/);
  });

  it('makes the SDK throw NoSuchBucket (404) for an unknown bucket', async () => {
    const err = await rejection(client().send(new PutObjectCommand({ Bucket: 'other-bucket', Key: 'k', Body: 'x' })));
    expect(err).toBeInstanceOf(NoSuchBucket);
    expect(err.$metadata.httpStatusCode).toBe(404);
  });

  it('answers HeadObject on a missing key with a bodiless 404 (the SDK calls it NotFound)', async () => {
    const err = await rejection(client().send(new HeadObjectCommand({ Bucket: credentials.bucket, Key: 'nope' })));
    expect(err.name).toBe('NotFound');
    expect(err.$metadata.httpStatusCode).toBe(404);
  });

  it('refuses an unknown key id (403 InvalidAccessKeyId) and a wrong secret (403 SignatureDoesNotMatch)', async () => {
    const unknownKey = await rejection(
      client({ accessKeyId: 'AKIAWRONG' }).send(
        new PutObjectCommand({ Bucket: credentials.bucket, Key: 'k', Body: 'x' }),
      ),
    );
    expect(unknownKey.name).toBe('InvalidAccessKeyId');
    expect(unknownKey.$metadata.httpStatusCode).toBe(403);
    const wrongSecret = await rejection(
      client({ secretAccessKey: 'not-the-secret' }).send(
        new PutObjectCommand({ Bucket: credentials.bucket, Key: 'k', Body: 'x' }),
      ),
    );
    expect(wrongSecret.name).toBe('SignatureDoesNotMatch');
    expect(double.objects.has('k')).toBe(false);
  });

  it('refuses a request without a signature (403 AccessDenied, XML body)', async () => {
    const res = await fetch(`${double.url}/${credentials.bucket}/anything`);
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toBe('application/xml');
    expect(await res.text()).toMatch(/<Error><Code>AccessDenied<\/Code>/);
  });
});

describe('S3BlobStore against the double', () => {
  const store = (overrides: Partial<S3BlobStoreOptions> = {}) =>
    new S3BlobStore({ endpoint: double.url, ...credentials, ...overrides });

  it('keeps blobs under blobs/<aa>/<sha256> in the configured bucket, addressed path-style', async () => {
    const bytes = Buffer.from('addressed');
    const digest = sha256(bytes);
    await store().put(digest, bytes);
    expect(double.objects.get(`blobs/${digest.slice(0, 2)}/${digest}`)?.bytes.equals(bytes)).toBe(true);
    const put = double.requests.filter((r) => r.method === 'PUT' && r.key.endsWith(digest));
    expect(put).toEqual([
      { method: 'PUT', bucket: credentials.bucket, key: `blobs/${digest.slice(0, 2)}/${digest}`, status: 200 },
    ]);
  });

  it('refuses to serve an object whose bytes no longer hash to its name', async () => {
    const bytes = Buffer.from('original');
    const digest = sha256(bytes);
    await store().put(digest, bytes);
    double.objects.get(`blobs/${digest.slice(0, 2)}/${digest}`)!.bytes = Buffer.from('tampered');
    await expect(store().get(digest)).rejects.toThrow(/does not hash to its name/);
  });

  it('throws (not null) when the bucket does not exist, and check() fails', async () => {
    const wrongBucket = store({ bucket: 'missing-bucket' });
    await expect(wrongBucket.get(sha256(Buffer.from('x')))).rejects.toThrow(NoSuchBucket);
    await expect(wrongBucket.check()).rejects.toThrow(NoSuchBucket);
  });

  it('fails check() with bad credentials', async () => {
    await expect(store({ secretAccessKey: 'wrong' }).check()).rejects.toMatchObject({ name: 'SignatureDoesNotMatch' });
  });

  it('fails every operation when the endpoint does not answer', async () => {
    const stopped = await startS3Double(credentials);
    const unreachable = store({ endpoint: stopped.url });
    await stopped.close();
    const digest = sha256(Buffer.from('x'));
    await expect(unreachable.check()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await expect(unreachable.get(digest)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await expect(unreachable.has(digest)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('gives up with ETIMEDOUT on an endpoint that accepts connections and never answers', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const stalled = store({
        endpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        timeouts: { connectMs: 1_000, requestMs: 200 },
      });
      await expect(stalled.check()).rejects.toMatchObject({ name: 'TimeoutError', code: 'ETIMEDOUT' });
      expect(sockets.size).toBeGreaterThan(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
