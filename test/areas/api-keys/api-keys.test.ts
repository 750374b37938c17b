// API Keys area: GET/POST /v1/api-keys, DELETE /v1/api-keys/{id}.
import { describe, expect, it } from 'vitest';
import { ROLE_PERMISSIONS } from '../../../src/server/permissions.js';
import { addMember, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { holdRows } from '../../helpers/row-lock.js';

describe('api keys', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s));

  const as = (t: Tenant, token = t.loginToken) => ({ token, appId: t.appId });

  it('creates a key from a preset and returns the plaintext exactly once', async () => {
    const r = await gw.call('POST', '/v1/api-keys', { ...as(a), body: { name: 'ci-ingest', preset: 'ingest' } });
    expect(r.status).toBe(201);
    const key = r.body.data;
    expect(key.plaintext_key).toMatch(/^sk_outerlayer_[0-9A-Za-z]{42}$/);
    expect(key.permissions.sort()).toEqual([
      'artifacts.write',
      'context.write',
      'hosts.write',
      'results.write',
      'sessions.write',
      'work.read',
    ]);
    expect(key.key_prefix).toBe(key.plaintext_key.slice(0, 18));
    expect(key.created_by).toBe(a.ownerId);
    const list = await gw.call('GET', '/v1/api-keys', as(a));
    const listed = list.body.data.find((k: { id: string }) => k.id === key.id);
    expect(listed).toMatchObject({ id: key.id, name: 'ci-ingest', key_prefix: key.key_prefix, expires_at: null });
    expect(listed).not.toHaveProperty('plaintext_key');
    expect(list.text).not.toContain(key.plaintext_key);
    // The stored row holds a digest, never the plaintext.
    const row = await gw.app.attest.db
      .selectFrom('credentials')
      .selectAll()
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(key.plaintext_key);
  });

  it("read-only preset: every *.read a write role has; full-access: the creator's own", async () => {
    const ro = (await gw.call('POST', '/v1/api-keys', { ...as(a), body: { name: 'dash', preset: 'read-only' } })).body
      .data;
    expect(ro.permissions.sort()).toEqual(ROLE_PERMISSIONS.write.filter((p) => p.endsWith('.read')).sort());
    const writer = await addMember(gw, a, 'write');
    // A write member lacks api_keys.write, so cannot mint at all.
    const denied = await gw.call('POST', '/v1/api-keys', { ...as(a, writer.loginToken), body: { name: 'w' } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.required_permission).toBe('api_keys.write');
    const full = (await gw.call('POST', '/v1/api-keys', { ...as(a), body: { name: 'all', preset: 'full-access' } }))
      .body.data;
    expect(full.permissions.sort()).toEqual([...ROLE_PERMISSIONS.owner].sort());
  });

  it('an explicit permission subset; no preset and no list means read-only', async () => {
    const sub = await gw.call('POST', '/v1/api-keys', {
      ...as(a),
      body: { name: 'subset', permissions: ['sessions.read', 'metrics.read'] },
    });
    expect(sub.status).toBe(201);
    expect(sub.body.data.permissions.sort()).toEqual(['metrics.read', 'sessions.read']);
    const dflt = await gw.call('POST', '/v1/api-keys', { ...as(a), body: { name: 'default' } });
    expect(dflt.body.data.permissions).not.toContain('sessions.write');
    expect(dflt.body.data.permissions).toContain('sessions.read');
  });

  it('a key cannot be granted a permission its creator lacks', async () => {
    const limited = (
      await gw.call('POST', '/v1/api-keys', {
        ...as(a),
        body: { name: 'minter', permissions: ['api_keys.write', 'sessions.read'] },
      })
    ).body.data;
    const r = await gw.call('POST', '/v1/api-keys', {
      ...as(a, limited.plaintext_key),
      body: { name: 'escalated', permissions: ['sessions.write'] },
    });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'forbidden', required_permission: 'sessions.write' });
    const ok = await gw.call('POST', '/v1/api-keys', {
      ...as(a, limited.plaintext_key),
      body: { name: 'narrower', permissions: ['sessions.read'] },
    });
    expect(ok.status).toBe(201);
  });

  it('names are unique per factory (409) but may repeat across factories and after revocation', async () => {
    const first = await gw.call('POST', '/v1/api-keys', { ...as(a), body: { name: 'dup' } });
    expect(first.status).toBe(201);
    const dup = await gw.call('POST', '/v1/api-keys', { ...as(a), body: { name: 'dup' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('duplicate_api_key_name');
    expect((await gw.call('POST', '/v1/api-keys', { ...as(b), body: { name: 'dup' } })).status).toBe(201);
    await gw.call('DELETE', `/v1/api-keys/${first.body.data.id}`, as(a));
    expect((await gw.call('POST', '/v1/api-keys', { ...as(a), body: { name: 'dup' } })).status).toBe(201);
  });

  it('rejects bad bodies with 400', async () => {
    const bodies = [
      {},
      { name: '' },
      { name: 'x', preset: 'god-mode' },
      { name: 'x', permissions: ['not.a.permission'] },
      { name: 'x', permissions: [] },
      { name: 'x', preset: 'ingest', permissions: ['sessions.read'] },
      { name: 'x', expiresAt: 'tomorrow' },
      { name: 'x', expiresAt: '2000-01-01T00:00:00Z' },
      { name: 'x', unknown: true },
    ];
    for (const body of bodies) {
      const r = await gw.call('POST', '/v1/api-keys', { ...as(a), body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code, JSON.stringify(body)).toBe('invalid_request_body');
    }
  });

  it('revokes: 204, then the key is refused and no longer listed; unknown or already revoked → 404', async () => {
    const k = (await gw.call('POST', '/v1/api-keys', { ...as(a), body: { name: 'to-revoke' } })).body.data;
    expect((await gw.call('DELETE', `/v1/api-keys/${k.id}`, as(a))).status).toBe(204);
    expect((await gw.call('GET', '/v1/api-keys', as(a, k.plaintext_key))).status).toBe(401);
    const list = await gw.call('GET', '/v1/api-keys', as(a));
    expect(list.body.data.map((x: { id: string }) => x.id)).not.toContain(k.id);
    const again = await gw.call('DELETE', `/v1/api-keys/${k.id}`, as(a));
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('api_key_not_found');
    const bad = await gw.call('DELETE', '/v1/api-keys/not-a-uuid', as(a));
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_path_params');
  });

  it('two revokes of one key at once: one 204, the other 404, one audit row', async () => {
    const k = (await gw.call('POST', '/v1/api-keys', { ...as(a), body: { name: 'revoked-twice' } })).body.data;
    // PostgreSQL: hold the key's row until both revokes have read it live and wait to update it.
    const hold = await holdRows(gw, (schema) => [
      [`select 1 from "${schema}".credentials where id = $1 for update`, [k.id]],
    ]);
    const pending = Promise.all([
      gw.call('DELETE', `/v1/api-keys/${k.id}`, as(a)),
      gw.call('DELETE', `/v1/api-keys/${k.id}`, as(a)),
    ]);
    await hold?.waiters(2, 'credentials');
    await hold?.release();
    const answers = await pending;
    expect(answers.map((r) => r.status).sort()).toEqual([204, 404]);
    const rows = await gw.app.attest.db
      .selectFrom('audit_log')
      .select('action_type')
      .where('org_id', '=', a.orgId)
      .where('target_id', '=', k.id)
      .where('action_type', '=', 'api_key.revoked')
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('writes api_key.created and api_key.revoked audit rows', async () => {
    const k = (await gw.call('POST', '/v1/api-keys', { ...as(a), body: { name: 'audited' } })).body.data;
    await gw.call('DELETE', `/v1/api-keys/${k.id}`, as(a));
    const rows = await gw.app.attest.db
      .selectFrom('audit_log')
      .select(['action_type', 'target_id', 'actor_type'])
      .where('org_id', '=', a.orgId)
      .where('target_id', '=', k.id)
      .orderBy('seq')
      .execute();
    expect(rows.map((r) => r.action_type)).toEqual(['api_key.created', 'api_key.revoked']);
    expect(rows[0]!.actor_type).toBe('user');
  });

  it("another factory's credential sees nothing and changes nothing", async () => {
    const k = (await gw.call('POST', '/v1/api-keys', { ...as(a), body: { name: 'private' } })).body.data;
    const listB = await gw.call('GET', '/v1/api-keys', { token: b.factoryKey, appId: b.appId });
    expect(listB.status).toBe(200);
    expect(listB.text).not.toContain(k.id);
    expect(listB.text).not.toContain('private');
    const del = await gw.call('DELETE', `/v1/api-keys/${k.id}`, { token: b.factoryKey, appId: b.appId });
    expect(del.status).toBe(404);
    expect((await gw.call('GET', '/v1/api-keys', as(a, k.plaintext_key))).status).toBe(200);
    // B's key naming A's factory: 401.
    expect((await gw.call('GET', '/v1/api-keys', { token: b.factoryKey, appId: a.appId })).status).toBe(401);
  });

  it('missing or wrong credential: 401', async () => {
    expect((await gw.call('GET', '/v1/api-keys', { appId: a.appId })).status).toBe(401);
    expect((await gw.call('POST', '/v1/api-keys', { appId: a.appId, body: { name: 'x' } })).status).toBe(401);
    expect(
      (await gw.call('DELETE', '/v1/api-keys/00000000-0000-4000-8000-000000000000', { appId: a.appId })).status,
    ).toBe(401);
    expect((await gw.call('GET', '/v1/api-keys', { token: a.managementKey, appId: a.appId })).status).toBe(401);
  });
});
