// Budgets on the test clock: spend from the sessions' stored costs in a non-UTC zone (day, week and month
// boundaries, a month with the autumn DST hour), each threshold notified once per period through a re-sync
// and with two replicas on one store, the forecast once and marked as a projection, a late session that
// changes nothing, the next period starting again; a budget scoped by a telemetry resource attribute
// (team=payments) counting only the sessions OTLP log records with that attribute built; CRUD, errors, and
// nothing of another factory. Costs by
// hand: claude-sonnet-4-5 input is $3 per million tokens, so a turn of 100,000 input tokens costs $0.30.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, startGateway, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { foreignCallers, siblingFactory, type Sibling } from '../../helpers/cross-tenant.js';
import { ingest, sessionDoc } from '../metrics/sessions.js';
import { keyWith } from '../work-items/helpers.js';
import { Receiver } from '../notifications/receiver.js';

const SONNET = 'claude-sonnet-4-5';
/** `n` turns of $0.30 each. */
const turns = (n: number) => Array.from({ length: n }, () => ({ model: SONNET, in: 100_000, out: 0 }));
const NOW = Date.parse('2026-11-10T15:00:00Z'); // a Tuesday; 10:00 in New York (EST since 1 November)

describe('budgets', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  let sibling: Sibling;
  const receiver = new Receiver();
  const owner = (t: Tenant = a) => ({ token: t.loginToken, appId: t.appId });
  const as = (t: Tenant = a) => ({ token: t.factoryKey, appId: t.appId });
  const create = async (body: Record<string, unknown>) => {
    const r = await gw.call('POST', '/v1/budgets', { ...as(), body });
    expect(r.status, r.text).toBe(201);
    return r.body.data;
  };
  const sync = (repo: string, startedAt: string, n: number, id?: string, auth = owner()) =>
    ingest(gw, auth, [
      sessionDoc({ ...(id ? { id } : {}), repo, startedAt, turns: turns(n), ...(id ? { title: id } : {}) }),
    ]);

  withGatewayAndTenants((s) => ({ gw, a, b } = s), { gateway: { env: { ATTEST_NOTIFY_ALLOW_PRIVATE: '1' } } });
  beforeAll(async () => {
    gw.clock.set(NOW);
    await receiver.start();
    sibling = await siblingFactory(gw, a);
  });
  afterAll(() => receiver.close());

  it("counts spend by the local calendar of the budget's time zone", async () => {
    await sync('acme/tz', '2026-11-01T03:30:00Z', 1); // 31 Oct 23:30 EDT: before the month
    await sync('acme/tz', '2026-11-01T04:30:00Z', 1); // 1 Nov 00:30 EDT
    await sync('acme/tz', '2026-11-09T04:59:00Z', 2); // Sun 8 Nov 23:59 EST: before the week
    await sync('acme/tz', '2026-11-09T05:00:00Z', 3); // Mon 9 Nov 00:00 EST
    await sync('acme/tz', '2026-11-10T05:00:00Z', 4); // Tue 10 Nov 00:00 EST
    const scope = { kind: 'repository', repository: 'acme/tz' };
    const zone = 'America/New_York';
    const day = await create({ name: 'day', scope, amountUsd: 10, period: 'day', timeZone: zone });
    const week = await create({ name: 'week', scope, amountUsd: 10, period: 'week', timeZone: zone });
    const month = await create({ name: 'month', scope, amountUsd: 10, period: 'month', timeZone: zone });
    const tokyo = await create({ name: 'tokyo', scope, amountUsd: 10, period: 'day', timeZone: 'Asia/Tokyo' });

    expect(day.status).toEqual({
      periodStart: '2026-11-10T05:00:00.000Z',
      periodEnd: '2026-11-11T05:00:00.000Z',
      spendUsd: 1.2,
      percent: 12,
      forecastUsd: 2.88, // 1.20 × 24 h / 10 h
      burn: [{ day: '2026-11-10', spendUsd: 1.2 }],
    });
    expect(week.status).toEqual({
      periodStart: '2026-11-09T05:00:00.000Z',
      periodEnd: '2026-11-16T05:00:00.000Z',
      spendUsd: 2.1,
      percent: 21,
      forecastUsd: 10.376471, // 2.10 × 168 h / 34 h
      burn: [
        { day: '2026-11-09', spendUsd: 0.9 },
        { day: '2026-11-10', spendUsd: 2.1 },
      ],
    });
    // November in New York has 721 hours (the clocks go back on the 1st).
    expect(month.status).toMatchObject({
      periodStart: '2026-11-01T04:00:00.000Z',
      periodEnd: '2026-12-01T05:00:00.000Z',
      spendUsd: 3,
      percent: 30,
      forecastUsd: 9.528634, // 3.00 × 721 h / 227 h
    });
    expect(month.status.burn).toHaveLength(10);
    expect(month.status.burn[0]).toEqual({ day: '2026-11-01', spendUsd: 0.3 });
    expect(month.status.burn[7]).toEqual({ day: '2026-11-08', spendUsd: 0.9 });
    expect(month.status.burn[9]).toEqual({ day: '2026-11-10', spendUsd: 3 });
    // 15:00 UTC is midnight in Tokyo: its day has just begun, and nothing is forecast yet.
    expect(tokyo.status).toMatchObject({ periodStart: '2026-11-10T15:00:00.000Z', spendUsd: 0, forecastUsd: null });
    for (const x of [day, week, month, tokyo]) await gw.call('DELETE', `/v1/budgets/${x.id}`, as());
  });

  it('notifies each threshold once per period, through re-syncs, a late session and two replicas', async () => {
    const ch = (
      await gw.call('POST', '/v1/notification-channels', {
        ...as(),
        body: { name: 'budget', kind: 'webhook', url: `${receiver.url}/budget` },
      })
    ).body.data;
    receiver.expectSecret('/budget', ch.secret);
    const budget = await create({
      name: 'Spend repo',
      scope: { kind: 'repository', repository: 'Acme/Spend' },
      amountUsd: 1,
      period: 'day',
      notify: [ch.id],
    });
    expect(budget).toMatchObject({ thresholds: [50, 80, 100], timeZone: 'UTC', notify: [ch.id] });
    const run = () => gw.app.attest.notifications.runDueJobs();
    const events = () => receiver.at('/budget').map((r) => r.json as { type: string; data: Record<string, unknown> });
    const sessionA = crypto.randomUUID();

    // $0.60: past 50%. The forecast, 0.60 × 24 / 15 = 0.96, stays under the amount.
    await sync('acme/spend', '2026-11-10T09:00:00Z', 2, sessionA);
    expect((await run()).notices).toBe(1);
    expect(events()).toHaveLength(1);
    const [first] = events();
    expect(first).toMatchObject({ type: 'budget.threshold', version: 1, appId: a.appId });
    expect(first!.data).toMatchObject({
      spendUsd: 0.6,
      percent: 60,
      threshold: 50,
      projection: false,
      forecastUsd: 0.96,
      period: { start: '2026-11-10T00:00:00.000Z', end: '2026-11-11T00:00:00.000Z', key: '2026-11-10' },
      budget: {
        id: budget.id,
        name: 'Spend repo',
        amountUsd: 1,
        period: 'day',
        scope: { kind: 'repository', value: 'acme/spend' },
      },
      url: `http://attest.test/f/${a.appId}/budgets`,
    });
    expect(first!.data.topSessions).toEqual([
      { traceId: expect.any(String), title: sessionA, actorName: expect.any(String), costUsd: 0.6 },
    ]);
    expect(receiver.at('/budget').every((r) => r.signatureValid)).toBe(true);

    // The same document again, and a later run: nothing new.
    await sync('acme/spend', '2026-11-10T09:00:00Z', 2, sessionA);
    gw.clock.advance(61_000);
    expect((await run()).notices).toBe(0);
    expect(events()).toHaveLength(1);

    // The session grows to $0.90: past 80%, and now forecast at 0.90 × 24 / 15.0169 > $1.
    await sync('acme/spend', '2026-11-10T09:00:00Z', 3, sessionA);
    expect((await run()).notices).toBe(2);
    const byType = new Map(
      events()
        .slice(1)
        .map((e) => [e.type, e.data]),
    );
    expect(byType.get('budget.threshold')).toMatchObject({
      threshold: 80,
      spendUsd: 0.9,
      percent: 90,
      projection: false,
    });
    const forecastUsd = Math.round((900_000 * 24 * 3600_000) / (15 * 3600_000 + 61_000)) / 1e6;
    expect(byType.get('budget.forecast')).toMatchObject({
      threshold: 100,
      spendUsd: 0.9,
      projection: true,
      forecastUsd,
      percent: Math.round(forecastUsd * 10_000) / 100,
    });

    // Another member's $0.30 session takes it to $1.20; two replicas run at once and one notice goes out.
    const member = await addMember(gw, a, 'write');
    await sync('acme/spend', '2026-11-10T10:00:00Z', 1, undefined, { token: member.loginToken, appId: a.appId });
    // The replica's own configuration must allow the test's loopback receiver too: whichever replica claims the
    // delivery sends it.
    const replica = await startGateway({ replicaOf: gw, env: { ATTEST_NOTIFY_ALLOW_PRIVATE: '1' } });
    try {
      const [x, y] = await Promise.all([run(), replica.app.attest.notifications.runDueJobs()]);
      expect(x.notices + y.notices).toBe(1);
      await Promise.all([run(), replica.app.attest.notifications.runDueJobs()]);
    } finally {
      await replica.close();
    }
    const hundred = events().filter((e) => e.type === 'budget.threshold' && e.data.threshold === 100);
    expect(hundred).toHaveLength(1);
    expect(hundred[0]!.data).toMatchObject({ spendUsd: 1.2, percent: 120 });
    expect((hundred[0]!.data.topSessions as { costUsd: number }[]).map((s) => s.costUsd)).toEqual([0.9, 0.3]);
    expect(hundred[0]!.data.topActors).toEqual([
      { actorId: a.ownerId, actorName: expect.any(String), costUsd: 0.9 },
      { actorId: member.userId, actorName: expect.any(String), costUsd: 0.3 },
    ]);
    expect(events()).toHaveLength(4);

    // A late session of yesterday changes nothing of today.
    await sync('acme/spend', '2026-11-09T10:00:00Z', 5);
    expect((await run()).notices).toBe(0);
    expect((await gw.call('GET', `/v1/budgets/${budget.id}`, as())).body.data.status.spendUsd).toBe(1.2);

    // The next day is a new period: its 50% notifies again (forecast 0.60 × 24 / 20 = 0.72: no forecast).
    gw.clock.set(Date.parse('2026-11-11T20:00:00Z'));
    await sync('acme/spend', '2026-11-11T08:00:00Z', 2);
    expect((await run()).notices).toBe(1);
    expect(events()).toHaveLength(5);
    expect(events()[4]!.data).toMatchObject({
      threshold: 50,
      spendUsd: 0.6,
      forecastUsd: 0.72,
      period: { key: '2026-11-11' },
    });
    gw.clock.set(NOW);
  });

  it('a budget scoped by a resource attribute counts the telemetry sessions that carried it', async () => {
    // A day after the last test's evaluations (the worker's watermark only moves forward).
    gw.clock.set(Date.parse('2026-11-12T15:00:00Z'));
    const ch = (
      await gw.call('POST', '/v1/notification-channels', {
        ...as(),
        body: { name: 'team', kind: 'webhook', url: `${receiver.url}/team` },
      })
    ).body.data;
    receiver.expectSecret('/team', ch.secret);
    const budget = await create({
      name: 'Payments',
      scope: { kind: 'attribute', key: 'team', value: 'payments' },
      amountUsd: 1,
      period: 'day',
      notify: [ch.id],
    });
    expect(budget.scope).toEqual({ kind: 'attribute', key: 'team', value: 'payments' });

    // OTLP/HTTP JSON as an exporter sends it: OTEL_RESOURCE_ATTRIBUTES=team=... on the resource, Claude Code's
    // api_request events carrying their cost.
    const nanos = (iso: string) => (BigInt(Date.parse(iso)) * 1_000_000n).toString();
    const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
    const logs = (team: string, sessionId: string, costs: number[]) => ({
      resourceLogs: [
        {
          resource: { attributes: [str('service.name', 'claude-code'), str('team', team)] },
          scopeLogs: [
            {
              logRecords: costs.map((cost, i) => ({
                timeUnixNano: nanos(`2026-11-12T14:00:0${i}Z`),
                body: { stringValue: 'claude_code.api_request' },
                attributes: [
                  str('session.id', sessionId),
                  str('model', SONNET),
                  { key: 'cost_usd', value: { doubleValue: cost } },
                  { key: 'input_tokens', value: { intValue: '1000' } },
                  { key: 'event.sequence', value: { intValue: String(i) } },
                ],
              })),
            },
          ],
        },
      ],
    });
    const send = async (body: unknown) => {
      const r = await gw.app.inject({
        method: 'POST',
        url: '/v1/logs',
        headers: { authorization: `Bearer ${a.factoryKey}`, 'x-outerlayer-app-id': a.appId },
        payload: body as Record<string, unknown>,
      });
      expect(r.statusCode, r.body).toBe(200);
    };
    const run = () => gw.app.attest.notifications.runDueJobs();
    // $0.25 + $0.20 for payments, $5 for another team: the payments budget is at 45%, below its first threshold.
    await send(logs('payments', 'otel-pay-1', [0.25, 0.2]));
    await send(logs('search', 'otel-search-1', [5]));
    await run();
    expect(receiver.at('/team')).toHaveLength(0);
    const read = async () => (await gw.call('GET', `/v1/budgets/${budget.id}`, as())).body.data.status;
    expect(await read()).toMatchObject({ spendUsd: 0.45, percent: 45 });

    // A second session of the team's, $0.15: $0.60, past 50%.
    await send(logs('payments', 'otel-pay-2', [0.15]));
    expect((await run()).notices).toBe(1);
    const [notice] = receiver.at('/team');
    expect(notice!.signatureValid).toBe(true);
    expect(notice!.json).toMatchObject({
      type: 'budget.threshold',
      data: {
        threshold: 50,
        spendUsd: 0.6,
        percent: 60,
        budget: { id: budget.id, scope: { kind: 'attribute', value: 'team=payments' } },
      },
    });
    const top = (notice!.json as { data: { topSessions: Array<{ traceId: string; costUsd: number }> } }).data
      .topSessions;
    expect(top.map((x) => x.costUsd)).toEqual([0.45, 0.15]);
    expect(await read()).toMatchObject({ spendUsd: 0.6, percent: 60 });

    // The same records again (an exporter's retry) change nothing.
    await send(logs('payments', 'otel-pay-2', [0.15]));
    expect((await run()).notices).toBe(0);
    expect(await read()).toMatchObject({ spendUsd: 0.6 });

    // A deleted session takes its attributes with it.
    const attributesOf = (key: string) =>
      gw.app.attest.db
        .selectFrom('session_attributes')
        .select(['key', 'value'])
        .where('app_id', '=', a.appId)
        .where('session_key', '=', key)
        .execute();
    expect(await attributesOf('otel-pay-1')).toEqual([{ key: 'team', value: 'payments' }]);
    const del = await gw.call('DELETE', `/v1/sessions/${top[0]!.traceId}`, owner());
    expect(del.status, del.text).toBe(204);
    expect(await attributesOf('otel-pay-1')).toEqual([]);
    expect(await read()).toMatchObject({ spendUsd: 0.15 });
    await gw.call('DELETE', `/v1/budgets/${budget.id}`, as());
    gw.clock.set(NOW);
  });

  it('creates, reads, changes and deletes; answers every documented error', async () => {
    const made = await create({
      name: 'Ana',
      scope: { kind: 'actor', actorId: a.ownerId },
      amountUsd: 25.5,
      period: 'week',
      thresholds: [100, 50, 50],
    });
    expect(made).toMatchObject({
      amountUsd: 25.5,
      thresholds: [50, 100],
      notify: [],
      scope: { kind: 'actor', actorId: a.ownerId },
    });
    const patched = await gw.call('PATCH', `/v1/budgets/${made.id}`, {
      ...as(),
      body: { amountUsd: 30, timeZone: 'Europe/Berlin' },
    });
    expect(patched.body.data).toMatchObject({ amountUsd: 30, timeZone: 'Europe/Berlin', name: 'Ana' });
    expect((await gw.call('GET', '/v1/budgets', as())).body.data.map((x: { id: string }) => x.id)).toContain(made.id);

    const bad = async (body: Record<string, unknown>, code: string) => {
      const r = await gw.call('POST', '/v1/budgets', {
        ...as(),
        body: { name: 'x', scope: { kind: 'factory' }, amountUsd: 1, period: 'day', ...body },
      });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe(code);
      return r;
    };
    await bad({ timeZone: 'Mars/Olympus' }, 'invalid_time_zone');
    const foreignChannel = (
      await gw.call('POST', '/v1/notification-channels', {
        ...as(b),
        body: { name: 'b', kind: 'webhook', url: `${receiver.url}/b` },
      })
    ).body.data.id;
    expect((await bad({ notify: [foreignChannel] }, 'unknown_notification_channel')).body.error.channelId).toBe(
      foreignChannel,
    );
    await bad({ amountUsd: 0 }, 'invalid_request_body');
    await bad({ period: 'year' }, 'invalid_request_body');
    await bad({ scope: { kind: 'team' } }, 'invalid_request_body');
    await bad({ scope: { kind: 'attribute', key: 'team' } }, 'invalid_request_body');
    await bad({ scope: { kind: 'attribute', key: '', value: 'payments' } }, 'invalid_request_body');
    await bad({ thresholds: [] }, 'invalid_request_body');

    const missing = '00000000-0000-4000-8000-000000000000';
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const r = await gw.call(method, `/v1/budgets/${missing}`, {
        ...as(),
        ...(method === 'PATCH' ? { body: { name: 'n' } } : {}),
      });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('budget_not_found');
    }
    expect((await gw.call('GET', '/v1/budgets', { appId: a.appId })).status).toBe(401);
    const reader = await keyWith(gw, a, ['budgets.read']);
    expect((await gw.call('GET', '/v1/budgets', { token: reader, appId: a.appId })).status).toBe(200);
    const denied = await gw.call('DELETE', `/v1/budgets/${made.id}`, { token: reader, appId: a.appId });
    expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'budgets.write' });
    const none = await keyWith(gw, a, ['sessions.read']);
    expect((await gw.call('GET', '/v1/budgets', { token: none, appId: a.appId })).body.error.required_permission).toBe(
      'budgets.read',
    );

    for (const [who, auth] of foreignCallers(b, sibling)) {
      expect((await gw.call('GET', '/v1/budgets', auth)).body.data, who).toEqual([]);
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const r = await gw.call(method, `/v1/budgets/${made.id}`, {
          ...auth,
          ...(method === 'PATCH' ? { body: { amountUsd: 1 } } : {}),
        });
        expect(r.status, `${who} ${method}`).toBe(404);
      }
    }
    expect((await gw.call('GET', `/v1/budgets/${made.id}`, as())).body.data.amountUsd).toBe(30);
    expect((await gw.call('DELETE', `/v1/budgets/${made.id}`, as())).status).toBe(204);
    expect((await gw.call('GET', `/v1/budgets/${made.id}`, as())).status).toBe(404);
  });
});
