// Cross-tenant coverage of the read-only observability routes (metrics and PR outcomes): after a factory
// ingests sessions, another org's factory and a sibling factory of the same org get exactly the answer a
// factory with no data gets, on every route and query shape.
import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { foreignCallers, siblingFactory, type Sibling } from '../../helpers/cross-tenant.js';
import { ingest, sessionDoc } from './sessions.js';

const SONNET = 'claude-sonnet-4-5';

const READS = [
  '/v1/metrics/models',
  '/v1/metrics/overview',
  '/v1/metrics/trends',
  '/v1/metrics/compare',
  '/v1/metrics/compare?aFrom=2026-10-01T00:00:00Z&aTo=2026-10-15T00:00:00Z' +
    '&bFrom=2026-10-15T00:00:00Z&bTo=2026-11-01T00:00:00Z',
  ...['branch', 'agent_type', 'worker_kind', 'model', 'tool', 'repo', 'origin'].map(
    (by) => `/v1/metrics/breakdown?by=${by}`,
  ),
  '/v1/metrics/overview?repo=acme/api',
  '/v1/prs/outcomes',
  '/v1/prs/outcomes?repo=acme/api',
  '/v1/prs/acme/api/481',
];

describe('metrics and PR reads across factories and orgs', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  let empty: Tenant;
  let sibling: Sibling;

  withGatewayAndTenants((s) => ({ gw, a, b } = s));
  beforeAll(async () => {
    empty = await createTenant(gw);
    sibling = await siblingFactory(gw, a);
    await ingest(gw, { token: a.factoryKey, appId: a.appId }, [
      sessionDoc({
        startedAt: '2026-10-20T09:00:00Z',
        repo: 'acme/api',
        branch: 'secret-branch',
        actorId: 'ana',
        prNumber: 481,
        prUrl: 'https://github.com/acme/api/pull/481',
        turns: [{ model: SONNET, in: 1200, out: 300, tools: [{ status: 'ok' }, { name: 'Bash', status: 'error' }] }],
      }),
      sessionDoc({
        startedAt: '2026-10-25T09:00:00Z',
        repo: 'acme/api',
        branch: 'main',
        actorId: 'bo',
        turns: [{ model: SONNET, in: 500, out: 100 }],
      }),
    ]);
  });

  it('the owner sees its data (so the comparison below is not between two empty answers)', async () => {
    const own = { token: a.factoryKey, appId: a.appId };
    const overview = await gw.call('GET', '/v1/metrics/overview', own);
    const emptyOverview = await gw.call('GET', '/v1/metrics/overview', { token: empty.factoryKey, appId: empty.appId });
    expect(overview.status).toBe(200);
    expect(overview.text).not.toEqual(emptyOverview.text);
    const branches = await gw.call('GET', '/v1/metrics/breakdown?by=branch', own);
    expect(branches.text).toContain('secret-branch');
  });

  it.each(READS)('GET %s: every other factory gets what an empty factory gets', async (url) => {
    const reference = await gw.call('GET', url, { token: empty.factoryKey, appId: empty.appId });
    expect(reference.status).toBeLessThan(500);
    for (const [who, auth] of foreignCallers(b, sibling)) {
      const r = await gw.call('GET', url, auth);
      expect({ who, status: r.status, body: r.body }).toEqual({ who, status: reference.status, body: reference.body });
      expect(r.text).not.toContain('secret-branch');
    }
  });
});
