// A re-send of grown sessions (what `attest sync` does as transcripts grow) deletes their usage, tool and PR rows
// and updates their summaries, by session id. Those statements must find the sessions' rows by a key, one
// session at a time, however many rows the factory holds and whatever the store's statistics say: PostgreSQL
// chose by statistics and, for an app that had grown since they were gathered, read every one of the app's rows
// on each re-send (issue 17). The plans are asked of the store for the very statements the sync runs, on an app
// of 3,000 sessions the planner has never been told about (autovacuum off, as when an app grows faster than
// autovacuum analyzes it).
import { sql, type CompiledQuery } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import {
  deleteModelUsageQuery,
  insertBulk,
  type ModelUsageRow,
  type SessionRow,
} from '../../../src/areas/sessions/store.js';
import { deleteToolUsageQuery } from '../../../src/areas/metrics/tools-store.js';
import { deleteSessionPrRefsQuery } from '../../../src/areas/prs/spend-store.js';
import { insertRows, updateRowsByIdQueries } from '../../../src/db/bulk-insert.js';
import { canonical, variant } from '../sessions/fixtures.js';
import { planOf, readsOf } from '../../helpers/plans.js';

let gw: TestGateway;
let a: Tenant;
let b: Tenant;
withGatewayAndTenants((s) => ({ gw, a, b } = s), { a: { plan: 'paid' }, b: { plan: 'paid' } });
const SEEDED = 3_000;
const TABLES = ['sessions', 'session_model_usage', 'session_tool_usage', 'session_pr_refs'] as const;
/** 25 of the seeded sessions, as a sync would name them. */
const resent = Array.from({ length: 25 }, (_, i) => `seeded-${String(i * 97).padStart(5, '0')}`);

