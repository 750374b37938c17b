// Sessions found by the client's own session id (shared by a top-level session and its subagents): the PRs of
// just-synced sessions (when the factory's PR comments are on) and GET /v1/sessions/{id} given that id. Both
// read every session of the factory (57-138 ms at 100k sessions on SQLite, on the event loop; issue 17); now
// PostgreSQL goes by (app_id, session_id, is_subagent) (migration 0024) and SQLite by the range of the unique
// (app_id, session_key) index that the id's keys fall in. The plans are asked of the store for its very
// statements on a factory of 3,000 sessions (PostgreSQL after ANALYZE); the answers are read through the API.
import { sql, type CompiledQuery } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { findBySessionIdQuery, insertBulk, type SessionRow } from '../../../src/areas/sessions/store.js';
import { sessionsBySessionIdsQuery } from '../../../src/areas/prs/attribution-store.js';
import { canonical, variant } from './fixtures.js';
import { planOf, readsOf } from '../../helpers/plans.js';

let gw: TestGateway;
let a: Tenant;
let b: Tenant;
withGatewayAndTenants((s) => ({ gw, a, b } = s), { a: { plan: 'paid' }, b: { plan: 'paid' } });

beforeAll(async () => {
  const db = gw.app.attest.db;
  const first = await gw.call('POST', '/v1/agents/sync', {
    token: a.loginToken,
    appId: a.appId,
    body: {
      schemaVersion: 1,
      sessions: [
        variant(canonical('full'), (d) => {
          d.id = 'template';
        }),
      ],
    },
  });
  expect(first.status).toBe(200);
  const template = await db.selectFrom('sessions').selectAll().where('app_id', '=', a.appId).executeTakeFirstOrThrow();
  const rows: SessionRow[] = Array.from({ length: 3_000 }, (_, i) => ({
    ...template,
    id: `seeded-${String(i).padStart(5, '0')}`,
    session_key: `seeded-${i}`,
    session_id: `seeded-${i}`,
    started_at: template.started_at + i,
  }));
  await db.transaction().execute((trx) => insertBulk(trx, rows, []));
  if (usingPostgres) await sql`analyze sessions`.execute(db);
}, 120_000);

/** SQLite reads only the key range of sessions_app_key; PostgreSQL goes by sessions_app_session_id and never scans. */
async function expectBySessionId(query: CompiledQuery) {
  if (usingPostgres) {
    const plan = (await planOf(gw, query)).map((step) => step.text).join('\n');
    expect(plan).toContain('sessions_app_session_id');
    expect(plan).not.toContain('Seq Scan');
    return;
  }
  const reads = await readsOf(gw, query, 'sessions');
  expect(reads.length).toBeGreaterThan(0);
  for (const read of reads)
    expect(read).toBe('SEARCH sessions USING INDEX sessions_app_key (app_id=? AND session_key>? AND session_key<?)');
}

describe('sessions by their session id', () => {
  it("the PRs of synced sessions read them by session id, not the factory's rows", async () => {
    await expectBySessionId(
      sessionsBySessionIdsQuery(
        gw.app.attest.db,
        a.appId,
        Array.from({ length: 25 }, (_, i) => `seeded-${i * 101}`),
      ).compile(),
    );
  });

  it("GET /v1/sessions/{id} by a session id reads it by session id, not the factory's rows", async () => {
    await expectBySessionId(findBySessionIdQuery(gw.app.attest.db, a.appId, 'seeded-1234').compile());
  });

  it("answers the top-level session for its session id, and nothing of another factory's", async () => {
    const parent = variant(canonical('full'), (d) => {
      d.id = 'family-1';
    });
    const child = variant(canonical('subagent-redacted'), (d) => {
      d.id = 'family-1';
    });
    const r = await gw.call('POST', '/v1/agents/sync', {
      token: a.loginToken,
      appId: a.appId,
      body: { schemaVersion: 1, sessions: [child, parent] },
    });
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    expect(r.body.data.rejected).toEqual([]);

    const got = await gw.call('GET', '/v1/sessions/family-1', { token: a.loginToken, appId: a.appId });
    expect(got.status).toBe(200);
    expect(got.body.data.sessionId).toBe('family-1');
    expect(got.body.data.isSubagent).toBe(false);

    // Ids whose keys sort next to family-1's ('!' and ' ' before '#', '0' after '$'): never taken for it.
    const neighbours = ['family-1!', 'family-1 x', 'family-10'].map((id) =>
      variant(canonical('minimal'), (d) => {
        d.id = id;
      }),
    );
    const n = await gw.call('POST', '/v1/agents/sync', {
      token: a.loginToken,
      appId: a.appId,
      body: { schemaVersion: 1, sessions: neighbours },
    });
    expect(n.status, n.text.slice(0, 300)).toBe(200);
    const again = await gw.call('GET', '/v1/sessions/family-1', { token: a.loginToken, appId: a.appId });
    expect(again.body.data.sessionId).toBe('family-1');
    const linked = await sessionsBySessionIdsQuery(gw.app.attest.db, a.appId, ['family-1', 'family-10']).execute();
    expect(linked.map((r) => r.session_id).sort()).toEqual(['family-1', 'family-1', 'family-10']);

    const other = await gw.call('GET', '/v1/sessions/family-1', { token: b.loginToken, appId: b.appId });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('session_not_found');
  });
});
