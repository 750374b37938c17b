// Rate limits (API.md §4): per-org buckets, free vs paid columns, the 429 body and headers, Redis shared
// across replicas, and failing open when Redis does not answer.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, usingRedis, type Tenant, type TestGateway } from '../helpers/gateway.js';
import { probeArea } from '../helpers/probe.js';

async function burst(gw: TestGateway, t: Tenant, url: string, n: number) {
  const results = [];
  for (let i = 0; i < n; i++) results.push(await gw.call('GET', url, { token: t.factoryKey, appId: t.appId }));
  return results;
}

describe('rate limits', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ extraAreas: [probeArea] });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('free plan: session-detail allows 30 a minute, then 429 rate_limited with all four headers', async () => {
    const t = await createTenant(gw, { plan: 'free' });
    const results = await burst(gw, t, '/v1/probe/detail', 31);
    expect(results.slice(0, 30).every((r) => r.status === 200)).toBe(true);
    expect(results[0]!.headers['x-ratelimit-limit']).toBe('30');
    expect(results[0]!.headers['x-ratelimit-remaining']).toBe('29');
    const limited = results[30]!;
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(limited.headers['x-ratelimit-limit']).toBe('30');
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    const reset = Number(limited.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThan(Date.now());
    expect(reset).toBeLessThanOrEqual(Date.now() + 61_000);
    const retry = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retry)).toBe(true);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
  });

  it('paid plans use the paid column (300 for session-detail)', async () => {
    const t = await createTenant(gw, { plan: 'paid' });
    const [first] = await burst(gw, t, '/v1/probe/detail', 1);
    expect(first!.headers['x-ratelimit-limit']).toBe('300');
    const ent = await createTenant(gw, { plan: 'enterprise' });
    const [e] = await burst(gw, ent, '/v1/probe/observability', 1);
    expect(e!.headers['x-ratelimit-limit']).toBe('1000');
  });

  it('buckets are counted per org and per bucket', async () => {
    const a = await createTenant(gw, { plan: 'free' });
    const b = await createTenant(gw, { plan: 'free' });
    const exhausted = await burst(gw, a, '/v1/probe/detail', 31);
    expect(exhausted[30]!.status).toBe(429);
    // Another org is not affected; neither is another bucket of the same org.
    expect((await burst(gw, b, '/v1/probe/detail', 1))[0]!.status).toBe(200);
    const other = (await burst(gw, a, '/v1/probe/observability', 1))[0]!;
    expect(other.status).toBe(200);
    expect(other.headers['x-ratelimit-limit']).toBe('100');
  });

  it('routes without a bucket carry no rate-limit headers', async () => {
    const t = await createTenant(gw, { plan: 'free' });
    const r = await gw.call('GET', '/v1/api-keys', { token: t.factoryKey, appId: t.appId });
    expect(r.status).toBe(200);
    expect(r.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('an unauthenticated call is refused before it counts', async () => {
    const t = await createTenant(gw, { plan: 'free' });
    for (let i = 0; i < 5; i++) await gw.call('GET', '/v1/probe/detail', { appId: t.appId });
    const r = (await burst(gw, t, '/v1/probe/detail', 1))[0]!;
    expect(r.headers['x-ratelimit-remaining']).toBe('29');
  });
});

describe('rate limits with Redis down', () => {
  it('fail open: requests pass while the limit store does not answer', async () => {
    const gw = await startGateway({ extraAreas: [probeArea], env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    try {
      const t = await createTenant(gw, { plan: 'free' });
      const results = await burst(gw, t, '/v1/probe/detail', 35);
      expect(results.every((r) => r.status === 200)).toBe(true);
    } finally {
      await gw.close();
    }
  });
});

describe.runIf(usingRedis)('rate limits in Redis from the first request', () => {
  it('a gateway with a slow Redis starts connected: first health report ok, first request counts', async () => {
    // Redis behind a proxy that holds each new connection for 1.5 s before passing bytes either way (less than
    // the 2 s connect timeout): a gateway that started before its store was ready would fail open and say degraded.
    const target = new URL(process.env.TEST_REDIS_URL!);
    const slow = net.createServer((client) => {
      client.pause();
      const timer = setTimeout(() => {
        const upstream = net.connect(Number(target.port || 6379), target.hostname);
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        client.on('close', () => upstream.destroy());
        client.pipe(upstream).pipe(client);
      }, 1500);
      client.on('close', () => clearTimeout(timer));
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const port = (slow.address() as net.AddressInfo).port;
    const gw = await startGateway({ extraAreas: [probeArea], env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
    try {
      const health = await gw.call('GET', '/v1/health/ingestion');
      expect(health.body.data.checks.find((c: { name: string }) => c.name === 'rate_limits')).toMatchObject({
        kind: 'redis',
        status: 'ok',
      });
      expect(health.body.data.status).toBe('ok');
      const t = await createTenant(gw, { plan: 'free' });
      const [first] = await burst(gw, t, '/v1/probe/detail', 1);
      expect(first!.headers['x-ratelimit-remaining']).toBe('29');
    } finally {
      await gw.close();
      await new Promise((resolve) => slow.close(resolve));
    }
  });
});

describe.runIf(usingRedis)('rate limits in Redis across replicas', () => {
  it('two replicas share one counter per org', async () => {
    const gw = await startGateway({ extraAreas: [probeArea] });
    const replica = await startGateway({ replicaOf: gw, extraAreas: [probeArea] });
    try {
      expect(gw.app.attest.rateLimits.store).toBe('redis');
      const t = await createTenant(gw, { plan: 'free' });
      const first = await burst(gw, t, '/v1/probe/detail', 20);
      const second = await burst(replica, t, '/v1/probe/detail', 11);
      expect([...first, ...second].filter((r) => r.status === 200)).toHaveLength(30);
      expect(second[10]!.status).toBe(429);
    } finally {
      await replica.close();
      await gw.close();
    }
  });
});
