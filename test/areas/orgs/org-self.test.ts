// GET /v1/orgs/{org}: the plan, and the caller's role and permissions (for the dashboard's organization page).
import { describe, expect, it } from 'vitest';
import { addMember, type CallResult, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { ROLE_PERMISSIONS } from '../../../src/server/permissions.js';

const DASH = { 'x-attest-dashboard': '1' };

function cookieFrom(r: CallResult): string {
  const raw = r.headers['set-cookie'];
  const m = /^attest_session=([^;]*)/.exec(String((Array.isArray(raw) ? raw[0] : raw) ?? ''));
  if (!m) throw new Error(`no session cookie in ${r.status}`);
  return m[1]!;
}

describe('GET /v1/orgs/{org}', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  const session = async (loginToken: string) => {
    const r = await gw.call('POST', '/v1/dashboard/session', { body: { loginToken }, headers: DASH });
    expect(r.status).toBe(201);
    return { cookie: `attest_session=${cookieFrom(r)}`, ...DASH };
  };

  withGatewayAndTenants((s) => ({ gw, a, b } = s), { a: { plan: 'paid' }, b: { plan: 'free' } });

  it("answers the plan and the owner's role and permissions to a dashboard session", async () => {
    const r = await gw.call('GET', `/v1/orgs/${a.orgName}`, { headers: await session(a.loginToken) });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: a.orgId, name: a.orgName, plan: 'paid', role: 'owner' });
    expect(r.body.data.permissions).toEqual([...ROLE_PERMISSIONS.owner].sort());
  });

  it('a read member sees its own narrower permissions', async () => {
    const reader = await addMember(gw, a, 'read');
    const r = await gw.call('GET', `/v1/orgs/${a.orgName}`, { headers: await session(reader.loginToken) });
    expect(r.status).toBe(200);
    expect(r.body.data.role).toBe('read');
    expect(r.body.data.permissions).toEqual([
      'apps.read',
      'artifacts.read',
      'budgets.read',
      'context.read',
      'findings.read',
      'hosts.read',
      'members.read',
      'metrics.read',
      'notifications.read',
      'prs.read',
      'repositories.read',
      'results.read',
      'sessions.read',
      'work.read',
    ]);
    expect(r.body.data.permissions).not.toContain('api_keys.write');
  });

  it('a management key: no role, its permission list', async () => {
    const r = await gw.call('GET', `/v1/orgs/${a.orgName}`, { token: a.managementKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      name: a.orgName,
      plan: 'paid',
      role: null,
      permissions: ['audit.read', 'members.read', 'members.write'],
    });
  });

  it('another org, no credential, a factory key: refused', async () => {
    const other = await gw.call('GET', `/v1/orgs/${b.orgName}`, { headers: await session(a.loginToken) });
    expect(other.status).toBe(403);
    expect(other.text).not.toContain('free');
    const otherKey = await gw.call('GET', `/v1/orgs/${a.orgName}`, { token: b.managementKey });
    expect(otherKey.status).toBe(403);
    const none = await gw.call('GET', `/v1/orgs/${a.orgName}`);
    expect(none.status).toBe(401);
    const factoryKey = await gw.call('GET', `/v1/orgs/${a.orgName}`, { token: a.factoryKey });
    expect(factoryKey.status).toBe(401);
  });
});
