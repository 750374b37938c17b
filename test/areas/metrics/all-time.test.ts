// Issue 45 §1: GET /v1/metrics/overview carries `allTime`, the factory's top-level sessions whatever the window
// (how many, first and last start), so an overview of an empty window can say where the sessions are. The test
// clock stands at 2026-11-01T12:00Z; the sessions started about 60 days before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { ingest, sessionDoc } from './sessions.js';

let gw: TestGateway;
let a: Tenant;
let b: Tenant;
const turn = { model: 'claude-sonnet-4-5', in: 100, out: 10 };

beforeAll(async () => {
  gw = await startGateway();
  a = await createTenant(gw);
  b = await createTenant(gw);
  const subagent = {
    ...sessionDoc({ id: 'parent', startedAt: '2026-08-01T00:00:00Z', repo: 'acme/api', turns: [turn] }),
    subagent: { agentId: 'x', parentSessionId: 'parent' },
  };
  await ingest(gw, { token: a.factoryKey, appId: a.appId }, [
    sessionDoc({ id: 's1', startedAt: '2026-09-01T08:00:00Z', repo: 'acme/api', turns: [turn] }),
    sessionDoc({ id: 's2', startedAt: '2026-09-03T09:30:00Z', repo: 'acme/api', turns: [turn] }),
    sessionDoc({ id: 's3', startedAt: '2026-09-05T10:00:00Z', repo: 'acme/web', turns: [turn] }),
    // A subagent transcript is no session of the tiles: it neither counts nor moves the first start.
    subagent,
  ]);
});
afterAll(async () => {
  await gw?.close();
});

const overview = async (t: Tenant, q = '') =>
  gw.call('GET', `/v1/metrics/overview${q}`, { token: t.loginToken, appId: t.appId });

describe('GET /v1/metrics/overview allTime', () => {
  it('says how many sessions the factory has and from when to when, while the default window holds none', async () => {
    const r = await overview(a);
    expect(r.status).toBe(200);
    expect(r.body.data.tiles.sessions.current).toBe(0);
    expect(r.body.data.allTime).toEqual({
      sessions: 3,
      firstStartedAt: '2026-09-01T08:00:00.000Z',
      lastStartedAt: '2026-09-05T10:00:00.000Z',
    });
  });

  it('is the same for any window, and follows the repository filter', async () => {
    const r = await overview(a, '?from=2026-09-01&to=2026-09-30');
    expect(r.body.data.tiles.sessions.current).toBe(3);
    expect(r.body.data.allTime.sessions).toBe(3);
    const web = await overview(a, '?repo=acme/web');
    expect(web.body.data.allTime).toEqual({
      sessions: 1,
      firstStartedAt: '2026-09-05T10:00:00.000Z',
      lastStartedAt: '2026-09-05T10:00:00.000Z',
    });
    const none = await overview(a, '?repo=acme/none');
    expect(none.body.data.allTime).toEqual({ sessions: 0, firstStartedAt: null, lastStartedAt: null });
  });

  it("another factory's caller sees none of them", async () => {
    const r = await overview(b);
    expect(r.status).toBe(200);
    expect(r.body.data.allTime).toEqual({ sessions: 0, firstStartedAt: null, lastStartedAt: null });
  });
});
