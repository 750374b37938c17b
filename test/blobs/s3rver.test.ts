// The S3 blob store against a real S3 protocol server: s3rver (npm) started here on 127.0.0.1, spoken to by the
// AWS SDK the gateway uses (@aws-sdk/client-s3), with the gateway's S3_* settings. Through it: artifact bytes
// are put and read back, a Range read and the signed content URL are served from the bucket, DELETE removes the
// object, and the blob sweep removes an orphan while keeping what a factory holds. (The S3 double in
// test/s3-double stays for what a real server cannot be made to do: fail on cue.)
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signArtifactContentUrl } from '../../src/server/signed-urls.js';
import { testTempDir } from '../helpers/tmp.js';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../helpers/gateway.js';
import { artifactBody, sha256 } from '../areas/artifacts/helpers.js';

const BUCKET = 'attest-s3rver';
// s3rver's default key pair. (s3rver 3.7 accepts a wrong secret too: signatures are the one thing not proven here.)
const KEY = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', region: 'us-east-1' };

describe('the S3 blob store against s3rver', () => {
  let server: S3rver;
  let endpoint: string;
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  let bucket: S3Client;
  const on = (t: Tenant) => ({ token: t.factoryKey, appId: t.appId });
  const keyOf = (sha: string) => `blobs/${sha.slice(0, 2)}/${sha}`;
  const inBucket = async (sha: string) =>
    bucket.send(new HeadObjectCommand({ Bucket: BUCKET, Key: keyOf(sha) })).then(
      () => true,
      (err: { name?: string }) => {
        if (err.name === 'NotFound') return false;
        throw err;
      },
    );
  const upload = async (t: Tenant, bytes: Buffer) => {
    const r = await gw.call('POST', '/v1/artifacts', {
      ...on(t),
      body: artifactBody(bytes, { mediaType: 'application/octet-stream', filename: 'x.bin' }),
    });
    expect(r.status, r.text).toBe(201);
    return r.body.data.id as string;
  };
  const content = (id: string, headers: Record<string, string> = {}, t: Tenant = a) =>
    gw.app.inject({
      method: 'GET',
      url: `/v1/artifacts/${id}/content`,
      headers: { authorization: `Bearer ${t.factoryKey}`, 'x-outerlayer-app-id': t.appId, ...headers },
    });

  beforeAll(async () => {
    server = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: testTempDir('s3rver-'),
      configureBuckets: [{ name: BUCKET, configs: [] }],
    });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
    bucket = new S3Client({
      endpoint,
      region: KEY.region,
      forcePathStyle: true,
      credentials: { accessKeyId: KEY.accessKeyId, secretAccessKey: KEY.secretAccessKey },
    });
    gw = await startGateway({
      env: {
        S3_ENDPOINT: endpoint,
        S3_BUCKET: BUCKET,
        S3_ACCESS_KEY_ID: KEY.accessKeyId,
        S3_SECRET_ACCESS_KEY: KEY.secretAccessKey,
        S3_REGION: KEY.region,
      },
    });
    a = await createTenant(gw);
    b = await createTenant(gw);
  });
  afterAll(async () => {
    await gw?.close();
    bucket?.destroy();
    await server?.close();
  });

  it('keeps artifact bytes in the bucket and serves them whole, by Range, and through a signed URL', async () => {
    expect((await gw.call('GET', '/v1/health/files')).body.data.checks[0]).toMatchObject({ kind: 's3', status: 'ok' });
    const bytes = crypto.randomBytes(4096);
    const id = await upload(a, bytes);
    expect(await inBucket(sha256(bytes))).toBe(true);
    expect(fs.existsSync(path.join(gw.config.dataDir, 'blobs'))).toBe(false);

    const whole = await content(id);
    expect(whole.statusCode).toBe(200);
    expect(whole.rawPayload.equals(bytes)).toBe(true);

    const part = await content(id, { range: 'bytes=1000-1999' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 1000-1999/4096');
    expect(part.rawPayload.equals(bytes.subarray(1000, 2000))).toBe(true);
    const tail = await content(id, { range: 'bytes=-96' });
    expect(tail.statusCode).toBe(206);
    expect(tail.rawPayload.equals(bytes.subarray(4000))).toBe(true);
    const beyond = await content(id, { range: 'bytes=5000-' });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.headers['content-range']).toBe('bytes */4096');

    // The signed URL a PR comment embeds: no credential, the signature opens this artifact only.
    const { url } = signArtifactContentUrl('http://gateway.test', gw.app.attest.pepper, a.appId, id, gw.clock.now());
    const signed = new URL(url);
    const viaSig = await gw.app.inject({ method: 'GET', url: `${signed.pathname}${signed.search}` });
    expect(viaSig.statusCode).toBe(200);
    expect(viaSig.rawPayload.equals(bytes)).toBe(true);
    const forged = new URLSearchParams(signed.search);
    forged.set('sig', `${forged.get('sig')!.slice(0, -2)}AA`);
    const refused = await gw.app.inject({ method: 'GET', url: `${signed.pathname}?${forged}` });
    expect(refused.statusCode).toBe(401);

    // Another factory's credential sees nothing of it.
    expect((await content(id, {}, b)).statusCode).toBe(404);
  });

  it('DELETE removes the object once no factory holds the bytes', async () => {
    const bytes = crypto.randomBytes(512);
    const mine = await upload(a, bytes);
    const theirs = await upload(b, bytes);
    expect((await gw.call('DELETE', `/v1/artifacts/${mine}`, on(a))).status).toBe(204);
    expect(await inBucket(sha256(bytes))).toBe(true);
    expect((await content(theirs, {}, b)).rawPayload.equals(bytes)).toBe(true);
    expect((await gw.call('DELETE', `/v1/artifacts/${theirs}`, on(b))).status).toBe(204);
    expect(await inBucket(sha256(bytes))).toBe(false);
    expect((await content(theirs, {}, b)).statusCode).toBe(410);
  });

  it('the blob sweep lists the bucket and removes only unheld objects past the grace period', async () => {
    const held = crypto.randomBytes(256);
    const heldId = await upload(a, held);
    const orphan = crypto.randomBytes(256);
    await bucket.send(new PutObjectCommand({ Bucket: BUCKET, Key: keyOf(sha256(orphan)), Body: orphan }));
    // An object outside blobs/ (another tool's, or a health probe) is never the sweep's.
    await bucket.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'other/readme.txt', Body: 'keep' }));

    // Just written: inside the grace period, nothing goes. (The bucket stamps objects with the wall clock, so the
    // gateway's test clock is set to it first.)
    gw.clock.set(Date.now());
    expect((await gw.app.attest.housekeeping.run()).blobs).toBe(0);
    expect(await inBucket(sha256(orphan))).toBe(true);

    // A day and an hour later, for the sweep.
    gw.clock.set(Date.now() + 25 * 3_600_000);
    expect((await gw.app.attest.housekeeping.run()).blobs).toBe(1);
    expect(await inBucket(sha256(orphan))).toBe(false);
    expect(await inBucket(sha256(held))).toBe(true);
    expect((await content(heldId)).rawPayload.equals(held)).toBe(true);
    const other = await bucket.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'other/readme.txt' }));
    expect(other.ContentLength).toBe(4);
  });
});
