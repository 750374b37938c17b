import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, usingPostgres, usingRedis, type TestGateway } from '../../helpers/gateway.js';

describe('health', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('GET /health answers without a credential', async () => {
    const res = await gw.call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('ok');
    expect(res.body.data.uptimeMs).toBeGreaterThanOrEqual(0);
  });

  it('GET /v1/health/ingestion reports the database, rate-limit store and blob store', async () => {
    const res = await gw.call('GET', '/v1/health/ingestion');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.data.status).toBe('ok');
    const checks = res.body.data.checks as Array<Record<string, unknown>>;
    expect(checks.map((c) => c.name)).toEqual(['database', 'rate_limits', 'blobs']);
    const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
    expect(byName.database).toMatchObject({
      kind: usingPostgres ? 'postgres' : 'sqlite',
      status: 'ok',
      critical: true,
    });
    expect(byName.rate_limits).toMatchObject({ kind: usingRedis ? 'redis' : 'memory', status: 'ok', critical: false });
    expect(byName.blobs).toMatchObject({ kind: 'fs', status: 'ok', critical: false });
    for (const c of checks) {
      expect(typeof c.latencyMs).toBe('number');
      expect(c.latencyMs).toBeGreaterThanOrEqual(0);
      expect(c).not.toHaveProperty('message');
    }
  });

  it('GET /v1/health/files reports the blob store', async () => {
    const res = await gw.call('GET', '/v1/health/files');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      status: 'ok',
      checks: [{ name: 'blobs', kind: 'fs', status: 'ok', critical: true, latencyMs: expect.any(Number) }],
    });
    // The write-read probe leaves nothing behind in the blob directory.
    const dir = path.join(gw.config.dataDir, 'blobs');
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('.health-'))).toEqual([]);
  });

  it('public routes ignore credentials, even bad ones, and need no factory header', async () => {
    const t = await createTenant(gw);
    for (const url of ['/health', '/v1/health/ingestion', '/v1/health/files']) {
      expect((await gw.call('GET', url, { token: 'sk_outerlayer_garbage' })).status).toBe(200);
      expect((await gw.call('GET', url, { token: t.factoryKey })).status).toBe(200);
    }
  });

  it('answers 405 with Allow for other methods', async () => {
    const res = await gw.call('POST', '/v1/health/ingestion', { body: {} });
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe('method_not_allowed');
    expect(String(res.headers.allow)).toContain('GET');
  });
});

describe('health when a store is down', () => {
  it('answers 503 store_unavailable on ingestion when the database is closed; files still answer', async () => {
    const gw = await startGateway();
    try {
      await gw.app.attest.db.destroy();
      const res = await gw.call('GET', '/v1/health/ingestion');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body.error.code).toBe('store_unavailable');
      expect(res.body.error.message).toContain('database');
      const db = res.body.error.checks.find((c: { name: string }) => c.name === 'database');
      expect(db).toMatchObject({
        status: 'down',
        critical: true,
        latencyMs: expect.any(Number),
        message: expect.any(String),
      });
      expect(res.body.error.checks.find((c: { name: string }) => c.name === 'blobs').status).toBe('ok');
      // The blob store does not depend on the database.
      expect((await gw.call('GET', '/v1/health/files')).status).toBe(200);
      // Liveness is about the process only.
      expect((await gw.call('GET', '/health')).status).toBe(200);
    } finally {
      await gw.close().catch(() => undefined);
    }
  });

  it('answers 503 on files and degraded on ingestion when the blob directory cannot be written', async () => {
    const gw = await startGateway();
    try {
      // A regular file where the blob directory should be: unusable even for root (chmod is not enough).
      const dir = path.join(gw.config.dataDir, 'blobs');
      fs.rmSync(dir, { recursive: true, force: true });
      fs.writeFileSync(dir, 'not a directory');
      const files = await gw.call('GET', '/v1/health/files');
      expect(files.status).toBe(503);
      expect(files.headers['retry-after']).toBe('5');
      expect(files.body.error.code).toBe('store_unavailable');
      expect(files.body.error.checks).toEqual([
        {
          name: 'blobs',
          kind: 'fs',
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
        status: 'down',
        critical: false,
      });
    } finally {
      await gw.close();
    }
  });

  it('reports degraded (200) on ingestion when Redis does not answer', async () => {
    const gw = await startGateway({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    try {
      const res = await gw.call('GET', '/v1/health/ingestion');
      expect(res.status).toBe(200);
      expect(res.body.data.status).toBe('degraded');
      const redis = res.body.data.checks.find((c: { name: string }) => c.name === 'rate_limits');
      expect(redis).toMatchObject({ kind: 'redis', status: 'down', critical: false, message: expect.any(String) });
      expect(res.body.data.checks.find((c: { name: string }) => c.name === 'database').status).toBe('ok');
      // Files do not depend on Redis.
      expect((await gw.call('GET', '/v1/health/files')).body.data.status).toBe('ok');
    } finally {
      await gw.close();
    }
  });
});
