// The session list answers from each row's stored list entry (migration 0053): the objects are the schema's,
// whatever the row's history (inserted, re-synced, stored before entries existed), and housekeeping writes the
// entries rows lack.
import { sql } from 'kysely';
import { Value } from 'typebox/value';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { SessionList } from '../../../src/areas/sessions/schema.js';
import { ingest, sessionDoc, type TurnSpec } from '../metrics/sessions.js';

const turn: TurnSpec = { model: 'claude-sonnet-4-5', in: 1000, out: 500, cacheRead: 300, cacheCreate: 40 };
const QUERIES = [
  'repoScope=all',
  'repo=acme/api&sort=cost&dir=asc',
  'repoScope=all&q=caf%C3%A9',
  'repoScope=all&offset=7',
];

describe('GET /v1/sessions from stored list entries', () => {
  let gw: TestGateway;
  let t: Tenant;
  let other: Tenant;
  const as = (tenant: Tenant) => ({ token: tenant.factoryKey, appId: tenant.appId });
  const grown = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

  withGatewayAndTenants((s) => ({ gw, a: t, b: other } = s));
  beforeAll(async () => {
    const docs = Array.from({ length: 24 }, (_, i) =>
      sessionDoc({
        ...(i === 0 ? { id: grown } : {}),
        startedAt: new Date(Date.UTC(2026, 10, 1) + i * 3_600_000).toISOString(),
        repo: i % 3 === 0 ? 'acme/web' : 'acme/api',
        branch: i % 2 ? 'main' : 'feat/x',
        // JSON escapes, non-ASCII and an emoji must come back as they went in.
        title: i % 4 === 0 ? `café "quoted" \\ line\nbreak ${i} 🚀` : `plain ${i}`,
        turns: Array.from({ length: 1 + (i % 3) }, () => turn),
        ...(i % 5 === 0 ? { prNumber: 40 + i } : {}),
        ...(i % 7 === 0 ? { commitSha: `abcdef${String(i).padStart(2, '0')}1234567` } : {}),
      }),
    );
    await ingest(gw, as(t), docs);
    await ingest(gw, as(other), [sessionDoc({ startedAt: '2026-11-02T00:00:00Z', repo: 'acme/api', turns: [turn] })]);
  });

  const db = () => gw.app.attest.db;
  async function lists(): Promise<unknown[]> {
    const out = [];
    for (const q of QUERIES) {
      const r = await gw.call('GET', `/v1/sessions?${q}`, as(t));
      expect(r.status, q).toBe(200);
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
      out.push(r.body.data);
    }
    return out;
  }
  async function missingEntries(): Promise<number> {
    const r = await sql<{ n: number | string }>`select count(*) as n from sessions where list_entry is null`.execute(
      db(),
    );
    return Number(r.rows[0]!.n);
  }

  it('answers objects with exactly the fields and types of the Session schema', async () => {
    for (const data of await lists()) {
      expect(Value.Check(SessionList, data)).toBe(true);
      const sessions = (data as { sessions: Record<string, unknown>[] }).sessions;
      expect(sessions.length).toBeGreaterThan(0);
      for (const s of sessions)
        expect(Object.keys(s).sort()).toEqual(Object.keys(SessionList.properties.sessions.items.properties).sort());
    }
    const first = (await gw.call('GET', '/v1/sessions?repoScope=all&q=caf%C3%A9&sort=startedAt&dir=asc', as(t))).body
      .data.sessions[0];
    expect(first.title).toBe('café "quoted" \\ line\nbreak 0 🚀');
    // 1000 in + 500 out + 300 cache read + 40 cache write, one turn.
    expect(first.tokens).toEqual({
      input: 1000,
      output: 500,
      cacheRead: 300,
      cacheWrite: 40,
      cacheWrite5m: 40,
      cacheWrite1h: 0,
    });
    expect(first.prOutcomes.map((p: { prNumber: number }) => p.prNumber)).toEqual([40]);
    expect(first.contextSourceVerification).toBe('unverified');
  });

  it('answers the same for rows without an entry, and housekeeping writes the entries they lack', async () => {
    const before = await lists();
    expect(await missingEntries()).toBe(0);
    // Rows as a version before migration 0053 left them: every other row of the factory, then all of them.
    const ids = (
      await sql<{ id: string }>`select id from sessions where app_id = ${t.appId} order by id`.execute(db())
    ).rows.map((r) => r.id);
    const half = ids.filter((_, i) => i % 2 === 0);
    await sql`update sessions set list_entry = null where id in (${sql.join(half)})`.execute(db());
    expect(await lists()).toEqual(before);
    await sql`update sessions set list_entry = null where app_id = ${t.appId}`.execute(db());
    expect(await missingEntries()).toBe(24);
    expect(await lists()).toEqual(before);

    const report = await gw.app.attest.housekeeping.run();
    expect(report.sessionListEntries).toBe(24);
    expect(await missingEntries()).toBe(0);
    expect(await lists()).toEqual(before);
    expect((await gw.app.attest.housekeeping.run()).sessionListEntries).toBe(0);
  });

  it('keeps a re-synced session current, and another factory sees none of it', async () => {
    await ingest(gw, as(t), [
      sessionDoc({
        id: grown,
        startedAt: new Date(Date.UTC(2026, 10, 1)).toISOString(),
        repo: 'acme/web',
        branch: 'feat/x',
        title: 'grown',
        turns: [turn, turn, turn, turn],
      }),
    ]);
    const r = await gw.call('GET', '/v1/sessions?repo=acme/web&sort=startedAt&dir=asc&limit=1', as(t));
    const s = r.body.data.sessions[0];
    expect(s.sessionId).toBe(grown);
    expect(s.title).toBe('grown');
    expect(s.turnCount).toBe(5);
    expect(s.tokens.input).toBe(4000);
    const detail = await gw.call('GET', `/v1/sessions/${s.traceId}`, as(t));
    expect(detail.body.data.updatedAt).toBe(s.updatedAt);

    const theirs = await gw.call('GET', '/v1/sessions?repoScope=all&limit=100', as(other));
    expect(theirs.body.data.sessions).toHaveLength(1);
    expect(theirs.body.data.sessions[0].sessionId).not.toBe(grown);
  });
});
