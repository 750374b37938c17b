// Operator routes (API.md §9), admin token only.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// follow mode answers the version the gateway recommends: its own release, package.json's version.
const VERSION = (
  JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
import { createTenant, startGateway, type Tenant, type TestGateway } from '../../helpers/gateway.js';

describe('admin routes', () => {
  let gw: TestGateway;
  let t: Tenant;
  let admin: { token: string };
  beforeAll(async () => {
    gw = await startGateway();
    admin = { token: gw.adminToken };
    t = await createTenant(gw);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('creates an org (name lowercased, unique case-insensitively)', async () => {
    const r = await gw.call('POST', '/v1/admin/orgs', { ...admin, body: { name: 'Acme-Robots', plan: 'paid' } });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ name: 'acme-robots', plan: 'paid' });
    const dup = await gw.call('POST', '/v1/admin/orgs', { ...admin, body: { name: 'ACME-ROBOTS', plan: 'free' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('duplicate_org_name');
  });

  it('validates org bodies', async () => {
    for (const body of [
      {},
      { name: '' },
      { name: 'has space' },
      { name: 'ok', plan: 'gold' },
      { name: 'ok', extra: 1 },
    ]) {
      const r = await gw.call('POST', '/v1/admin/orgs', { ...admin, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('invalid_request_body');
    }
  });

  it('changes a plan and records it in the audit log; unknown org → 404', async () => {
    const r = await gw.call('PATCH', `/v1/admin/orgs/${t.orgName}`, { ...admin, body: { plan: 'paid' } });
    expect(r.status).toBe(200);
    expect(r.body.data.plan).toBe('paid');
    const rows = await gw.app.attest.db
      .selectFrom('audit_log')
      .selectAll()
      .where('org_id', '=', t.orgId)
      .where('action_type', '=', 'org.plan_changed')
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.actor_type).toBe('admin');
    const missing = await gw.call('PATCH', '/v1/admin/orgs/no-such-org', { ...admin, body: { plan: 'paid' } });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('org_not_found');
    await gw.call('PATCH', `/v1/admin/orgs/${t.orgName}`, { ...admin, body: { plan: 'enterprise' } });
  });

  it('creates users (email unique, lowercased) and mints login tokens shown once', async () => {
    const u = await gw.call('POST', '/v1/admin/users', { ...admin, body: { email: 'Dev@Example.com', name: 'Dev' } });
    expect(u.status).toBe(201);
    expect(u.body.data.email).toBe('dev@example.com');
    const dup = await gw.call('POST', '/v1/admin/users', {
      ...admin,
      body: { email: 'dev@example.COM', name: 'Dev 2' },
    });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('duplicate_user_email');
    const bad = await gw.call('POST', '/v1/admin/users', { ...admin, body: { email: 'not-an-email', name: 'x' } });
    expect(bad.status).toBe(400);
    const tok = await gw.call('POST', `/v1/admin/users/${u.body.data.id}/login-tokens`, admin);
    expect(tok.status).toBe(201);
    expect(tok.body.data.token).toMatch(/^olu_/);
    const none = await gw.call('POST', '/v1/admin/users/00000000-0000-4000-8000-000000000000/login-tokens', admin);
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('user_not_found');
  });

  it('adds and removes members; refuses duplicates, unknown users and removing the last owner', async () => {
    const u = (await gw.call('POST', '/v1/admin/users', { ...admin, body: { email: 'member@example.com', name: 'M' } }))
      .body.data;
    const add = await gw.call('POST', `/v1/admin/orgs/${t.orgName}/members`, {
      ...admin,
      body: { userId: u.id, role: 'write' },
    });
    expect(add.status).toBe(201);
    expect(add.body.data).toMatchObject({ userId: u.id, role: 'write', email: 'member@example.com' });
    const again = await gw.call('POST', `/v1/admin/orgs/${t.orgName}/members`, {
      ...admin,
      body: { userId: u.id, role: 'read' },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('already_member');
    const ghost = await gw.call('POST', `/v1/admin/orgs/${t.orgName}/members`, {
      ...admin,
      body: { userId: '00000000-0000-4000-8000-000000000000', role: 'read' },
    });
    expect(ghost.status).toBe(404);
    const badRole = await gw.call('POST', `/v1/admin/orgs/${t.orgName}/members`, {
      ...admin,
      body: { userId: u.id, role: 'superuser' },
    });
    expect(badRole.status).toBe(400);
    expect((await gw.call('DELETE', `/v1/admin/orgs/${t.orgName}/members/${u.id}`, admin)).status).toBe(204);
    const gone = await gw.call('DELETE', `/v1/admin/orgs/${t.orgName}/members/${u.id}`, admin);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('member_not_found');
    const last = await gw.call('DELETE', `/v1/admin/orgs/${t.orgName}/members/${t.ownerId}`, admin);
    expect(last.status).toBe(409);
    expect(last.body.error.code).toBe('last_owner');
  });

  it("mints management keys only within the creator's role", async () => {
    const ok = await gw.call('POST', `/v1/admin/orgs/${t.orgName}/management-keys`, {
      ...admin,
      body: { name: 'mk', createdBy: t.ownerId, permissions: ['members.read'] },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data.key).toMatch(/^olk_/);
    const reader = (
      await gw.call('POST', '/v1/admin/users', { ...admin, body: { email: 'reader-mk@example.com', name: 'R' } })
    ).body.data;
    await gw.call('POST', `/v1/admin/orgs/${t.orgName}/members`, {
      ...admin,
      body: { userId: reader.id, role: 'read' },
    });
    const beyond = await gw.call('POST', `/v1/admin/orgs/${t.orgName}/management-keys`, {
      ...admin,
      body: { name: 'mk2', createdBy: reader.id, permissions: ['members.write'] },
    });
    expect(beyond.status).toBe(403);
    expect(beyond.body.error).toMatchObject({ code: 'forbidden', required_permission: 'members.write' });
    const notMember = await gw.call('POST', `/v1/admin/orgs/${t.orgName}/management-keys`, {
      ...admin,
      body: { name: 'mk3', createdBy: '00000000-0000-4000-8000-000000000000', permissions: [] },
    });
    expect(notMember.status).toBe(404);
    const unknownPerm = await gw.call('POST', `/v1/admin/orgs/${t.orgName}/management-keys`, {
      ...admin,
      body: { name: 'mk4', createdBy: t.ownerId, permissions: ['root.everything'] },
    });
    expect(unknownPerm.status).toBe(400);
  });

  it('creates factories with unique names per org', async () => {
    const r = await gw.call('POST', `/v1/admin/orgs/${t.orgName}/apps`, {
      ...admin,
      body: { name: 'second', display_name: 'Second factory' },
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      name: 'second',
      display_name: 'Second factory',
      tenant_id: t.orgId,
      runner_updates: { mode: 'follow', version: VERSION },
    });
    const dup = await gw.call('POST', `/v1/admin/orgs/${t.orgName}/apps`, { ...admin, body: { name: 'second' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('duplicate_app_name');
    const otherOrg = await createTenant(gw);
    const sameNameElsewhere = await gw.call('POST', `/v1/admin/orgs/${otherOrg.orgName}/apps`, {
      ...admin,
      body: { name: 'second' },
    });
    expect(sameNameElsewhere.status).toBe(201);
  });

  it('needs the admin token: none → 401, a wrong kind → 401', async () => {
    expect((await gw.call('POST', '/v1/admin/users', { body: { email: 'a@b.co', name: 'a' } })).status).toBe(401);
    expect(
      (await gw.call('POST', '/v1/admin/users', { token: t.loginToken, body: { email: 'a@b.co', name: 'a' } })).status,
    ).toBe(401);
    expect(
      (
        await gw.call('POST', '/v1/admin/users', {
          token: t.factoryKey,
          appId: t.appId,
          body: { email: 'a@b.co', name: 'a' },
        })
      ).status,
    ).toBe(401);
  });
});