async function count(table: (typeof TABLES)[number], appId: string): Promise<number> {
  const row = await gw.app.attest.db
    .selectFrom(table)
    .select((e) => e.fn.countAll<number | string>().as('n'))
    .where('app_id', '=', appId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

beforeAll(async () => {
  const db = gw.app.attest.db;
  if (usingPostgres)
    for (const table of TABLES) await sql`alter table ${sql.table(table)} set (autovacuum_enabled = false)`.execute(db);
  const r = await gw.call('POST', '/v1/agents/sync', {
    token: a.loginToken,
    appId: a.appId,
    body: {
      schemaVersion: 1,
      sessions: [
        variant(canonical('full'), (d) => {
          d.id = 'seed-template';
        }),
      ],
    },
  });
  expect(r.status, r.text.slice(0, 300)).toBe(200);
  const template = await db.selectFrom('sessions').selectAll().where('app_id', '=', a.appId).executeTakeFirstOrThrow();
  // Copies of the real row under new ids, each with a usage row, two tool rows and a PR reference.
  const rows: SessionRow[] = Array.from({ length: SEEDED }, (_, i) => ({
    ...template,
    id: `seeded-${String(i).padStart(5, '0')}`,
    session_key: `seeded-key-${i}`,
    session_id: `seeded-key-${i}`,
    started_at: template.started_at + i,
  }));
  const base = { org_id: a.orgId, app_id: a.appId, repo: template.repo, is_subagent: 0 };
  const usage: ModelUsageRow[] = rows.map((s) => ({
    ...base,
    session_id: s.id,
    model: 'claude-sonnet-4-5',
    started_at: s.started_at,
    actor_id: s.actor_id,
    agent_type: s.agent_type,
    turn_count: 1,
    unpriced_turn_count: 0,
    input_tokens: 10,
    output_tokens: 1,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cache_write_1h_tokens: 0,
    cost_micros: 5,
  }));
  await db.transaction().execute(async (trx) => {
    await insertBulk(trx, rows, usage);
    for (const tool of ['Read', 'Bash']) {
      await insertRows(
        trx,
        'session_tool_usage',
        rows.map((s) => ({
          ...base,
          session_id: s.id,
          tool,
          started_at: s.started_at,
          calls: 1,
          errors: 0,
          rejected: 0,
        })),
      );
    }
    await insertRows(
      trx,
      'session_pr_refs',
      rows.map((s, i) => ({ app_id: a.appId, session_id: s.id, repository: 'github.com/acme/api', number: i % 50 })),
    );
  });
}, 120_000);

/**
 * Every read the store's plan of `query` makes of `table` is by key. PostgreSQL: each session's rows are found by
 * one probe (`= k.id`, an index or bitmap scan) of an index leading with the session, then read by ctid.
 */
async function expectKeyedReads(query: CompiledQuery, table: string, sqliteRead: RegExp) {
  if (!usingPostgres) {
    const reads = await readsOf(gw, query, table);
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) expect(read).toMatch(sqliteRead);
    return;
  }
  const steps = await planOf(gw, query);
  expect(steps.filter((s) => s.relation === table).map((s) => s.text)).toContain('Tid Scan');
  for (const step of steps) {
    // The statement's own node (ModifyTable) names its table too; it reads nothing.
    if (step.relation === table)
      expect(step.text).toMatch(
        /^(ModifyTable|Tid Scan|Bitmap Heap Scan|Index Scan \w+_(pk|pkey) \(.*(session_id|id) = k\.id\)+)$/,
      );
    if (step.text.startsWith('Bitmap Index Scan'))
      expect(step.text).toMatch(/^Bitmap Index Scan \w+_(pk|pkey) \(.*(session_id|id) = k\.id\)+$/);
    expect(step.text).not.toMatch(/^Seq Scan/);
  }
}

describe('the statements of a re-send, on an app the planner has no statistics of', () => {
  it("delete the sessions' model usage by key, one session at a time", async () => {
    await expectKeyedReads(
      deleteModelUsageQuery(gw.app.attest.db, a.appId, resent),
      'session_model_usage',
      new RegExp(
        '^SEARCH session_model_usage USING (COVERING )?INDEX session_model_usage_app_session ' +
          String.raw`\(app_id=\? AND session_id=\?\)$`,
      ),
    );
  });

  it('delete their tool counters by key', async () => {
    await expectKeyedReads(
      deleteToolUsageQuery(gw.app.attest.db, a.appId, resent),
      'session_tool_usage',
      /^SEARCH session_tool_usage USING INDEX sqlite_autoindex_session_tool_usage_1 \(session_id=\?\)$/,
    );
  });

  it('delete the PRs they name by key', async () => {
    await expectKeyedReads(
      deleteSessionPrRefsQuery(gw.app.attest.db, a.appId, resent),
      'session_pr_refs',
      new RegExp(
        '^SEARCH session_pr_refs USING (COVERING )?INDEX sqlite_autoindex_session_pr_refs_1 ' +
          String.raw`\(app_id=\? AND session_id=\?\)$`,
      ),
    );
  });

  it('update their summaries by key', async () => {
    const queries = updateRowsByIdQueries(
      gw.app.attest.db,
      'sessions',
      a.appId,
      resent.map((id, i) => ({ id, turn_count: 100 + i, title: `grown ${i}` })),
    );
    expect(queries.length).toBe(usingPostgres ? 1 : resent.length);
    await expectKeyedReads(
      queries[0]!,
      'sessions',
      /^SEARCH sessions USING INDEX sessions_app_id_id \(app_id=\? AND id=\?\)$/,
    );
  });
});

describe('run against the store', () => {
  it("with another factory's id, they touch none of this factory's rows", async () => {
    const db = gw.app.attest.db;
    const before = await Promise.all(TABLES.map((t) => count(t, a.appId)));
    expect(before[0]).toBe(SEEDED + 1);
    for (const query of [
      deleteModelUsageQuery(db, b.appId, resent),
      deleteToolUsageQuery(db, b.appId, resent),
      deleteSessionPrRefsQuery(db, b.appId, resent),
      ...updateRowsByIdQueries(
        db,
        'sessions',
        b.appId,
        resent.map((id) => ({ id, title: 'not mine' })),
      ),
    ])
      await db.executeQuery(query);
    expect(await Promise.all(TABLES.map((t) => count(t, a.appId)))).toEqual(before);
    const titles = await db.selectFrom('sessions').select('title').where('id', 'in', resent).execute();
    expect(titles.filter((t) => t.title === 'not mine')).toEqual([]);
  });

  it("with its own id, they delete exactly the named sessions' rows and update exactly their summaries", async () => {
    const db = gw.app.attest.db;
    const before = await Promise.all(TABLES.map((t) => count(t, a.appId)));
    for (const query of [
      deleteModelUsageQuery(db, a.appId, resent),
      deleteToolUsageQuery(db, a.appId, resent),
      deleteSessionPrRefsQuery(db, a.appId, resent),
      ...updateRowsByIdQueries(
        db,
        'sessions',
        a.appId,
        resent.map((id, i) => ({ id, turn_count: 100 + i, title: `grown ${i}` })),
      ),
    ])
      await db.executeQuery(query);
    // 25 usage rows, 50 tool rows (two tools each) and 25 PR references fewer; the sessions stay.
    expect(await Promise.all(TABLES.map((t) => count(t, a.appId)))).toEqual([
      before[0],
      before[1]! - 25,
      before[2]! - 50,
      before[3]! - 25,
    ]);
    const updated = await db
      .selectFrom('sessions')
      .select(['id', 'turn_count', 'title'])
      .where('app_id', '=', a.appId)
      .where('title', 'like', 'grown %')
      .orderBy('id')
      .execute();
    expect(updated.map((r) => [r.id, Number(r.turn_count), r.title])).toEqual(
      resent.map((id, i) => [id, 100 + i, `grown ${i}`]),
    );
    for (const id of resent) {
      expect(await db.selectFrom('session_model_usage').select('model').where('session_id', '=', id).execute()).toEqual(
        [],
      );
      expect(await db.selectFrom('session_tool_usage').select('tool').where('session_id', '=', id).execute()).toEqual(
        [],
      );
    }
    expect(
      await db.selectFrom('session_model_usage').select('model').where('session_id', '=', 'seeded-00001').execute(),
    ).toEqual([{ model: 'claude-sonnet-4-5' }]);
  });
});
