// Issue 42 §1: the App field `retention` (PATCH /v1/apps/{appId}, every read of the App, owners only, audit-logged)
// and the sweep that applies it on the test clock: full → redacted → metrics → gone, the metrics totals the same
// (worked out by hand) until the session goes; artifacts deleted after their days; a lease per factory, and a sweep
// cut short (or crashed) resumed by the next run. Another factory is never touched.
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { ingest, sessionDoc, type SessionDoc } from '../metrics/sessions.js';
import { artifactBody } from '../artifacts/helpers.js';
import { sweepFactory } from '../../../src/areas/lifecycle/retention.js';
import * as leases from '../../../src/areas/lifecycle/store.js';

const DAY = 86_400_000;
// claude-sonnet-4-5: $3 per million input tokens, $15 per million output: a turn of 1000 in / 100 out is $0.0045.
const turn = { model: 'claude-sonnet-4-5', in: 1000, out: 100 };

/** A full-tier session with a title, a branch, and text in its assistant turn. */
function fullSession(id: string, startedAt: string, turns = 1): SessionDoc {
  const d = sessionDoc({
    id,
    startedAt,
    repo: 'acme/api',
    branch: 'feat/secret',
    title: `Secret plan ${id}`,
    turns: Array.from({ length: turns }, () => turn),
  }) as { captureTier: string; turns: { role: string; text?: string | null }[] };
  d.captureTier = 'full';
  for (const t of d.turns) if (t.role === 'assistant') t.text = `the customer's data in ${id}`;
  return d as unknown as SessionDoc;
}

