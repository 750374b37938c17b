import { describe, expect, it } from 'vitest';
import { addMember, createTenant, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';

describe('org management: members and roles', () => {
  let gw: TestGateway;
  let t: Tenant;
  let other: Tenant;
  withGatewayAndTenants((s) => ({ gw, a: t, b: other } = s), { a: { plan: 'free' } });

  const mk = (tenant: Tenant) => ({ token: tenant.managementKey });

  async function newUser(label: string): Promise<{ id: string; email: string }> {
    const res = await gw.call('POST', '/v1/admin/users', {
      token: gw.adminToken,
      body: { email: `${label}-${Math.random().toString(36).slice(2, 8)}@Example.com`, name: label },
    });
    expect(res.status).toBe(201);
    return res.body.data;
  }

  async function mintManagementKey(tenant: Tenant, createdBy: string, permissions: string[]): Promise<string> {
    const res = await gw.call('POST', `/v1/admin/orgs/${tenant.orgName}/management-keys`, {
      token: gw.adminToken,
      body: { name: `mk-${Math.random()}`, createdBy, permissions },
    });
    expect(res.status).toBe(201);
    return res.body.data.key;
  }

  async function members(tenant: Tenant) {
    const res = await gw.call('GET', `/v1/orgs/${tenant.orgName}/members`, mk(tenant));
    expect(res.status).toBe(200);
    return res.body.data as { userId: string; email: string; name: string; role: string; joined_at: string }[];
  }

  it('lists members (any plan)', async () => {
    const list = await members(t);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ userId: t.ownerId, role: 'owner', joined_at: '2026-11-01T12:00:00.000Z' });
    expect(Object.keys(list[0]!).sort()).toEqual(['email', 'joined_at', 'name', 'role', 'userId']);
    // Upper-case org name in the path is the same org.
    expect((await gw.call('GET', `/v1/orgs/${t.orgName.toUpperCase()}/members`, mk(t))).status).toBe(200);
  });

  it('adds an existing user by email, and refuses unknown users, duplicates and bad bodies', async () => {
    const user = await newUser('joiner');
    const added = await gw.call('POST', `/v1/orgs/${t.orgName}/members`, {
      ...mk(t),
      body: { email: user.email.toUpperCase(), role: 'write' },
    });
    expect(added.status).toBe(201);
    expect(added.body.data).toMatchObject({
      userId: user.id,
      email: user.email.toLowerCase(),
      name: 'joiner',
      role: 'write',
    });
    expect((await members(t)).map((m) => m.userId)).toContain(user.id);

    const again = await gw.call('POST', `/v1/orgs/${t.orgName}/members`, {
      ...mk(t),
      body: { email: user.email, role: 'read' },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('already_member');

    const unknown = await gw.call('POST', `/v1/orgs/${t.orgName}/members`, {
      ...mk(t),
      body: { email: 'nobody-here@example.com', role: 'read' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('user_not_found');

    for (const body of [
      { email: 'not-an-email', role: 'read' },
      { email: user.email, role: 'god' },
      { email: user.email },
      { email: user.email, role: 'read', extra: 1 },
    ]) {
      const res = await gw.call('POST', `/v1/orgs/${t.orgName}/members`, { ...mk(t), body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request_body');
    }
  });

  it("changes a member's role; the member's login token acts with the new role at once", async () => {
    const m = await addMember(gw, t, 'read');
    const before = await gw.call('POST', '/v1/apps', {
      token: m.loginToken,
      appId: t.appId,
      body: { name: 'by-reader' },
    });
    expect(before.status).toBe(403);
    const changed = await gw.call('PATCH', `/v1/orgs/${t.orgName}/members/${m.userId}`, {
      ...mk(t),
      body: { role: 'write' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ userId: m.userId, role: 'write' });
    expect((await members(t)).find((x) => x.userId === m.userId)?.role).toBe('write');
    const after = await gw.call('POST', '/v1/apps', {
      token: m.loginToken,
      appId: t.appId,
      body: { name: 'by-writer' },
    });
    expect(after.status).toBe(201);

    const missing = await gw.call('PATCH', `/v1/orgs/${t.orgName}/members/${crypto.randomUUID()}`, {
      ...mk(t),
      body: { role: 'write' },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('member_not_found');
    // A member of another org is not a member here.
    const foreign = await gw.call('PATCH', `/v1/orgs/${t.orgName}/members/${other.ownerId}`, {
      ...mk(t),
      body: { role: 'read' },
    });
    expect(foreign.status).toBe(404);
    const badBody = await gw.call('PATCH', `/v1/orgs/${t.orgName}/members/${m.userId}`, {
      ...mk(t),
      body: { role: 'root' },
    });
    expect(badBody.status).toBe(400);
    const badPath = await gw.call('PATCH', `/v1/orgs/${t.orgName}/members/not-a-uuid`, {
      ...mk(t),
      body: { role: 'read' },
    });
    expect(badPath.status).toBe(400);
    expect(badPath.body.error.code).toBe('invalid_path_params');
  });

  it('keeps at least one owner', async () => {
    const tenant = await createTenant(gw);
    const demote = await gw.call('PATCH', `/v1/orgs/${tenant.orgName}/members/${tenant.ownerId}`, {
      ...mk(tenant),
      body: { role: 'admin' },
    });
    expect(demote.status).toBe(409);
    expect(demote.body.error.code).toBe('last_owner');
    const remove = await gw.call('DELETE', `/v1/orgs/${tenant.orgName}/members/${tenant.ownerId}`, mk(tenant));
    expect(remove.status).toBe(409);
    expect(remove.body.error.code).toBe('last_owner');
    expect((await members(tenant))[0]?.role).toBe('owner');
    // With a second owner, the first may step down.
    const second = await addMember(gw, tenant, 'owner');
    const ok = await gw.call('PATCH', `/v1/orgs/${tenant.orgName}/members/${tenant.ownerId}`, {
      ...mk(tenant),
      body: { role: 'admin' },
    });
    expect(ok.status).toBe(200);
    const last = await gw.call('DELETE', `/v1/orgs/${tenant.orgName}/members/${second.userId}`, mk(tenant));
    expect(last.status).toBe(409);
  });

  it('keeps one owner when the last two owners are demoted or removed at the same time', async () => {
    for (const method of ['PATCH', 'DELETE'] as const) {
      const tenant = await createTenant(gw);
      const second = await addMember(gw, tenant, 'owner');
      // A key minted by a third member (an admin), so removing either owner does not disable it mid-race.
      const admin = await addMember(gw, tenant, 'admin');
      const key = await mintManagementKey(tenant, admin.userId, ['members.read', 'members.write']);
      const results = await Promise.all(
        [tenant.ownerId, second.userId].map((userId) =>
          gw.call(method, `/v1/orgs/${tenant.orgName}/members/${userId}`, {
            token: key,
            body: method === 'PATCH' ? { role: 'read' } : undefined,
          }),
        ),
      );
      expect(results.map((r) => r.status).sort(), method).toEqual(method === 'PATCH' ? [200, 409] : [204, 409]);
      expect(results.find((r) => r.status === 409)?.body.error.code).toBe('last_owner');
      const owners = (await gw.call('GET', `/v1/orgs/${tenant.orgName}/members`, { token: key })).body.data.filter(
        (m: { role: string }) => m.role === 'owner',
      );
      expect(owners, method).toHaveLength(1);
    }
  });

  it('removes a member: their login token stops working; their keys answer 403 creator_not_member', async () => {
    const tenant = await createTenant(gw);
    const leaver = await addMember(gw, tenant, 'admin');
    const key = (
      await gw.call('POST', '/v1/api-keys', {
        token: leaver.loginToken,
        appId: tenant.appId,
        body: { name: 'leaver-key', preset: 'full-access' },
      })
    ).body.data.plaintext_key;
    const leaverMk = await mintManagementKey(tenant, leaver.userId, ['members.read']);
    expect((await gw.call('GET', '/v1/apps', { token: key, appId: tenant.appId })).status).toBe(200);
    expect((await gw.call('GET', `/v1/orgs/${tenant.orgName}/members`, { token: leaverMk })).status).toBe(200);

    const removed = await gw.call('DELETE', `/v1/orgs/${tenant.orgName}/members/${leaver.userId}`, mk(tenant));
    expect(removed.status).toBe(204);
    expect((await members(tenant)).map((m) => m.userId)).toEqual([tenant.ownerId]);

    expect((await gw.call('GET', '/v1/apps', { token: leaver.loginToken, appId: tenant.appId })).status).toBe(401);
    const byKey = await gw.call('GET', '/v1/apps', { token: key, appId: tenant.appId });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.code).toBe('creator_not_member');
    const byMk = await gw.call('GET', `/v1/orgs/${tenant.orgName}/members`, { token: leaverMk });
    expect(byMk.status).toBe(403);
    expect(byMk.body.error.code).toBe('creator_not_member');

    const again = await gw.call('DELETE', `/v1/orgs/${tenant.orgName}/members/${leaver.userId}`, mk(tenant));
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('member_not_found');
    // The owner's own key still works.
    expect((await gw.call('GET', '/v1/apps', { token: tenant.factoryKey, appId: tenant.appId })).status).toBe(200);

    const audit = await gw.call('GET', `/v1/orgs/${tenant.orgName}/audit-log?targetType=member`, mk(tenant));
    expect(audit.body.data.map((r: { action_type: string }) => r.action_type)).toEqual([
      'member.removed',
      'member.added',
      'member.added',
    ]);
    expect(audit.body.data[0]).toMatchObject({
      target_id: leaver.userId,
      actor_type: 'management_key',
      actor_label: 'mgmt',
    });
  });

  it('lists roles with their permissions', async () => {
    const res = await gw.call('GET', `/v1/orgs/${t.orgName}/roles`, mk(t));
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { name: string }) => r.name)).toEqual(['owner', 'admin', 'write', 'read']);
    const byName = Object.fromEntries(
      res.body.data.map((r: { name: string; permissions: string[] }) => [r.name, r.permissions]),
    );
    expect(byName.owner).toContain('audit.read');
    expect(byName.write).not.toContain('members.write');
    expect(byName.write).toContain('apps.write');
    expect(byName.read.every((p: string) => p.endsWith('.read'))).toBe(true);
    expect(byName.read).not.toContain('audit.read');
  });

  it('needs members.read / members.write', async () => {
    const readOnlyMk = await mintManagementKey(t, t.ownerId, ['members.read']);
    expect((await gw.call('GET', `/v1/orgs/${t.orgName}/members`, { token: readOnlyMk })).status).toBe(200);
    const user = await newUser('denied');
    const post = await gw.call('POST', `/v1/orgs/${t.orgName}/members`, {
      token: readOnlyMk,
      body: { email: user.email, role: 'read' },
    });
    expect(post.status).toBe(403);
    expect(post.body.error).toMatchObject({ code: 'forbidden', required_permission: 'members.write' });
    const patch = await gw.call('PATCH', `/v1/orgs/${t.orgName}/members/${t.ownerId}`, {
      token: readOnlyMk,
      body: { role: 'read' },
    });
    expect(patch.status).toBe(403);
    const del = await gw.call('DELETE', `/v1/orgs/${t.orgName}/members/${t.ownerId}`, { token: readOnlyMk });
    expect(del.status).toBe(403);
    const auditOnly = await mintManagementKey(t, t.ownerId, ['audit.read']);
    for (const url of ['members', 'roles']) {
      const res = await gw.call('GET', `/v1/orgs/${t.orgName}/${url}`, { token: auditOnly });
      expect(res.status).toBe(403);
      expect(res.body.error.required_permission).toBe('members.read');
    }
    expect((await members(t)).map((m) => m.userId)).not.toContain(user.id);
  });

  it('takes a management key of this org only', async () => {
    const routes: [string, string, unknown][] = [
      ['GET', `/v1/orgs/${t.orgName}/members`, undefined],
      ['POST', `/v1/orgs/${t.orgName}/members`, { email: 'x@example.com', role: 'read' }],
      ['PATCH', `/v1/orgs/${t.orgName}/members/${t.ownerId}`, { role: 'read' }],
      ['DELETE', `/v1/orgs/${t.orgName}/members/${t.ownerId}`, undefined],
      ['GET', `/v1/orgs/${t.orgName}/roles`, undefined],
    ];
    for (const [method, url, body] of routes) {
      expect((await gw.call(method as 'GET', url, { body })).status, `${method} ${url} none`).toBe(401);
      for (const token of [t.factoryKey, t.loginToken, gw.adminToken]) {
        const res = await gw.call(method as 'GET', url, { token, appId: t.appId, body });
        expect(res.status, `${method} ${url} ${token.slice(0, 4)}`).toBe(401);
        expect(res.body.error.code).toBe('unauthorized');
      }
      const foreign = await gw.call(method as 'GET', url, { token: other.managementKey, body });
      expect(foreign.status, `${method} ${url} other org`).toBe(403);
      expect(foreign.body.error.code).toBe('forbidden');
    }
    // Nothing changed.
    expect(await members(t)).toEqual(
      expect.arrayContaining([expect.objectContaining({ userId: t.ownerId, role: 'owner' })]),
    );
    // And an org that does not exist is refused the same way.
    expect((await gw.call('GET', '/v1/orgs/no-such-org/members', mk(t))).status).toBe(403);
  });
});
