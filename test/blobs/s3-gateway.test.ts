// A gateway started with S3_* pointing at the S3 double keeps artifact bytes in the bucket (not in the data
// directory), serves them back, reports s3 blobs in its capabilities, and its health follows the bucket.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../helpers/gateway.js';
import { artifactBody, sha256 } from '../areas/artifacts/helpers.js';
import { startS3Double, type S3Double } from '../s3-double/server.js';

const credentials = {
  bucket: 'attest-e2e',
  accessKeyId: 'AKIATESTGATEWAY',
  secretAccessKey: 'gateway-secret',
  region: 'eu-central-1',
};

describe('gateway with S3 blobs', () => {
  let double: S3Double;
  let gw: TestGateway;
  let t: Tenant;
  let auth: { token: string; appId: string };

  beforeAll(async () => {
    double = await startS3Double(credentials);
    gw = await startGateway({
      env: {
        S3_ENDPOINT: double.url,
        S3_BUCKET: credentials.bucket,
        S3_ACCESS_KEY_ID: credentials.accessKeyId,
        S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        S3_REGION: credentials.region,
      },
    });
    t = await createTenant(gw);
    auth = { token: t.factoryKey, appId: t.appId };
  });
  afterAll(async () => {
    await gw?.close();
    await double?.close();
  });

  const content = (id: string) =>
    gw.app.inject({
      method: 'GET',
      url: `/v1/artifacts/${id}/content`,
      headers: { authorization: `Bearer ${t.factoryKey}`, 'x-outerlayer-app-id': t.appId },
    });

  it('reports s3 blobs in /v1/capabilities', async () => {
    const res = await gw.call('GET', '/v1/capabilities');
    expect(res.status).toBe(200);
    expect(res.body.data.features.s3Blobs).toBe(true);
    expect(res.body.data.stores.blobs).toBe('s3');
  });

  it('reports the bucket ok in /v1/health/files after a real round trip to it', async () => {
    const before = double.requests.length;
    const res = await gw.call('GET', '/v1/health/files');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      status: 'ok',
      checks: [{ name: 'blobs', kind: 's3', status: 'ok', critical: true, latencyMs: expect.any(Number) }],
    });
    expect(double.requests.slice(before).map((r) => `${r.method} ${r.status}`)).toEqual([
      'PUT 200',
      'GET 200',
      'DELETE 204',
    ]);
    expect([...double.objects.keys()].filter((k) => k.startsWith('health/'))).toEqual([]);
  });

  it('stores the bytes of POST /v1/artifacts in the bucket and serves them from /content', async () => {
    const bytes = Buffer.concat([Buffer.from('\x89PNG s3 '), crypto.randomBytes(64)]);
    const digest = sha256(bytes);
    const res = await gw.call('POST', '/v1/artifacts', { ...auth, body: artifactBody(bytes) });
    expect(res.status).toBe(201);
    expect(res.body.data.sha256).toBe(digest);

    const stored = double.objects.get(`blobs/${digest.slice(0, 2)}/${digest}`);
    expect(stored?.bytes.equals(bytes)).toBe(true);
    // Nothing went to the data directory.
    expect(fs.existsSync(path.join(gw.config.dataDir, 'blobs', digest.slice(0, 2), digest))).toBe(false);

    const served = await content(res.body.data.id);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toMatch(/^image\/png/);
    expect(served.rawPayload.equals(bytes)).toBe(true);
  });

  it('answers 503 store_unavailable while S3 answers 5xx after the SDK retries, and recovers after', async () => {
    const bytes = crypto.randomBytes(40);
    double.failNext('InternalError', 10);
    const failed = await gw.call('POST', '/v1/artifacts', {
      ...auth,
      body: artifactBody(bytes, { mediaType: 'application/octet-stream', filename: 'flaky.bin' }),
    });
    expect(failed.status).toBe(503);
    expect(failed.body.error.code).toBe('store_unavailable');
    expect(failed.headers['retry-after']).toBe('5');
    expect(failed.text).not.toMatch(/InternalError|amazonaws|xml/i);
    double.failNext('InternalError', 0);
    const retried = await gw.call('POST', '/v1/artifacts', {
      ...auth,
      body: artifactBody(bytes, { mediaType: 'application/octet-stream', filename: 'flaky.bin' }),
    });
    expect(retried.status).toBe(201);
  });

  it('answers 404 artifact_not_found when the object was removed from the bucket behind its back', async () => {
    const bytes = crypto.randomBytes(48);
    const digest = sha256(bytes);
    const res = await gw.call('POST', '/v1/artifacts', {
      ...auth,
      body: artifactBody(bytes, { mediaType: 'application/octet-stream', filename: 'gone.bin' }),
    });
    expect(res.status).toBe(201);
    expect(double.objects.delete(`blobs/${digest.slice(0, 2)}/${digest}`)).toBe(true);
    const served = await content(res.body.data.id);
    expect(served.statusCode).toBe(404);
    expect(JSON.parse(served.body).error.code).toBe('artifact_not_found');
  });

  // Last: stops the double for the rest of this file.
  it('reports files 503 (and ingestion degraded) once the bucket stops answering; uploads answer 503', async () => {
    const bytes = crypto.randomBytes(32);
    const kept = await gw.call('POST', '/v1/artifacts', {
      ...auth,
      body: artifactBody(bytes, { mediaType: 'application/octet-stream', filename: 'kept.bin' }),
    });
    expect(kept.status).toBe(201);
    await double.close();

    const files = await gw.call('GET', '/v1/health/files');
    expect(files.status).toBe(503);
    expect(files.headers['retry-after']).toBe('5');
    expect(files.body.error.code).toBe('store_unavailable');
    expect(files.body.error.checks).toEqual([
      {
        name: 'blobs',
        kind: 's3',
        status: 'down',
        critical: true,
        latencyMs: expect.any(Number),
        message: expect.any(String),
      },
    ]);

    const ingestion = await gw.call('GET', '/v1/health/ingestion');
    expect(ingestion.status).toBe(200);
    expect(ingestion.body.data.status).toBe('degraded');
    expect(ingestion.body.data.checks.find((c: { name: string }) => c.name === 'blobs')).toMatchObject({
      kind: 's3',
      status: 'down',
      critical: false,
    });

    const upload = await gw.call('POST', '/v1/artifacts', {
      ...auth,
      body: artifactBody(crypto.randomBytes(16), { mediaType: 'application/octet-stream', filename: 'late.bin' }),
    });
    expect(upload.status).toBe(503);
    expect(upload.body.error.code).toBe('store_unavailable');
    const served = await content(kept.body.data.id);
    expect(served.statusCode).toBe(503);
  });
});
