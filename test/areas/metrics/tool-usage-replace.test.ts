// Re-sending a grown session (what `attest sync` does as a transcript grows) replaces its per-tool counters.
// The delete that clears the old ones must find them by the primary key (session_id, tool): SQLite, which keeps
// no statistics here, took the factory's condition to the (app_id, started_at) index and read every tool row of
// the factory instead, about a second at 100k sessions, on the event loop (issue 17). The plan is asked of the
// store for the very statement it runs; the counters are read back from the table.
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { deleteToolUsageQuery } from '../../../src/areas/metrics/tools-store.js';
import { ingest, sessionDoc, type SessionSpec } from './sessions.js';
import { planOf } from '../../helpers/plans.js';

let gw: TestGateway;
let a: Tenant;
let b: Tenant;
withGatewayAndTenants((s) => ({ gw, a, b } = s), { a: { plan: 'paid' }, b: { plan: 'paid' } });
const SONNET = 'claude-sonnet-4-5';

/** Session i of a factory: one turn calling Read and Bash, and, grown, a second turn calling Edit twice and Grep. */
function spec(prefix: string, i: number, grown: boolean): SessionSpec {
  const turns: SessionSpec['turns'] = [
    {
      model: SONNET,
      in: 100,
      out: 10,
      tools: [
        { name: 'Read', status: 'ok' },
        { name: 'Bash', status: 'error' },
      ],
    },
  ];
  if (grown)
    turns.push({
      model: SONNET,
      in: 50,
      out: 5,
      tools: [
        { name: 'Edit', status: 'ok' },
        { name: 'Edit', status: 'rejected' },
        { name: 'Grep', status: 'ok' },
      ],
    });
  return {
    id: `${prefix}-${i}`,
    startedAt: new Date(Date.parse('2026-10-01T00:00:00Z') + i * 60_000).toISOString(),
    repo: 'acme/api',
    branch: 'main',
    turns,
  };
}

/** A factory's tool counters by session id (the client's) and tool: "calls/errors/rejected". */
async function counters(t: Tenant): Promise<Map<string, Record<string, string>>> {
  const rows = await gw.app.attest.db
    .selectFrom('session_tool_usage as u')
    .innerJoin('sessions as s', 's.id', 'u.session_id')
    .select(['s.session_key as key', 'u.tool', 'u.calls', 'u.errors', 'u.rejected'])
    .where('u.app_id', '=', t.appId)
    .execute();
  const out = new Map<string, Record<string, string>>();
  for (const r of rows)
    out.set(r.key, { ...out.get(r.key), [r.tool]: `${Number(r.calls)}/${Number(r.errors)}/${Number(r.rejected)}` });
  return out;
}

beforeAll(async () => {
  const auth = (t: Tenant) => ({ token: t.factoryKey, appId: t.appId });
  for (let i = 0; i < 200; i += 50) {
    expect(
      (
        await ingest(
          gw,
          auth(a),
          Array.from({ length: 50 }, (_, k) => sessionDoc(spec('a', i + k, false))),
        )
      ).status,
    ).toBe(200);
  }
  // The other factory holds sessions of the same ids (the client's ids are its own business).
  expect(
    (
      await ingest(
        gw,
        auth(b),
        Array.from({ length: 10 }, (_, k) => sessionDoc(spec('a', k, false))),
      )
    ).status,
  ).toBe(200);
}, 120_000);

describe('re-sending grown sessions', () => {
  it("deletes their old tool counters through the primary key, not by reading the factory's rows", async () => {
    const db = gw.app.attest.db;
    const ids = (await db.selectFrom('sessions').select('id').where('app_id', '=', a.appId).limit(25).execute()).map(
      (r) => r.id,
    );
    if (usingPostgres) {
      // PostgreSQL chooses by statistics: on a factory of 20,000 tool rows, once analyzed, they lead it to the key.
      await sql`insert into session_tool_usage
          (session_id, org_id, app_id, tool, started_at, repo, is_subagent, calls, errors, rejected)
        select 'seeded-' || g, ${a.orgId}, ${a.appId}, t, g, 'github.com/acme/api', 0, 1, 0, 0
        from generate_series(1, 5000) as g, unnest(array['Read', 'Edit', 'Bash', 'Grep']) as t`.execute(db);
      await sql`analyze session_tool_usage`.execute(db);
    }
    const plan = (await planOf(gw, deleteToolUsageQuery(db, a.appId, ids))).map((step) => step.text).join('\n');
    if (usingPostgres) {
      expect(plan).toContain('session_tool_usage_pk');
      expect(plan).not.toContain('session_tool_usage_app_time');
      await sql`delete from session_tool_usage where session_id like 'seeded-%'`.execute(db);
    } else {
      expect(plan).toBe('SEARCH session_tool_usage USING INDEX sqlite_autoindex_session_tool_usage_1 (session_id=?)');
    }
  });

  it("replaces exactly their counters; the factory's other sessions and another factory's stay", async () => {
    const before = await counters(a);
    const otherBefore = await counters(b);
    expect(before.size).toBe(200);
    expect(otherBefore.size).toBe(10);
    expect(before.get('a-3')).toEqual({ Read: '1/0/0', Bash: '1/1/0' });

    const grownIds = [3, 4, 5, 6, 7];
    const r = await ingest(
      gw,
      { token: a.factoryKey, appId: a.appId },
      grownIds.map((i) => sessionDoc(spec('a', i, true))),
    );
    expect(r.status).toBe(200);

    const after = await counters(a);
    expect(after.size).toBe(200);
    for (const i of grownIds)
      expect(after.get(`a-${i}`)).toEqual({ Read: '1/0/0', Bash: '1/1/0', Edit: '2/0/1', Grep: '1/0/0' });
    for (const [key, value] of before)
      if (!grownIds.some((i) => key === `a-${i}`)) expect(after.get(key)).toEqual(value);
    // Factory b sent sessions a-3 … a-7 too: its counters did not move.
    expect(await counters(b)).toEqual(otherBefore);
  });
});
