// A work item's evidence (its artifacts: anchored to it, to one of its pull requests, or emitted from a session
// linked to it) is read with one statement whose three ways in each have an index. As one `or` under the
// factory's condition, both stores read every artifact of the factory and tested each row (issue 17). The plan is asked
// of the store for its very statement on a factory of 3,000 artifacts (PostgreSQL after ANALYZE); what the statement
// answers is covered by work-item-artifacts.test.ts through the API.
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { workItemArtifactsQuery } from '../../../src/areas/artifacts/store.js';
import { planOf } from '../../helpers/plans.js';

let gw: TestGateway;
let a: Tenant;
withGatewayAndTenants((s) => ({ gw, a } = s), { a: { plan: 'paid' }, b: { plan: 'paid' } });

beforeAll(async () => {
  const db = gw.app.attest.db;
  const rows = Array.from({ length: 3_000 }, (_, i) => ({
    id: `art-${i}`,
    org_id: a.orgId,
    app_id: a.appId,
    client_artifact_id: `client-${i}`,
    kind: 'screenshot',
    media_type: 'image/png',
    filename: `shot-${i}.png`,
    caption: '',
    criterion_id: null,
    bytes: 10,
    sha256: 'a'.repeat(64),
    repository: `acme/repo-${i % 7}`,
    pr_number: i % 300,
    work_item_id: `wi-${i % 500}`,
    supersedes: null,
    session_id: `session-${i % 900}`,
    session_turn_index: null,
    emitted_at: i,
    created_at: i,
  }));
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('artifacts')
      .values(rows.slice(i, i + 500))
      .execute();
  if (usingPostgres) await sql`analyze artifacts`.execute(db);
}, 120_000);

describe("a work item's artifacts", () => {
  it('are read through the work item, session and pull-request indexes, never by the factory alone', async () => {
    const db = gw.app.attest.db;
    const query = workItemArtifactsQuery(db, a.appId, {
      workItemId: 'wi-7',
      pullRequests: [
        { repository: 'acme/repo-1', number: 8 },
        { repository: 'acme/repo-2', number: 9 },
      ],
    }).compile();
    const steps = await planOf(gw, query);
    if (usingPostgres) {
      const plan = steps.map((step) => step.text).join('\n');
      expect(plan).not.toMatch(/Seq Scan/);
      for (const index of ['artifacts_app_work_item', 'artifacts_app_session', 'artifacts_app_pr'])
        expect(plan).toContain(index);
    } else {
      expect(
        steps
          .filter((step) => step.relation === 'artifacts')
          .map((step) => step.text)
          .sort(),
      ).toEqual([
        'SEARCH artifacts USING INDEX artifacts_app_pr (app_id=? AND repository=? AND pr_number=?)',
        'SEARCH artifacts USING INDEX artifacts_app_pr (app_id=? AND repository=? AND pr_number=?)',
        'SEARCH artifacts USING INDEX artifacts_app_session (app_id=? AND session_id=?)',
        'SEARCH artifacts USING INDEX artifacts_app_work_item (app_id=? AND work_item_id=?)',
        'SEARCH artifacts USING INDEX artifacts_app_work_item (app_id=? AND work_item_id=?)',
      ]);
    }
  });
});
