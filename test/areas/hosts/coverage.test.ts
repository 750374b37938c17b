// Cross-tenant coverage of the host routes: a heartbeat with the same hostId from another org's factory or
// a sibling factory of the same org creates the caller's own host; GET /v1/hosts of every other factory
// lists none of the owner's, and the owner's host reads back unchanged.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { foreignCallers, siblingFactory, type Sibling } from '../../helpers/cross-tenant.js';

describe('host routes across factories and orgs', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  let sibling: Sibling;
  const beat = (auth: { token: string; appId: string }, name: string) =>
    gw.call('POST', '/v1/hosts/heartbeat', {
      ...auth,
      body: { hostId: 'shared-host', name, runnerVersion: '1.4.0', capacity: 2, activeJobs: 1 },
    });

  withGatewayAndTenants((s) => ({ gw, a, b } = s));
  beforeAll(async () => {
    sibling = await siblingFactory(gw, a);
    expect((await beat({ token: a.factoryKey, appId: a.appId }, 'secret-runner-of-A')).status).toBe(200);
  });

  it("GET /v1/hosts: every other factory lists none of the owner's hosts", async () => {
    for (const [, auth] of foreignCallers(b, sibling)) {
      const r = await gw.call('GET', '/v1/hosts', auth);
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual([]);
    }
  });

  it("POST /v1/hosts/heartbeat with the owner's hostId: the caller's own host; the owner's is unchanged", async () => {
    const before = await gw.call('GET', '/v1/hosts', { token: a.factoryKey, appId: a.appId });
    for (const [who, auth] of foreignCallers(b, sibling)) {
      expect((await beat(auth, `runner of ${who}`)).status).toBe(200);
      const mine = await gw.call('GET', '/v1/hosts', auth);
      expect(mine.body.data.map((h: { name: string }) => h.name)).toEqual([`runner of ${who}`]);
    }
    const after = await gw.call('GET', '/v1/hosts', { token: a.factoryKey, appId: a.appId });
    expect(after.body).toEqual(before.body);
    expect(after.body.data.map((h: { name: string }) => h.name)).toEqual(['secret-runner-of-A']);
  });
});