describe('retention', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s));
  const on = (t: Tenant, token = t.loginToken) => ({ token, appId: t.appId });
  const session = (t: Tenant, id: string) => gw.call('GET', `/v1/sessions/${id}`, on(t));
  const totals = async (t: Tenant) =>
    (await gw.call('GET', '/v1/metrics/models?from=2026-10-01&to=2027-03-31', on(t))).body.data.totals;

  beforeAll(async () => {
    // Started a day before the test clock (2026-11-01T12:00Z): x (2 turns) in a, y (1 turn) in b.
    await ingest(gw, on(a, a.factoryKey), [fullSession('x', '2026-10-31T12:00:00Z', 2)]);
    await ingest(gw, on(b, b.factoryKey), [fullSession('y', '2026-10-31T12:00:00Z')]);
  });

  it('is set with PATCH by owners only, checked, read back by every App read, and audit-logged', async () => {
    const app = `/v1/apps/${a.appId}`;
    expect((await gw.call('GET', app, on(a))).body.data.retention).toEqual({
      fullDays: null,
      redactedDays: null,
      sessionsDays: null,
      artifactsDays: null,
    });
    const admin = await addMember(gw, a, 'admin');
    const denied = await gw.call('PATCH', app, { ...on(a, admin.loginToken), body: { retention: { fullDays: 1 } } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.required_permission).toBe('sessions.delete');
    // An admin may still change the rest.
    expect((await gw.call('PATCH', app, { ...on(a, admin.loginToken), body: { display_name: 'Main' } })).status).toBe(
      200,
    );
    const backwards = await gw.call('PATCH', app, { ...on(a), body: { retention: { fullDays: 30, redactedDays: 7 } } });
    expect(backwards.status).toBe(400);
    expect(backwards.body.error.details[0].path).toBe('retention.redactedDays');
    expect((await gw.call('PATCH', app, { ...on(a), body: { retention: { fullDays: 0 } } })).status).toBe(400);
    // Another org's owner cannot reach this factory.
    const foreign = await gw.call('PATCH', app, { ...on(b), body: { retention: { fullDays: 1 } } });
    expect(foreign.status).toBe(403);
    expect((await gw.call('GET', app, on(a))).body.data.retention.fullDays).toBeNull();

    const set = await gw.call('PATCH', app, {
      ...on(a),
      body: { retention: { fullDays: 7, redactedDays: 30, sessionsDays: 90, artifactsDays: 60 } },
    });
    expect(set.status).toBe(200);
    const want = { fullDays: 7, redactedDays: 30, sessionsDays: 90, artifactsDays: 60 };
    expect(set.body.data.retention).toEqual(want);
    expect((await gw.call('GET', app, on(a))).body.data.retention).toEqual(want);
    const mine = await gw.call('GET', '/v1/apps', on(a));
    expect(mine.body.data.find((x: { id: string }) => x.id === a.appId).retention).toEqual(want);
    // A partial change keeps the other fields.
    const partial = await gw.call('PATCH', app, { ...on(a), body: { retention: { artifactsDays: 61 } } });
    expect(partial.body.data.retention).toEqual({ ...want, artifactsDays: 61 });
    await gw.call('PATCH', app, { ...on(a), body: { retention: { artifactsDays: 60 } } });

    const log = await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log?pageSize=100`, { token: a.managementKey });
    const text = JSON.stringify(log.body.data);
    expect(text).toContain('retention_full_days');
    expect(text).toContain('retention_artifacts_days');
  });

  it('fades full → redacted → metrics → gone on the clock; the totals stay exact until the session goes', async () => {
    const x = (await session(a, 'x')).body.data;
    expect(x.captureTier).toBe('full');
    const artifact = await gw.call('POST', '/v1/artifacts', {
      ...on(a, a.factoryKey),
      body: artifactBody(Buffer.from('a screenshot kept 60 days')),
    });
    expect(artifact.status).toBe(201);
    // 2 turns: 2000 in, 200 out, $0.009.
    const exact = { turns: 2, inputTokens: 2000, outputTokens: 200 };
    expect(await totals(a)).toMatchObject(exact);
    expect((await totals(a)).costUsd).toBeCloseTo(0.009, 9);

    const sweep = () => gw.app.attest.housekeeping.run();
    // Day 3 of its life: nothing is due.
    gw.clock.advance(2 * DAY);
    expect((await sweep()).retention).toBe(0);
    expect((await session(a, 'x')).body.data.captureTier).toBe('full');

    // Day 8: past fullDays, cut to redacted: the title and text go, the branch stays, the numbers stay.
    gw.clock.advance(6 * DAY);
    expect((await sweep()).retention).toBe(1);
    const redacted = (await session(a, 'x')).body.data;
    expect(redacted.captureTier).toBe('redacted');
    expect(JSON.stringify(redacted)).not.toContain("customer's data");
    expect(JSON.stringify(redacted)).not.toContain('Secret plan');
    expect(redacted.branch).toBe('feat/secret');
    expect(await totals(a)).toMatchObject(exact);

    // Day 31: past redactedDays, cut to metrics: the branch goes too; tokens, turns and cost stay.
    gw.clock.advance(23 * DAY);
    expect((await sweep()).retention).toBe(1);
    const metrics = (await session(a, 'x')).body.data;
    expect(metrics.captureTier).toBe('metrics');
    expect(JSON.stringify(metrics)).not.toContain('feat/secret');
    expect(metrics.turnCount).toBe(x.turnCount);
    expect(await totals(a)).toMatchObject(exact);
    expect((await totals(a)).costUsd).toBeCloseTo(0.009, 9);

    // Day 61 of the artifact: deleted, and a read says so.
    gw.clock.advance(30 * DAY);
    expect((await sweep()).retention).toBe(1);
    const gone = await gw.call('GET', `/v1/artifacts/${artifact.body.data.id}`, on(a));
    expect(gone.status).toBe(410);
    expect(gone.body.error.reason).toBe('retention');

    // Day 91: past sessionsDays, deleted; the totals lose exactly it.
    gw.clock.advance(30 * DAY);
    expect((await sweep()).retention).toBe(1);
    // A link by trace id (what PR comments carry) says "deleted".
    const deleted = await session(a, x.traceId);
    expect(deleted.status).toBe(410);
    expect(deleted.body.error).toMatchObject({ code: 'session_deleted', reason: 'retention' });
    expect(await totals(a)).toMatchObject({ turns: 0, inputTokens: 0, outputTokens: 0 });

    // Factory b set no retention: its session of the same age is whole.
    const y = (await session(b, 'y')).body.data;
    expect(y.captureTier).toBe('full');
    expect(y.title).toBe('Secret plan y');
    expect(await totals(b)).toMatchObject({ turns: 1, inputTokens: 1000, outputTokens: 100 });

    const log = await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log?pageSize=100`, { token: a.managementKey });
    expect(JSON.stringify(log.body.data)).toContain('retention.applied');
    expect(
      (await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log/verify`, { token: a.managementKey })).body.data.intact,
    ).toBe(true);
  });

  it("holds a lease per factory, and the next run resumes a sweep cut short or a crashed replica's", async () => {
    const now = gw.clock.now();
    const started = (daysAgo: number) => new Date(now - daysAgo * DAY).toISOString();
    await ingest(gw, on(a, a.factoryKey), [
      fullSession('r1', started(10)),
      fullSession('r2', started(11)),
      fullSession('r3', started(12)),
    ]);
    const f = {
      orgId: a.orgId,
      appId: a.appId,
      retention: { fullDays: 7, redactedDays: 30, sessionsDays: 90, artifactsDays: 60 },
    };
    const g = gw.app.attest;
    // One batch of one, then the run stops (as a crash would): one session cut, two still full.
    const first = await sweepFactory(g, f, now, gw.app.log, { batch: 1, maxBatches: 1 });
    expect(first?.redacted).toBe(1);
    const tiers = async () =>
      (await Promise.all(['r1', 'r2', 'r3'].map((id) => session(a, id)))).map((r) => r.body.data.captureTier).sort();
    expect(await tiers()).toEqual(['full', 'full', 'redacted']);

    // Another replica holds the factory's lease (and then dies): no sweep of ours while it is live.
    expect(await leases.claim(g.db, a.appId, 'replica-2', now, now + 5 * 60_000)).toBe(true);
    expect(await sweepFactory(g, f, now, gw.app.log, { batch: 1 })).toBeNull();
    expect(await tiers()).toEqual(['full', 'full', 'redacted']);
    // Its lease runs out: the next run takes over and finishes.
    gw.clock.advance(5 * 60_000 + 1);
    const resumed = await sweepFactory(g, f, gw.clock.now(), gw.app.log, { batch: 1 });
    expect(resumed?.redacted).toBe(2);
    expect(await tiers()).toEqual(['redacted', 'redacted', 'redacted']);
  });
});
