// Invitations (POST/GET/DELETE /v1/orgs/{org}/invitations, POST /v1/invitations/accept) and the auto-join
// setting (PATCH /v1/orgs/{org}): single use, 7 days, email-bound, revocable, audited, and another org's
// credential sees and changes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';

const START = Date.parse('2026-11-01T12:00:00Z');
const DAY = 86_400_000;

describe('invitations and auto-join', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s));

  let n = 0;
  /** A user made by the operator (in no org yet), with a login token. */
  async function person(email?: string): Promise<{ id: string; email: string; token: string }> {
    const admin = { token: gw.adminToken };
    const u = await gw.call('POST', '/v1/admin/users', {
      ...admin,
      body: { email: email ?? `joiner-${++n}@example.com`, name: `Joiner ${n}` },
    });
    expect(u.status).toBe(201);
    const t = await gw.call('POST', `/v1/admin/users/${u.body.data.id}/login-tokens`, admin);
    return { id: u.body.data.id, email: u.body.data.email, token: t.body.data.token };
  }
  const invite = (t: Tenant, body: unknown) =>
    gw.call('POST', `/v1/orgs/${t.orgName}/invitations`, { token: t.managementKey, body });
  const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);
  const accept = (token: string, bearer: string) =>
    gw.call('POST', '/v1/invitations/accept', { token: bearer, body: { token } });
  const open = async (t: Tenant) => {
    const r = await gw.call('GET', `/v1/orgs/${t.orgName}/invitations`, { token: t.managementKey });
    expect(r.status).toBe(200);
    return r.body.data as { id: string; email: string | null; role: string }[];
  };

  beforeAll(() => {
    expect(gw.clock.now()).toBe(START);
  });

  it('creates a link valid 7 days, lists it without the link, and joins once with its role', async () => {
    const made = await invite(a, { role: 'write' });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({
      email: null,
      role: 'write',
      createdAt: '2026-11-01T12:00:00.000Z',
      expiresAt: '2026-11-08T12:00:00.000Z',
    });
    expect(made.body.data.url).toMatch(/^http:\/\/attest\.test\/invite\/[A-Za-z0-9_-]{43}$/);
    const listed = await open(a);
    expect(listed.map((i) => i.id)).toContain(made.body.data.id);
    expect(JSON.stringify(listed)).not.toContain(tokenOf(made.body.data.url));
    // Another org's key sees nothing of it: its own list is empty, and A's path is refused.
    expect(await open(b)).toEqual([]);
    expect((await gw.call('GET', `/v1/orgs/${a.orgName}/invitations`, { token: b.managementKey })).status).toBe(403);

    const joiner = await person();
    const joined = await accept(tokenOf(made.body.data.url), joiner.token);
    expect(joined.status).toBe(201);
    expect(joined.body.data).toEqual({ org: { id: a.orgId, name: a.orgName }, role: 'write' });
    // The member's login token now reaches A's factory with the write role.
    const created = await gw.call('POST', '/v1/apps', {
      token: joiner.token,
      appId: a.appId,
      body: { name: 'by-an-invited-writer' },
    });
    expect(created.status, created.text).toBe(201);
    const members = await gw.call('GET', `/v1/orgs/${a.orgName}/members`, { token: a.managementKey });
    expect(members.body.data).toContainEqual(expect.objectContaining({ userId: joiner.id, role: 'write' }));

    // Single use: a second person, and the same one, are refused; the list no longer shows it.
    const second = await accept(tokenOf(made.body.data.url), (await person()).token);
    expect({ status: second.status, code: second.body.error.code }).toEqual({ status: 410, code: 'invitation_used' });
    expect((await open(a)).map((i) => i.id)).not.toContain(made.body.data.id);
  });

  it('an invitation for an email accepts only a user with that email', async () => {
    const target = await person(`Invited-${++n}@Example.com`);
    const made = await invite(a, { email: target.email.toUpperCase(), role: 'read' });
    expect(made.status).toBe(201);
    expect(made.body.data.email).toBe(target.email);
    const wrong = await accept(tokenOf(made.body.data.url), (await person()).token);
    expect({ status: wrong.status, code: wrong.body.error.code }).toEqual({
      status: 403,
      code: 'invitation_email_mismatch',
    });
    const right = await accept(tokenOf(made.body.data.url), target.token);
    expect(right.status).toBe(201);
    expect(right.body.data.role).toBe('read');
    // Already a member: a new invitation is refused without being used.
    const again = await invite(a, { role: 'admin' });
    const dup = await accept(tokenOf(again.body.data.url), target.token);
    expect({ status: dup.status, code: dup.body.error.code }).toEqual({ status: 409, code: 'already_member' });
    expect((await open(a)).map((i) => i.id)).toContain(again.body.data.id);
  });

  it('revokes: the link stops joining; another org cannot revoke it; unknown ids are 404', async () => {
    const made = await invite(a, { role: 'read' });
    const id = made.body.data.id as string;
    const foreign = await gw.call('DELETE', `/v1/orgs/${b.orgName}/invitations/${id}`, { token: b.managementKey });
    expect({ status: foreign.status, code: foreign.body.error.code }).toEqual({
      status: 404,
      code: 'invitation_not_found',
    });
    expect((await open(a)).map((i) => i.id)).toContain(id);
    const del = await gw.call('DELETE', `/v1/orgs/${a.orgName}/invitations/${id}`, { token: a.managementKey });
    expect(del.status).toBe(204);
    const twice = await gw.call('DELETE', `/v1/orgs/${a.orgName}/invitations/${id}`, { token: a.managementKey });
    expect(twice.status).toBe(404);
    const late = await accept(tokenOf(made.body.data.url), (await person()).token);
    expect({ status: late.status, code: late.body.error.code }).toEqual({ status: 410, code: 'invitation_revoked' });
    const bogus = await accept('x'.repeat(43), (await person()).token);
    expect({ status: bogus.status, code: bogus.body.error.code }).toEqual({
      status: 404,
      code: 'invitation_not_found',
    });
  });

  it('credentials: none is 401, a key without members.write 403, an API key cannot accept', async () => {
    expect((await gw.call('GET', `/v1/orgs/${a.orgName}/invitations`)).status).toBe(401);
    expect((await gw.call('POST', '/v1/invitations/accept', { body: { token: 'x'.repeat(43) } })).status).toBe(401);
    const readOnly = await gw.call('POST', `/v1/admin/orgs/${a.orgName}/management-keys`, {
      token: gw.adminToken,
      body: { name: 'ro', createdBy: a.ownerId, permissions: ['members.read'] },
    });
    for (const [method, url, body] of [
      ['POST', `/v1/orgs/${a.orgName}/invitations`, { role: 'read' }],
      ['GET', `/v1/orgs/${a.orgName}/invitations`, undefined],
      ['PATCH', `/v1/orgs/${a.orgName}`, { autoJoin: null }],
    ] as const) {
      const r = await gw.call(method, url, { token: readOnly.body.data.key, body });
      expect({ status: r.status, perm: r.body.error.required_permission }).toEqual({
        status: 403,
        perm: 'members.write',
      });
    }
    const byKey = await gw.call('POST', '/v1/invitations/accept', {
      token: a.factoryKey,
      body: { token: 'x'.repeat(43) },
    });
    expect(byKey.status).toBe(401);
    const bad = await invite(a, { role: 'god' });
    expect({ status: bad.status, code: bad.body.error.code }).toEqual({ status: 400, code: 'invalid_request_body' });
  });

  it('sets auto-join (never above write), reads it back, turns it off; every change is audited', async () => {
    for (const body of [
      { autoJoin: { domains: ['acme.test'], role: 'admin' } },
      { autoJoin: { domains: [], role: 'read' } },
      { autoJoin: { domains: ['not a domain'], role: 'read' } },
      { autoJoin: { domains: ['acme.test'] } },
    ]) {
      const r = await gw.call('PATCH', `/v1/orgs/${a.orgName}`, { token: a.managementKey, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    const set = await gw.call('PATCH', `/v1/orgs/${a.orgName}`, {
      token: a.managementKey,
      body: { autoJoin: { domains: ['Acme.test', 'acme.test', 'eu.acme.test'], role: 'write' } },
    });
    expect(set.status).toBe(200);
    expect(set.body.data.autoJoin).toEqual({ domains: ['acme.test', 'eu.acme.test'], role: 'write' });
    const read = await gw.call('GET', `/v1/orgs/${a.orgName}`, { token: a.managementKey });
    expect(read.body.data.autoJoin).toEqual({ domains: ['acme.test', 'eu.acme.test'], role: 'write' });
    expect((await gw.call('GET', `/v1/orgs/${b.orgName}`, { token: b.managementKey })).body.data.autoJoin).toBeNull();
    const off = await gw.call('PATCH', `/v1/orgs/${a.orgName}`, { token: a.managementKey, body: { autoJoin: null } });
    expect(off.body.data.autoJoin).toBeNull();

    const audit = await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log?pageSize=100`, { token: a.managementKey });
    const actions = (audit.body.data as { action_type: string }[]).map((e) => e.action_type);
    // Made before this test: 4 invitations (1, 2, 1 in the tests above), 1 revoked, 2 joins; here 2 auto-join changes.
    expect(actions.filter((x) => x === 'invitation.created')).toHaveLength(4);
    expect(actions.filter((x) => x === 'invitation.revoked')).toHaveLength(1);
    expect(actions.filter((x) => x === 'member.joined')).toHaveLength(2);
    expect(actions.filter((x) => x === 'org.auto_join_changed')).toHaveLength(2);
    const bAudit = await gw.call('GET', `/v1/orgs/${b.orgName}/audit-log?pageSize=100`, { token: b.managementKey });
    expect(bAudit.text).not.toContain('invitation.');
  });

  it('expires after 7 days: refused with the reason, and gone from the list', async () => {
    const made = await invite(a, { role: 'read' });
    gw.clock.advance(7 * DAY);
    const late = await accept(tokenOf(made.body.data.url), (await person()).token);
    expect({ status: late.status, code: late.body.error.code }).toEqual({ status: 410, code: 'invitation_expired' });
    expect((await open(a)).map((i) => i.id)).not.toContain(made.body.data.id);
  });

  it("a dashboard session sees its own org's members and invitations, never another org's", async () => {
    const secret = await invite(b, { email: 'only-b-knows@b.example', role: 'write' });
    expect(secret.status).toBe(201);
    const mine = await invite(a, { email: 'a-invitee@a.example', role: 'read' });
    const signedIn = await gw.call('POST', '/v1/dashboard/session', {
      headers: { 'x-attest-dashboard': '1' },
      body: { loginToken: a.loginToken },
    });
    expect(signedIn.status).toBe(201);
    const session = String(signedIn.headers['set-cookie']).split('attest_session=')[1]!.split(';')[0];
    const cookie = `attest_session=${session}`;
    const asA = (url: string) => gw.call('GET', url, { headers: { cookie } });
    // Its own org: the invitation and the owner are there.
    const own = await asA(`/v1/orgs/${a.orgName}/invitations`);
    expect(own.status).toBe(200);
    expect((own.body.data as { id: string }[]).map((i) => i.id)).toContain(mine.body.data.id);
    const ownMembers = await asA(`/v1/orgs/${a.orgName}/members`);
    expect(ownMembers.status).toBe(200);
    expect((ownMembers.body.data as { userId: string }[]).map((m) => m.userId)).toContain(a.ownerId);
    // b's: refused, and nothing of b in the answer.
    for (const path of ['invitations', 'members']) {
      const r = await asA(`/v1/orgs/${b.orgName}/${path}`);
      expect(r.status, path).toBe(403);
      expect(r.body.error.code, path).toBe('forbidden');
      expect(r.text, path).not.toContain('only-b-knows');
      expect(r.text, path).not.toContain(secret.body.data.id);
      expect(r.text, path).not.toContain(b.ownerId);
    }
    // Nor by the invitation's id through a's path.
    const del = await gw.call('DELETE', `/v1/orgs/${a.orgName}/invitations/${secret.body.data.id}`, {
      headers: { cookie, 'x-attest-dashboard': '1' },
    });
    expect({ status: del.status, code: del.body.error.code }).toEqual({ status: 404, code: 'invitation_not_found' });
    expect((await open(b)).map((i) => i.id)).toContain(secret.body.data.id);
  });
});
