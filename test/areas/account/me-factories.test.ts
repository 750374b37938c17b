import { describe, expect, it } from 'vitest';
import { addMember, createTenant, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';

// What each role may do there: the deleting permissions are the owners' alone (the dashboard's delete buttons).
const perms = {
  owner: expect.arrayContaining(['sessions.read', 'sessions.delete', 'artifacts.delete']),
  write: expect.not.arrayContaining(['sessions.delete', 'artifacts.delete']),
  read: expect.not.arrayContaining(['sessions.delete', 'artifacts.delete', 'sessions.write']),
};

describe('GET /v1/me/factories', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s));

  it("lists every live factory of every org the token's owner belongs to, with org and role", async () => {
    const second = (
      await gw.call('POST', '/v1/apps', {
        token: a.loginToken,
        appId: a.appId,
        body: { name: 'zeta', display_name: 'Zeta' },
      })
    ).body.data;
    // The owner of A joins B as a reader.
    const joined = await gw.call('POST', `/v1/admin/orgs/${b.orgName}/members`, {
      token: gw.adminToken,
      body: { userId: a.ownerId, role: 'read' },
    });
    expect(joined.status).toBe(201);

    const res = await gw.call('GET', '/v1/me/factories', { token: a.loginToken });
    expect(res.status).toBe(200);
    const expected = [
      {
        id: a.appId,
        name: 'main',
        display_name: 'main',
        org: { id: a.orgId, name: a.orgName },
        role: 'owner',
        permissions: perms.owner,
      },
      {
        id: second.id,
        name: 'zeta',
        display_name: 'Zeta',
        org: { id: a.orgId, name: a.orgName },
        role: 'owner',
        permissions: perms.owner,
      },
      {
        id: b.appId,
        name: 'main',
        display_name: 'main',
        org: { id: b.orgId, name: b.orgName },
        role: 'read',
        permissions: perms.read,
      },
    ].sort((x, y) => (x.org.name + x.name).localeCompare(y.org.name + y.name));
    expect(res.body.data).toEqual(expected);

    // B's owner sees only B.
    const other = await gw.call('GET', '/v1/me/factories', { token: b.loginToken });
    expect(other.body.data).toEqual([
      {
        id: b.appId,
        name: 'main',
        display_name: 'main',
        org: { id: b.orgId, name: b.orgName },
        role: 'owner',
        permissions: perms.owner,
      },
    ]);
  });

  it('works with a factory header too, and leaves out deleted factories and orgs the owner left', async () => {
    const t = await createTenant(gw);
    const extra = (await gw.call('POST', '/v1/apps', { token: t.loginToken, appId: t.appId, body: { name: 'gone' } }))
      .body.data;
    expect((await gw.call('DELETE', `/v1/apps/${extra.id}`, { token: t.loginToken, appId: extra.id })).status).toBe(
      204,
    );
    const withHeader = await gw.call('GET', '/v1/me/factories', { token: t.loginToken, appId: t.appId });
    expect(withHeader.status).toBe(200);
    expect(withHeader.body.data.map((f: { id: string }) => f.id)).toEqual([t.appId]);

    const member = await addMember(gw, t, 'write');
    expect((await gw.call('GET', '/v1/me/factories', { token: member.loginToken })).body.data).toEqual([
      {
        id: t.appId,
        name: 'main',
        display_name: 'main',
        org: { id: t.orgId, name: t.orgName },
        role: 'write',
        permissions: perms.write,
      },
    ]);
    expect(
      (await gw.call('DELETE', `/v1/orgs/${t.orgName}/members/${member.userId}`, { token: t.managementKey })).status,
    ).toBe(204);
    const after = await gw.call('GET', '/v1/me/factories', { token: member.loginToken });
    expect(after.status).toBe(200);
    expect(after.body.data).toEqual([]);
  });

  it('takes a login token only', async () => {
    const missing = await gw.call('GET', '/v1/me/factories');
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('unauthorized');
    for (const token of [a.factoryKey, a.managementKey, gw.adminToken, 'olu_notarealtoken']) {
      const res = await gw.call('GET', '/v1/me/factories', { token, appId: a.appId });
      expect(res.status, token.slice(0, 4)).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
  });
});
