// The BlobStore contract, run against both implementations: files in a directory and S3 (the double).
import crypto from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsBlobStore } from '../../src/blobs/fs.js';
import { S3BlobStore } from '../../src/blobs/s3.js';
import type { BlobStore } from '../../src/blobs/store.js';
import { startS3Double, type S3Double } from '../s3-double/server.js';
import { testTempDir } from '../helpers/tmp.js';

const credentials = {
  bucket: 'attest-blobs',
  accessKeyId: 'AKIATESTCONTRACT',
  secretAccessKey: 'contract-secret',
  region: 'eu-west-3',
};

let double: S3Double;
let dir: string;

beforeAll(async () => {
  double = await startS3Double(credentials);
  dir = testTempDir('attest-blobs-');
});

afterAll(async () => {
  await double.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const sha256 = (bytes: Buffer) => crypto.createHash('sha256').update(bytes).digest('hex');
/** Fresh bytes per test so one case never sees another's blob. */
const fresh = (label: string) =>
  Buffer.concat([Buffer.from(`${label} `), crypto.randomBytes(32), Buffer.from([0, 255, 10, 13])]);

const stores: Array<[string, () => BlobStore]> = [
  ['fs', () => new FsBlobStore(dir)],
  ['s3', () => new S3BlobStore({ endpoint: double.url, ...credentials })],
];

describe.each(stores)('BlobStore contract: %s', (kind, make) => {
  it('reports its kind', () => {
    expect(make().kind).toBe(kind);
  });

  it('gives back exactly the bytes it was given', async () => {
    const store = make();
    const bytes = fresh('round trip');
    await store.put(sha256(bytes), bytes);
    const back = await store.get(sha256(bytes));
    expect(back).not.toBeNull();
    expect(back!.equals(bytes)).toBe(true);
  });

  it('round-trips an empty blob and a 5 MiB blob', async () => {
    const store = make();
    const empty = Buffer.alloc(0);
    const big = crypto.randomBytes(5 * 1024 * 1024);
    await store.put(sha256(empty), empty);
    await store.put(sha256(big), big);
    expect((await store.get(sha256(empty)))?.length).toBe(0);
    expect((await store.get(sha256(big)))?.equals(big)).toBe(true);
  });

  it('treats a second put of the same bytes as a no-op', async () => {
    const store = make();
    const bytes = fresh('twice');
    await store.put(sha256(bytes), bytes);
    await store.put(sha256(bytes), bytes);
    expect((await store.get(sha256(bytes)))?.equals(bytes)).toBe(true);
    expect(await store.has(sha256(bytes))).toBe(true);
  });

  it('answers null and false for a blob it never stored', async () => {
    const store = make();
    const missing = sha256(fresh('never stored'));
    expect(await store.get(missing)).toBeNull();
    expect(await store.has(missing)).toBe(false);
  });

  it('has() turns true only once the blob is put', async () => {
    const store = make();
    const bytes = fresh('has');
    expect(await store.has(sha256(bytes))).toBe(false);
    await store.put(sha256(bytes), bytes);
    expect(await store.has(sha256(bytes))).toBe(true);
  });

  it('refuses a name that is not a lowercase sha256', async () => {
    const store = make();
    const bytes = fresh('bad name');
    await expect(store.put(sha256(bytes).toUpperCase(), bytes)).rejects.toThrow(/sha256/);
    await expect(store.put('../../etc/passwd', bytes)).rejects.toThrow(/sha256/);
  });

  it('passes check() and leaves no probe behind in the blob namespace', async () => {
    const store = make();
    await expect(store.check()).resolves.toBeUndefined();
    if (kind === 's3') expect([...double.objects.keys()].filter((k) => !k.startsWith('blobs/'))).toEqual([]);
  });

  it("is shared: a second instance on the same backing store sees the first one's blobs", async () => {
    const bytes = fresh('shared');
    await make().put(sha256(bytes), bytes);
    expect((await make().get(sha256(bytes)))?.equals(bytes)).toBe(true);
  });
});
