// The context history of one branch (GET /v1/context/changes?branch=): its total and its page, newest first,
// are read from the branch's own entries of (app_id, branch, seq) (migration 0025), not by reading every
// commit of the factory and testing its branch (issue 17). The plans are asked of the store for its very
// statements on a factory of 2,000 commits on 20 branches (PostgreSQL after ANALYZE); the answers are read
// through the API.
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, usingPostgres, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { countCommitsQuery, pageOfCommitsQuery } from '../../../src/areas/context/store.js';
import { planOf } from '../../helpers/plans.js';

let gw: TestGateway;
let a: Tenant;
withGatewayAndTenants((s) => ({ gw, a } = s), { a: { plan: 'paid' }, b: { plan: 'paid' } });

beforeAll(async () => {
  const db = gw.app.attest.db;
  const rows = Array.from({ length: 2_000 }, (_, i) => ({
    id: `commit-${i}`,
    org_id: a.orgId,
    app_id: a.appId,
    seq: i + 1,
    commit_sha: i.toString(16).padStart(40, '0'),
    branch: `branch-${i % 20}`,
    tree_sha256: 'b'.repeat(64),
    file_count: 0,
    total_bytes: 0,
    previous_commit_sha: null,
    synced_at: 1_790_000_000_000 + i,
    synced_by: 'seed',
  }));
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('context_commits')
      .values(rows.slice(i, i + 500))
      .execute();
  if (usingPostgres) await sql`analyze context_commits`.execute(db);
}, 120_000);

describe("one branch's context history", () => {
  it('counts and pages the branch from (app_id, branch, seq)', async () => {
    const db = gw.app.attest.db;
    for (const query of [
      countCommitsQuery(db, a.appId, 'branch-7'),
      pageOfCommitsQuery(db, a.appId, 'branch-7', 25, 50),
    ]) {
      const plan = (await planOf(gw, query.compile())).map((step) => step.text).join('\n');
      expect(plan).toContain('context_commits_app_branch_seq');
      if (usingPostgres) expect(plan).not.toContain('Seq Scan');
      else expect(plan).not.toMatch(/USE TEMP B-TREE|context_commits_app_seq/);
    }
  });

  it("answers the branch's commits newest first with their total, and another factory sees none", async () => {
    const page = await gw.call('GET', '/v1/context/changes?branch=branch-7&limit=3&offset=1', {
      token: a.factoryKey,
      appId: a.appId,
    });
    expect(page.status, page.text.slice(0, 300)).toBe(200);
    // branch-7 holds seq 8, 28, …, 1988 (100 commits); offset 1 starts at the second newest.
    expect(page.body.pagination.total).toBe(100);
    expect(page.body.data.map((c: { commitSha: string }) => c.commitSha)).toEqual(
      [1967, 1947, 1927].map((i) => i.toString(16).padStart(40, '0')),
    );
    const b = await createTenant(gw, { plan: 'paid' });
    const other = await gw.call('GET', '/v1/context/changes?branch=branch-7', { token: b.factoryKey, appId: b.appId });
    expect(other.status).toBe(200);
    expect(other.body.pagination.total).toBe(0);
    expect(other.body.data).toEqual([]);
  });
});
