// A work item's pull requests (GET /v1/work-items/{id}/pull-requests, and every view of the item) are read by
// the item's id. SQLite keeps no statistics here and took the factory's condition to (app_id, repository,
// number), reading every link of the factory for each item (issue 17). The plan is asked of the store for the
// very statement the route runs; the listing itself is read through the route.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { usingPostgres, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { listPullRequestsQuery } from '../../../src/areas/work-items/store.js';
import { planOf, readsOf } from '../../helpers/plans.js';
import { auth, newItem } from './helpers.js';

describe('the pull requests of one work item', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s));

  it("are read through the primary key (work_item_id, ...), not the factory's links", async () => {
    const db = gw.app.attest.db;
    const item = await newItem(gw, a);
    if (usingPostgres) {
      // PostgreSQL chooses by statistics: 3,000 links of the factory it has never been told about (autovacuum off).
      await sql`alter table work_item_pull_requests set (autovacuum_enabled = false)`.execute(db);
      const other = await newItem(gw, a);
      await sql`insert into work_item_pull_requests (app_id, work_item_id, repository, number, url, linked_at)
        select ${a.appId}, ${other.id}, 'acme/api', g, 'https://github.com/acme/api/pull/' || g, g
        from generate_series(1, 3000) as g`.execute(db);
    }
    const reads = await readsOf(gw, listPullRequestsQuery(db, a.appId, item.id).compile(), 'work_item_pull_requests');
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) {
      if (usingPostgres) expect(read).toMatch(/^(Index Scan work_item_pull_requests_pk|Bitmap Heap Scan$)/);
      else
        expect(read).toBe(
          'SEARCH work_item_pull_requests USING INDEX sqlite_autoindex_work_item_pull_requests_1 (work_item_id=?)',
        );
    }
    if (usingPostgres)
      expect(
        (await planOf(gw, listPullRequestsQuery(db, a.appId, item.id).compile())).map((s) => s.text).join('\n'),
      ).not.toContain('work_item_pull_requests_pr');
  });

  it("lists exactly the item's links, oldest first, and another factory's key sees none of them", async () => {
    const item = await newItem(gw, a);
    const sibling = await newItem(gw, a);
    const declare = (t: Tenant, id: string, repository: string, number: number) =>
      gw.call('POST', `/v1/work-items/${id}/pull-requests`, { ...auth(t), body: { repository, number } });
    expect((await declare(a, item.id, 'acme/web', 7)).status).toBe(201);
    gw.clock.advance(1000);
    expect((await declare(a, item.id, 'acme/api', 5)).status).toBe(201);
    expect((await declare(a, sibling.id, 'acme/api', 6)).status).toBe(201);
    const list = await gw.call('GET', `/v1/work-items/${item.id}/pull-requests`, auth(a));
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { repository: string; number: number }) => `${p.repository}#${p.number}`)).toEqual([
      'acme/web#7',
      'acme/api#5',
    ]);
    const other = await gw.call('GET', `/v1/work-items/${item.id}/pull-requests`, auth(b));
    expect(other.status).toBe(404);
  });
});
