// GET /v1/work-items/{id}/claims: every claim an item ever had, newest first, with its state (live, released,
// expired) and when it ended. Instants are computed here from the gateway's ManualClock, not read back from
// the code under test.
import { describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { auth, claim, keyWith, newItem } from './helpers.js';

const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('GET /v1/work-items/{id}/claims', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s));

  const history = (t: Tenant, item: string | number, query = '', token?: string) =>
    gw.call('GET', `/v1/work-items/${item}/claims${query}`, auth(t, token));

  it('an item never claimed has an empty history', async () => {
    const item = await newItem(gw, a);
    const res = await history(a, item.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], pagination: { total: 0, limit: 50, offset: 0 } });
  });

  it('lists released, expired and live claims newest first, with when they started, ran out and ended', async () => {
    const item = await newItem(gw, a);
    const t0 = gw.clock.now();
    // 1. runner-1 claims for 10 min and is released by an operator 2 min later.
    const first = await claim(gw, a, item.id, { source: 'runner-1', branch: 'feat/one', ttlSeconds: 600 });
    expect(first.status).toBe(201);
    gw.clock.set(t0 + 2 * MIN);
    expect((await gw.call('DELETE', `/v1/work-items/${item.id}/claims/current`, auth(a))).status).toBe(204);
    // 2. runner-2 claims at +3 min for 1 min; the lease runs out at +4 min and nobody ends it yet.
    gw.clock.set(t0 + 3 * MIN);
    const second = await claim(gw, a, item.id, { source: 'runner-2', branch: 'feat/two', ttlSeconds: 60 });
    expect(second.status).toBe(201);
    gw.clock.set(t0 + 5 * MIN);
    const unended = await history(a, item.id);
    expect(unended.body.data[0]).toMatchObject({
      source: 'runner-2',
      state: 'expired',
      endedAt: null,
      expiresAt: iso(t0 + 4 * MIN),
    });
    // 3. runner-3 claims at +5 min for an hour: that ends runner-2's claim (as expired, at +5 min).
    const third = await claim(gw, a, item.id, { source: 'runner-3', branch: 'feat/three', ttlSeconds: 3600 });
    expect(third.status).toBe(201);

    const res = await history(a, item.number);
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ total: 3, limit: 50, offset: 0 });
    expect(res.body.data).toEqual([
      {
        id: third.body.data.claim.id,
        source: 'runner-3',
        branch: 'feat/three',
        claimedAt: iso(t0 + 5 * MIN),
        expiresAt: iso(t0 + 65 * MIN),
        state: 'live',
        endedAt: null,
      },
      {
        id: second.body.data.claim.id,
        source: 'runner-2',
        branch: 'feat/two',
        claimedAt: iso(t0 + 3 * MIN),
        expiresAt: iso(t0 + 4 * MIN),
        state: 'expired',
        endedAt: iso(t0 + 5 * MIN),
      },
      {
        id: first.body.data.claim.id,
        source: 'runner-1',
        branch: 'feat/one',
        claimedAt: iso(t0),
        expiresAt: iso(t0 + 10 * MIN),
        state: 'released',
        endedAt: iso(t0 + 2 * MIN),
      },
    ]);
    // Item keys are never part of the history.
    for (const key of [first, second, third].map((r) => r.body.data.itemKey as string))
      expect(res.text).not.toContain(key);
    expect(res.text).not.toContain('oli_');

    // Paging: the middle one alone.
    const middle = await history(a, item.id, '?limit=1&offset=1');
    expect(middle.body).toEqual({ data: [res.body.data[1]], pagination: { total: 3, limit: 1, offset: 1 } });
    const past = await history(a, item.id, '?offset=3');
    expect(past.body).toEqual({ data: [], pagination: { total: 3, limit: 50, offset: 3 } });
  });

  it("a claim released after its lease ran out reads expired; a withdrawn item's history stays readable", async () => {
    const item = await newItem(gw, a);
    const t0 = gw.clock.now();
    expect((await claim(gw, a, item.id, { source: 'late', branch: 'feat/late', ttlSeconds: 60 })).status).toBe(201);
    gw.clock.set(t0 + 90_000);
    expect((await gw.call('DELETE', `/v1/work-items/${item.id}/claims/current`, auth(a))).status).toBe(204);
    expect((await gw.call('POST', `/v1/work-items/${item.id}/withdraw`, auth(a))).status).toBe(200);
    const res = await history(a, item.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      expect.objectContaining({
        source: 'late',
        state: 'expired',
        claimedAt: iso(t0),
        expiresAt: iso(t0 + MIN),
        endedAt: iso(t0 + 90_000),
      }),
    ]);
  });

  it('answers 400 invalid_query_params for a bad limit, offset or an unknown parameter', async () => {
    const item = await newItem(gw, a);
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'offset=10001', 'limit=x', 'state=live']) {
      const res = await history(a, item.id, `?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code, q).toBe('invalid_query_params');
    }
  });

  it('answers 404 work_item_not_found for an unknown uuid, number or a malformed id', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', '999999', 'not-an-id']) {
      const res = await history(a, id);
      expect(res.status, id).toBe(404);
      expect(res.body.error.code).toBe('work_item_not_found');
    }
  });

  it('needs work.read: none or a wrong credential 401, an item key 401, a key without work.read 403', async () => {
    const item = await newItem(gw, a);
    const claimed = await claim(gw, a, item.id);
    expect((await gw.call('GET', `/v1/work-items/${item.id}/claims`, { appId: a.appId })).status).toBe(401);
    const wrong = await gw.call('GET', `/v1/work-items/${item.id}/claims`, {
      token: 'sk_outerlayer_wrongwrongwrongwrongwrongwrongwrong',
      appId: a.appId,
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('unauthorized');
    const byItemKey = await gw.call('GET', `/v1/work-items/${item.id}/claims`, {
      token: claimed.body.data.itemKey,
      appId: a.appId,
    });
    expect(byItemKey.status).toBe(401);
    const findingsOnly = await keyWith(gw, a, ['findings.read']);
    const forbidden = await history(a, item.id, '', findingsOnly);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toMatchObject({ code: 'forbidden', required_permission: 'work.read' });
    const readOnly = await keyWith(gw, a, ['work.read']);
    expect((await history(a, item.id, '', readOnly)).body.data).toHaveLength(1);
  });

  it("another org's factory sees none of the item's claims (404), and its own item's history only", async () => {
    const item = await newItem(gw, a);
    expect((await claim(gw, a, item.id, { source: 'secret-runner-of-A' })).status).toBe(201);
    const res = await history(b, item.id);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('work_item_not_found');
    expect(res.text).not.toContain('secret-runner-of-A');
    const own = await newItem(gw, b);
    expect((await claim(gw, b, own.id, { source: 'runner-of-B' })).status).toBe(201);
    expect((await history(b, own.id)).body.data.map((c: { source: string }) => c.source)).toEqual(['runner-of-B']);
  });
});
