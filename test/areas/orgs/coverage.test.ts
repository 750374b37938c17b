// Cross-tenant coverage of the org routes with a data side: a management key of one org, on its own org's
// path, cannot read, change or remove a member of another org (404 member_not_found; the other org's
// membership reads back unchanged), and its member list, audit log and verification show nothing of the
// other org.
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';

describe('org routes across orgs', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  let bMember: { userId: string };
  const bMembers = async () => {
    const r = await gw.call('GET', `/v1/orgs/${b.orgName}/members`, { token: b.managementKey });
    expect(r.status).toBe(200);
    return r.body.data;
  };

  withGatewayAndTenants((s) => ({ gw, a, b } = s));
  beforeAll(async () => {
    bMember = await addMember(gw, b, 'write');
    // Something in B's audit log that A's must not show.
    expect(
      (
        await gw.call('POST', '/v1/api-keys', {
          token: b.loginToken,
          appId: b.appId,
          body: { name: 'secret-key-of-b', preset: 'read-only' },
        })
      ).status,
    ).toBe(201);
  });

  it("PATCH and DELETE /v1/orgs/{A}/members/{B's}: 404 member_not_found; B's memberships unchanged", async () => {
    const before = await bMembers();
    for (const userId of [bMember.userId, b.ownerId]) {
      const patch = await gw.call('PATCH', `/v1/orgs/${a.orgName}/members/${userId}`, {
        token: a.managementKey,
        body: { role: 'read' },
      });
      expect({ status: patch.status, code: patch.body?.error?.code }).toEqual({
        status: 404,
        code: 'member_not_found',
      });
      const del = await gw.call('DELETE', `/v1/orgs/${a.orgName}/members/${userId}`, { token: a.managementKey });
      expect({ status: del.status, code: del.body?.error?.code }).toEqual({ status: 404, code: 'member_not_found' });
    }
    expect(await bMembers()).toEqual(before);
    // B's member still reaches B's factory.
    expect(
      (await gw.call('GET', '/v1/work-items', { token: (await addMember(gw, b, 'read')).loginToken, appId: b.appId }))
        .status,
    ).toBe(200);
  });

  it('GET members, audit-log and audit-log/verify of A show nothing of B', async () => {
    const members = await gw.call('GET', `/v1/orgs/${a.orgName}/members`, { token: a.managementKey });
    expect(members.status).toBe(200);
    expect(members.text).not.toContain(bMember.userId);
    expect(members.text).not.toContain(b.ownerId);
    const audit = await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log`, { token: a.managementKey });
    expect(audit.status).toBe(200);
    expect(audit.body.data.length).toBeGreaterThan(0);
    expect(audit.text).not.toContain('secret-key-of-b');
    expect(audit.text).not.toContain(b.appId);
    expect(audit.text).not.toContain(b.orgId);
    const verify = await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log/verify`, { token: a.managementKey });
    expect(verify.status).toBe(200);
    expect(verify.text).not.toContain(b.orgId);
  });
});
