// Spec part 5, rules 1–10, each with its own test, through the real server.
import { describe, expect, it } from 'vitest';
import { mintPlaintext } from '../../src/server/credentials.js';
import { addMember, startGateway, type Tenant, type TestGateway } from '../helpers/gateway.js';
import { withGatewayAndTenants } from '../helpers/gateway-fixture.js';
import { probeArea } from '../helpers/probe.js';

describe('authentication rules (spec part 5)', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s), { gateway: { extraAreas: [probeArea] } });

  const expect401 = (r: { status: number; body: { error: { code: string } } }) => {
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthorized');
  };

  describe('missing, malformed and unknown credentials', () => {
    it('no Authorization header → 401 unauthorized', async () => {
      expect401(await gw.call('GET', '/v1/api-keys', { appId: a.appId }));
    });
    it('a non-Bearer scheme → 401', async () => {
      expect401(
        await gw.call('GET', '/v1/api-keys', { appId: a.appId, headers: { authorization: `Basic ${a.factoryKey}` } }),
      );
    });
    it('a checksum mismatch → 401', async () => {
      const bad = a.factoryKey.slice(0, -1) + (a.factoryKey.endsWith('A') ? 'B' : 'A');
      expect401(await gw.call('GET', '/v1/api-keys', { token: bad, appId: a.appId }));
    });
    it('a well-formed key the gateway never issued → 401, the same answer as a revoked one', async () => {
      const r = await gw.call('GET', '/v1/api-keys', { token: mintPlaintext('factory_key'), appId: a.appId });
      expect401(r);
      expect(r.text).not.toContain('sk_outerlayer_');
    });
  });

  it('rule 1: a factory key never works on /v1/orgs/...; a management key never on factory endpoints', async () => {
    expect401(await gw.call('GET', `/v1/orgs/${a.orgName}/probe`, { token: a.factoryKey, appId: a.appId }));
    expect401(await gw.call('GET', '/v1/api-keys', { token: a.managementKey, appId: a.appId }));
    const ok = await gw.call('GET', `/v1/orgs/${a.orgName}/probe`, { token: a.managementKey });
    expect(ok.status).toBe(200);
    expect(ok.body.data.orgId).toBe(a.orgId);
  });

  it('rule 2: the factory header is X-Outerlayer-App-Id; the unbranded X-Service-App-Id is not read', async () => {
    expect((await gw.call('GET', '/v1/api-keys', { token: a.factoryKey, appId: a.appId })).status).toBe(200);
    expect401(await gw.call('GET', '/v1/api-keys', { token: a.factoryKey, headers: { 'x-service-app-id': a.appId } }));
  });

  it('rule 3: without the header a factory key gets 401 and a login token 400 app_id_required', async () => {
    expect401(await gw.call('GET', '/v1/api-keys', { token: a.factoryKey }));
    const login = await gw.call('GET', '/v1/api-keys', { token: a.loginToken });
    expect(login.status).toBe(400);
    expect(login.body.error.code).toBe('app_id_required');
  });

  it('a malformed factory header → 400 invalid_app_id', async () => {
    const r = await gw.call('GET', '/v1/api-keys', { token: a.loginToken, appId: 'not-a-uuid' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_app_id');
  });

  it("rule 4: a login token acts only on the header's factory; a path naming another factory answers 403", async () => {
    const own = await gw.call('GET', `/v1/probe/apps/${a.appId}`, { token: a.loginToken, appId: a.appId });
    expect(own.status).toBe(200);
    const other = await gw.call('GET', `/v1/probe/apps/${b.appId}`, { token: a.loginToken, appId: a.appId });
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('forbidden');
    // The same holds for a factory key.
    expect((await gw.call('GET', `/v1/probe/apps/${b.appId}`, { token: a.factoryKey, appId: a.appId })).status).toBe(
      403,
    );
    // A login token naming a factory of an org its owner is not in: 401.
    expect401(await gw.call('GET', '/v1/api-keys', { token: a.loginToken, appId: b.appId }));
  });

  it('rule 5: the header may be left out on /v1/orgs/... with a management key', async () => {
    expect((await gw.call('GET', `/v1/orgs/${a.orgName}/probe`, { token: a.managementKey })).status).toBe(200);
  });

  it("a management key of another org gets 403 on this org's path and sees nothing", async () => {
    const r = await gw.call('GET', `/v1/orgs/${a.orgName}/probe`, { token: b.managementKey });
    expect(r.status).toBe(403);
    expect(r.text).not.toContain(a.orgId);
  });

  it('rule 6: a header naming a factory the key does not belong to answers 401', async () => {
    expect401(await gw.call('GET', '/v1/api-keys', { token: a.factoryKey, appId: b.appId }));
    expect401(
      await gw.call('GET', '/v1/api-keys', { token: a.factoryKey, appId: '00000000-0000-4000-8000-000000000000' }),
    );
  });

  it('rule 7: a deleted key is refused at once on the node that deleted it', async () => {
    const created = await gw.call('POST', '/v1/api-keys', {
      token: a.loginToken,
      appId: a.appId,
      body: { name: 'short-lived', preset: 'read-only' },
    });
    const key = created.body.data.plaintext_key as string;
    expect((await gw.call('GET', '/v1/api-keys', { token: key, appId: a.appId })).status).toBe(200);
    const del = await gw.call('DELETE', `/v1/api-keys/${created.body.data.id}`, {
      token: a.loginToken,
      appId: a.appId,
    });
    expect(del.status).toBe(204);
    expect401(await gw.call('GET', '/v1/api-keys', { token: key, appId: a.appId }));
  });

  it('rule 7: another replica refuses a deleted key within 5 seconds', async () => {
    const replica = await startGateway({ replicaOf: gw });
    try {
      const created = await gw.call('POST', '/v1/api-keys', {
        token: a.loginToken,
        appId: a.appId,
        body: { name: 'replicated', preset: 'read-only' },
      });
      const key = created.body.data.plaintext_key as string;
      // now cached on the replica
      expect((await replica.call('GET', '/v1/api-keys', { token: key, appId: a.appId })).status).toBe(200);
      await gw.call('DELETE', `/v1/api-keys/${created.body.data.id}`, { token: a.loginToken, appId: a.appId });
      gw.clock.advance(5000);
      expect401(await replica.call('GET', '/v1/api-keys', { token: key, appId: a.appId }));
    } finally {
      await replica.close();
    }
  });

  it('rule 8: a key whose creator has left the organization answers 403 creator_not_member', async () => {
    const member = await addMember(gw, a, 'admin');
    const created = await gw.call('POST', '/v1/api-keys', {
      token: member.loginToken,
      appId: a.appId,
      body: { name: 'leaver-key', preset: 'read-only' },
    });
    expect(created.status).toBe(201);
    const key = created.body.data.plaintext_key as string;
    expect((await gw.call('GET', '/v1/api-keys', { token: key, appId: a.appId })).status).toBe(200);
    const removed = await gw.call('DELETE', `/v1/admin/orgs/${a.orgName}/members/${member.userId}`, {
      token: gw.adminToken,
    });
    expect(removed.status).toBe(204);
    const after = await gw.call('GET', '/v1/api-keys', { token: key, appId: a.appId });
    expect(after.status).toBe(403);
    expect(after.body.error.code).toBe('creator_not_member');
    // The leaver's own login token no longer reaches the org's factories.
    expect401(await gw.call('GET', '/v1/api-keys', { token: member.loginToken, appId: a.appId }));
  });

  it('rule 8: a management key whose creator has left answers 403 creator_not_member', async () => {
    const member = await addMember(gw, a, 'admin');
    const mk = await gw.call('POST', `/v1/admin/orgs/${a.orgName}/management-keys`, {
      token: gw.adminToken,
      body: { name: 'mk-leaver', createdBy: member.userId, permissions: ['members.read'] },
    });
    expect(mk.status).toBe(201);
    expect((await gw.call('GET', `/v1/orgs/${a.orgName}/probe`, { token: mk.body.data.key })).status).toBe(200);
    await gw.call('DELETE', `/v1/admin/orgs/${a.orgName}/members/${member.userId}`, { token: gw.adminToken });
    const after = await gw.call('GET', `/v1/orgs/${a.orgName}/probe`, { token: mk.body.data.key });
    expect(after.status).toBe(403);
    expect(after.body.error.code).toBe('creator_not_member');
  });

  it('rule 9: GET /health needs no credential', async () => {
    const r = await gw.call('GET', '/health');
    expect(r.status).toBe(200);
    expect(r.body.data.status).toBe('ok');
  });

  it('rule 10: a credential without the permission answers 403 with required_permission', async () => {
    const ro = await gw.call('POST', '/v1/api-keys', {
      token: a.loginToken,
      appId: a.appId,
      body: { name: 'ro', preset: 'read-only' },
    });
    const r = await gw.call('POST', '/v1/api-keys', {
      token: ro.body.data.plaintext_key,
      appId: a.appId,
      body: { name: 'escalate' },
    });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'forbidden', required_permission: 'api_keys.write' });
    // A read member's login token lacks api_keys.read.
    const reader = await addMember(gw, a, 'read');
    const list = await gw.call('GET', '/v1/api-keys', { token: reader.loginToken, appId: a.appId });
    expect(list.status).toBe(403);
    expect(list.body.error.required_permission).toBe('api_keys.read');
  });

  it('an expired key is refused with the same 401', async () => {
    const expiresAt = new Date(gw.clock.now() + 60_000).toISOString();
    const created = await gw.call('POST', '/v1/api-keys', {
      token: a.loginToken,
      appId: a.appId,
      body: { name: 'expiring', preset: 'read-only', expiresAt },
    });
    expect(created.status).toBe(201);
    const key = created.body.data.plaintext_key as string;
    expect((await gw.call('GET', '/v1/api-keys', { token: key, appId: a.appId })).status).toBe(200);
    gw.clock.advance(61_000);
    expect401(await gw.call('GET', '/v1/api-keys', { token: key, appId: a.appId }));
  });

  it('an admin token works only on /v1/admin/*; other kinds get 401 there', async () => {
    expect401(await gw.call('GET', '/v1/api-keys', { token: gw.adminToken, appId: a.appId }));
    expect401(await gw.call('POST', '/v1/admin/orgs', { token: a.loginToken, body: { name: 'nope', plan: 'free' } }));
    expect401(
      await gw.call('POST', '/v1/admin/orgs', {
        token: a.factoryKey,
        appId: a.appId,
        body: { name: 'nope', plan: 'free' },
      }),
    );
    expect401(
      await gw.call('POST', '/v1/admin/orgs', { token: a.managementKey, body: { name: 'nope', plan: 'free' } }),
    );
  });
});
