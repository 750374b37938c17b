import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AREAS } from '../../../src/areas/index.js';
import { VERSION } from '../../../src/version.js';
import { createTenant, startGateway, usingPostgres, usingRedis, type TestGateway } from '../../helpers/gateway.js';

describe('GET /v1/capabilities', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('lists the registered areas, sorted, exactly as registered', async () => {
    const res = await gw.call('GET', '/v1/capabilities');
    expect(res.status).toBe(200);
    const { areas } = res.body.data;
    expect(areas).toEqual(expect.arrayContaining(['health', 'api-keys', 'pricing', 'oauth', 'capabilities']));
    expect(areas).toEqual([...new Set(AREAS.map((a) => a.name))].sort());
    expect(areas).toEqual([...gw.app.attest.areas].sort());
  });

  it('reports features from configuration and from the routes that exist', async () => {
    const res = await gw.call('GET', '/v1/capabilities');
    expect(res.body.data.version).toBe(VERSION);
    expect(res.body.data.apiVersion).toBe('1.0');
    expect(res.body.data.features).toEqual({
      redisRateLimits: usingRedis,
      s3Blobs: false,
      githubApp: false,
      mcp: gw.app.hasRoute({ method: 'POST', url: '/v1/mcp' }),
      oauth: gw.app.hasRoute({ method: 'GET', url: '/.well-known/oauth-authorization-server' }),
    });
    expect(res.body.data.stores).toEqual({
      database: usingPostgres ? 'postgres' : 'sqlite',
      rateLimits: usingRedis ? 'redis' : 'memory',
      blobs: 'fs',
    });
  });

  it('needs no credential and ignores a bad one', async () => {
    expect((await gw.call('GET', '/v1/capabilities', { token: 'olu_nonsense' })).status).toBe(200);
    const t = await createTenant(gw);
    expect((await gw.call('GET', '/v1/capabilities', { token: t.factoryKey })).status).toBe(200);
  });

  it('is a /v1 route: an old runner gets 426', async () => {
    const old = await startGateway({ env: { ATTEST_MIN_RUNNER_VERSION: '2.0.0' } });
    try {
      const res = await old.call('GET', '/v1/capabilities', { headers: { 'x-outerlayer-runner-version': '1.9.0' } });
      expect(res.status).toBe(426);
      expect(res.body.error).toMatchObject({ code: 'runner_upgrade_required', minimum: '2.0.0' });
    } finally {
      await old.close();
    }
  });
});

describe('GET /v1/capabilities with a GitHub App and Redis configured', () => {
  it('reports githubApp and redisRateLimits', async () => {
    const gw = await startGateway({
      env: {
        GITHUB_APP_ID: '123',
        GITHUB_APP_PRIVATE_KEY: 'pem',
        REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:1',
      },
    });
    try {
      const res = await gw.call('GET', '/v1/capabilities');
      expect(res.body.data.features).toMatchObject({ githubApp: true, redisRateLimits: true });
      expect(res.body.data.stores.rateLimits).toBe('redis');
    } finally {
      await gw.close();
    }
  });
});
