// One pull request's sessions (the PR read, its verdict, the PR job) are read from that PR's own links: the
// sessions naming it from session_pr_refs' (app_id, repository, number, session_id) index, the sessions on its
// head branch from sessions (app_id, repo, branch, is_subagent, started_at) (migration 0031), never by reading
// every session that names any PR or every session of the repository (issue 39: 2.3-2.7 s at 100k sessions).
// The plans are asked of the store for its very statements on a factory of 2,000 sessions (PostgreSQL after
// ANALYZE); the answer is read through the API.
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { insertBulk, type SessionRow } from '../../../src/areas/sessions/store.js';
import { sessionsNamingPrQuery, sessionsOnPrBranchesQuery } from '../../../src/areas/prs/attribution-store.js';
import { canonical, variant } from '../sessions/fixtures.js';
import { planOf } from '../../helpers/plans.js';

let gw: TestGateway;
let a: Tenant;
let b: Tenant;
withGatewayAndTenants((s) => ({ gw, a, b } = s), { a: { plan: 'paid' }, b: { plan: 'paid' } });

const PR = { repository: 'acme/api', number: 7 };

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
  // 2,000 top-level sessions of acme/api on 20 branches; every 100th names PR 7 (20), every 20th from the
  // 3rd is on its head branch b-3 (100): 120 linked, by hand.
  const rows: SessionRow[] = Array.from({ length: 2_000 }, (_, i) => ({
    ...template,
    id: `seeded-${String(i).padStart(5, '0')}`,
    session_key: `seeded-${i}`,
    session_id: `seeded-${i}`,
    repo: 'acme/api',
    branch: `b-${i % 20}`,
    pr_refs:
      i % 100 === 0 ? JSON.stringify([{ prNumber: 7 }]) : i % 10 === 1 ? JSON.stringify([{ prNumber: 8 }]) : '[]',
    started_at: template.started_at + i,
  }));
  await db.transaction().execute((trx) => insertBulk(trx, rows, []));
  const refs = rows.flatMap((r) =>
    r.pr_refs === '[]'
      ? []
      : [{ app_id: a.appId, session_id: r.id, repository: 'acme/api', number: r.pr_refs.includes(':7') ? 7 : 8 }],
  );
  for (let i = 0; i < refs.length; i += 200)
    await db
      .insertInto('session_pr_refs')
      .values(refs.slice(i, i + 200))
      .execute();
  const now = Date.now();
  await db
    .insertInto('pull_requests')
    .values(
      [7, 8].map((number) => ({
        id: `pr-${number}`,
        org_id: a.orgId,
        app_id: a.appId,
        repository: 'acme/api',
        number,
        url: `https://github.com/acme/api/pull/${number}`,
        title: `PR ${number}`,
        author: 'dev',
        head_branch: `b-${number - 4}`,
        head_sha: 'c'.repeat(40),
        base_branch: 'main',
        base_sha: null,
        state: 'open' as const,
        merged: 0,
        opened_at: now - 86_400_000,
        closed_at: null,
        merged_at: null,
        source_updated_at: now,
        updated_at: now,
        state_source: 'app' as const,
      })),
    )
    .execute();
  if (usingPostgres) {
    await sql`analyze sessions`.execute(db);
    await sql`analyze session_pr_refs`.execute(db);
    await sql`analyze pull_requests`.execute(db);
  }
}, 120_000);

describe("one pull request's sessions", () => {
  it('are read by the PR: session_pr_refs by (repository, number), sessions by (repo, branch)', async () => {
    const db = gw.app.attest.db;
    const named = await planOf(gw, sessionsNamingPrQuery(db, a.appId, PR).compile());
    const onBranch = await planOf(gw, sessionsOnPrBranchesQuery(db, a.appId, PR).compile());
    const text = (steps: typeof named) => steps.map((s) => s.text).join('\n');
    expect(text(onBranch)).toContain('sessions_app_repo_branch');
    if (usingPostgres) {
      // PostgreSQL may read session_pr_refs' few pages whole at this size; sessions are never read whole.
      for (const step of [...named, ...onBranch])
        if (step.relation === 'sessions') expect(step.text).not.toContain('Seq Scan');
    } else {
      expect(text(named)).toContain('session_pr_refs_app_pr');
      expect(text(named)).not.toMatch(/SCAN s\b|SCAN sessions/);
      expect(text(onBranch)).not.toMatch(/SCAN s\b|SCAN sessions|sessions_repo_started_at/);
    }
  });

  it('the PR read lists its 120 sessions, each linked the way it is, and another factory sees no PR', async () => {
    const res = await gw.call('GET', '/v1/prs/acme/api/7', { token: a.factoryKey, appId: a.appId });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    const list = res.body.data.sessionList as { traceId: string; linkedBy: string[] }[];
    expect(list).toHaveLength(120);
    expect(list.filter((s) => s.linkedBy.join() === 'session')).toHaveLength(20);
    expect(list.filter((s) => s.linkedBy.join() === 'branch')).toHaveLength(100);
    expect(list.every((s) => Number(s.traceId.slice(7)) % 100 === 0 || Number(s.traceId.slice(7)) % 20 === 3)).toBe(
      true,
    );
    const theirs = await gw.call('GET', '/v1/prs/acme/api/7', { token: b.factoryKey, appId: b.appId });
    expect(theirs.status).toBe(404);
  });
});
