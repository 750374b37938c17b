import { describe, expect, it } from 'vitest';
import { createTenant, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { auth, keyWith } from '../work-items/helpers.js';

describe('hosts', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s));

  const beat = (t: Tenant, body: Record<string, unknown>, token?: string) =>
    gw.call('POST', '/v1/hosts/heartbeat', {
      ...auth(t, token),
      body: { hostId: 'h-1', name: 'runner-1', runnerVersion: '1.4.0', capacity: 2, activeJobs: 0, ...body },
    });
  const statusOf = async (t: Tenant, hostId: string) =>
    (await gw.call('GET', '/v1/hosts', auth(t))).body.data.find((h: { hostId: string }) => h.hostId === hostId)?.status;

  it('creates a host on its first heartbeat and refreshes it on later ones', async () => {
    const t = await createTenant(gw);
    const first = await beat(t, { labels: ['linux', 'gpu', 'linux'] });
    expect(first.status).toBe(200);
    const firstAt = new Date(gw.clock.now()).toISOString();
    expect(first.body.data).toEqual({
      hostId: 'h-1',
      name: 'runner-1',
      runnerVersion: '1.4.0',
      capacity: 2,
      activeJobs: 0,
      labels: ['linux', 'gpu'],
      firstSeenAt: firstAt,
      lastHeartbeatAt: firstAt,
      status: 'online',
    });
    gw.clock.advance(30_000);
    const second = await beat(t, { name: 'runner-one', runnerVersion: '1.5.0', activeJobs: 1 });
    expect(second.body.data).toMatchObject({
      name: 'runner-one',
      runnerVersion: '1.5.0',
      activeJobs: 1,
      labels: [],
      firstSeenAt: firstAt,
      lastHeartbeatAt: new Date(gw.clock.now()).toISOString(),
    });
    await beat(t, { hostId: 'h-0', name: 'alpha' });
    const list = await gw.call('GET', '/v1/hosts', auth(t));
    expect(list.status).toBe(200);
    expect(list.body.data.map((h: { hostId: string }) => h.hostId)).toEqual(['h-0', 'h-1']);
    expect(list.body.data[1]).toEqual(second.body.data);
  });

  it('derives the status at read time: online, busy, stale, offline, at the edges', async () => {
    const t = await createTenant(gw);
    await beat(t, { hostId: 'edge', capacity: 2, activeJobs: 1 });
    expect(await statusOf(t, 'edge')).toBe('online');
    gw.clock.advance(90_000);
    expect(await statusOf(t, 'edge')).toBe('online');
    gw.clock.advance(1);
    expect(await statusOf(t, 'edge')).toBe('stale');
    gw.clock.advance(600_000 - 90_001);
    expect(await statusOf(t, 'edge')).toBe('stale');
    gw.clock.advance(1);
    expect(await statusOf(t, 'edge')).toBe('offline');
    // A new heartbeat brings it back; at capacity it is busy.
    await beat(t, { hostId: 'edge', capacity: 2, activeJobs: 2 });
    expect(await statusOf(t, 'edge')).toBe('busy');
    await beat(t, { hostId: 'edge', capacity: 0, activeJobs: 0 });
    expect(await statusOf(t, 'edge')).toBe('busy');
    gw.clock.advance(90_001);
    expect(await statusOf(t, 'edge')).toBe('stale');
  });

  it('validates the heartbeat', async () => {
    for (const body of [
      { hostId: '' },
      { capacity: -1 },
      { activeJobs: 1.5 },
      { name: '' },
      { labels: [''] },
      { extra: 1 },
      { runnerVersion: '' },
    ]) {
      const res = await beat(a, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request_body');
    }
    expect((await gw.call('GET', '/v1/hosts', auth(a))).body.data).toEqual([]);
  });

  it('keeps hosts per factory: one hostId in two factories is two hosts, each unseen by the other', async () => {
    await beat(a, { hostId: 'shared', name: 'a-host' });
    await beat(b, { hostId: 'shared', name: 'b-host' });
    const listA = await gw.call('GET', '/v1/hosts', auth(a));
    const listB = await gw.call('GET', '/v1/hosts', auth(b));
    expect(listA.body.data.map((h: { name: string }) => h.name)).toEqual(['a-host']);
    expect(listB.body.data.map((h: { name: string }) => h.name)).toEqual(['b-host']);
    expect((await gw.call('GET', '/v1/hosts', { token: b.factoryKey, appId: a.appId })).status).toBe(401);
    expect(
      (
        await gw.call('POST', '/v1/hosts/heartbeat', {
          token: b.factoryKey,
          appId: a.appId,
          body: { hostId: 'x', name: 'x', runnerVersion: '1', capacity: 1, activeJobs: 0 },
        })
      ).status,
    ).toBe(401);
    expect((await gw.call('GET', '/v1/hosts', auth(a))).body.data).toHaveLength(1);
  });

  it('needs hosts.write to heartbeat and hosts.read to list; the ingest preset may heartbeat', async () => {
    expect((await gw.call('POST', '/v1/hosts/heartbeat', { appId: a.appId, body: {} })).status).toBe(401);
    expect((await gw.call('GET', '/v1/hosts', { appId: a.appId })).status).toBe(401);
    const reader = await keyWith(gw, a, ['hosts.read']);
    expect((await beat(a, { hostId: 'r' }, reader)).body.error).toMatchObject({
      code: 'forbidden',
      required_permission: 'hosts.write',
    });
    const writer = await keyWith(gw, a, ['hosts.write']);
    expect((await gw.call('GET', '/v1/hosts', auth(a, writer))).body.error).toMatchObject({
      code: 'forbidden',
      required_permission: 'hosts.read',
    });
    const ingest = await gw.call('POST', '/v1/api-keys', {
      token: a.loginToken,
      appId: a.appId,
      body: { name: 'ingest-hosts', preset: 'ingest' },
    });
    expect((await beat(a, { hostId: 'ingest-host' }, ingest.body.data.plaintext_key)).status).toBe(200);
    expect(
      (await gw.call('GET', '/v1/hosts', auth(a, reader))).body.data.map((h: { hostId: string }) => h.hostId),
    ).toContain('ingest-host');
  });
});
