import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

// follow mode answers the version the gateway recommends: its own release, package.json's version.
const VERSION = (
  JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
import { addMember, createTenant, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';

const APP_FIELDS = [
  'created_at',
  'created_by',
  'display_name',
  'id',
  'name',
  'pr_check',
  'pr_check_problem',
  'pr_comment',
  'pr_comment_problem',
  'retention',
  'runner_updates',
  'tenant_id',
  'updated_at',
  'updated_by',
];

describe('apps (factories)', () => {
  let gw: TestGateway;
  let t: Tenant;
  let other: Tenant;
  withGatewayAndTenants((s) => ({ gw, a: t, b: other } = s));

  const as = (tenant: Tenant, kind: 'login' | 'key' = 'login') => ({
    token: kind === 'login' ? tenant.loginToken : tenant.factoryKey,
    appId: tenant.appId,
  });

  async function auditActions(tenant: Tenant): Promise<string[]> {
    const res = await gw.call('GET', `/v1/orgs/${tenant.orgName}/audit-log?pageSize=100`, {
      token: tenant.managementKey,
    });
    expect(res.status).toBe(200);
    return res.body.data.map((r: { action_type: string }) => r.action_type);
  }

  it('reads the factory with exactly the spec fields', async () => {
    const res = await gw.call('GET', `/v1/apps/${t.appId}`, as(t));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(APP_FIELDS);
    expect(res.body.data).toMatchObject({
      id: t.appId,
      tenant_id: t.orgId,
      name: 'main',
      display_name: 'main',
      runner_updates: { mode: 'follow', version: VERSION },
    });
    expect(res.body.data.created_at).toBe('2026-11-01T12:00:00.000Z');
    expect(Object.keys(res.body.data.runner_updates).sort()).toEqual(['mode', 'version']);
  });

  it('creates a factory in the caller org, lists it, and refuses a duplicate name', async () => {
    const created = await gw.call('POST', '/v1/apps', {
      ...as(t),
      body: { name: 'Second', display_name: 'Second factory' },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      tenant_id: t.orgId,
      name: 'second',
      display_name: 'Second factory',
      created_by: t.ownerId,
      updated_by: t.ownerId,
    });
    expect(Object.keys(created.body.data).sort()).toEqual(APP_FIELDS);

    const dup = await gw.call('POST', '/v1/apps', { ...as(t), body: { name: 'SECOND' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('duplicate_app_name');

    // Another org may use the same name.
    const elsewhere = await gw.call('POST', '/v1/apps', { ...as(other), body: { name: 'second' } });
    expect(elsewhere.status).toBe(201);

    const list = await gw.call('GET', '/v1/apps', as(t));
    expect(list.status).toBe(200);
    expect(list.body.data.map((a: { name: string }) => a.name)).toEqual(['main', 'second']);
    expect(list.body.data.every((a: { tenant_id: string }) => a.tenant_id === t.orgId)).toBe(true);

    // A factory key sees only its own factory.
    const byKey = await gw.call('GET', '/v1/apps', as(t, 'key'));
    expect(byKey.status).toBe(200);
    expect(byKey.body.data.map((a: { id: string }) => a.id)).toEqual([t.appId]);

    // The new factory is reachable with the login token naming it.
    const read = await gw.call('GET', `/v1/apps/${created.body.data.id}`, {
      token: t.loginToken,
      appId: created.body.data.id,
    });
    expect(read.status).toBe(200);
    expect(read.body.data.name).toBe('second');
    expect(await auditActions(t)).toContain('app.created');
  });

  it('validates the create body', async () => {
    for (const body of [
      {},
      { name: '' },
      { name: 'has space' },
      { name: 'ok', extra: 1 },
      { name: 'ok', display_name: '' },
    ]) {
      const res = await gw.call('POST', '/v1/apps', { ...as(t), body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request_body');
    }
  });

  it('answers 403 on a path naming a factory other than the one the request acts on', async () => {
    const second = (await gw.call('POST', '/v1/apps', { ...as(t), body: { name: 'third' } })).body.data;
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { display_name: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await gw.call(method, `/v1/apps/${second.id}`, { ...as(t), body });
      expect(res.status, method).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      const byKey = await gw.call(method, `/v1/apps/${second.id}`, { ...as(t, 'key'), body });
      expect(byKey.status, method).toBe(403);
    }
    // Another org's factory: same 403, nothing leaks, nothing changes.
    const cross = await gw.call('PATCH', `/v1/apps/${other.appId}`, { ...as(t), body: { display_name: 'pwned' } });
    expect(cross.status).toBe(403);
    const untouched = await gw.call('GET', `/v1/apps/${other.appId}`, as(other));
    expect(untouched.body.data.display_name).toBe('main');
    // A login token naming a factory of an org its owner is not in: 401.
    const foreign = await gw.call('GET', `/v1/apps/${other.appId}`, { token: t.loginToken, appId: other.appId });
    expect(foreign.status).toBe(401);
    // Still intact.
    expect((await gw.call('GET', `/v1/apps/${second.id}`, { token: t.loginToken, appId: second.id })).status).toBe(200);
  });

  it('refuses missing, wrong-kind and other-factory credentials', async () => {
    const routes: [string, string, unknown][] = [
      ['GET', '/v1/apps', undefined],
      ['POST', '/v1/apps', { name: 'nope' }],
      ['GET', `/v1/apps/${t.appId}`, undefined],
      ['PATCH', `/v1/apps/${t.appId}`, { display_name: 'nope' }],
      ['DELETE', `/v1/apps/${t.appId}`, undefined],
    ];
    for (const [method, url, body] of routes) {
      const none = await gw.call(method as 'GET', url, { appId: t.appId, body });
      expect(none.status, `${method} ${url} none`).toBe(401);
      expect(none.body.error.code).toBe('unauthorized');
      // A management key or the operator token never works on factory endpoints (spec part 5 rule 1).
      for (const token of [t.managementKey, gw.adminToken, 'sk_outerlayer_garbage']) {
        const res = await gw.call(method as 'GET', url, { token, appId: t.appId, body });
        expect(res.status, `${method} ${url} ${token.slice(0, 4)}`).toBe(401);
        expect(res.body.error.code).toBe('unauthorized');
      }
    }
    const still = await gw.call('GET', `/v1/apps/${t.appId}`, as(t));
    expect(still.body.data.display_name).toBe('main');
    expect((await gw.call('GET', '/v1/apps', as(t))).body.data.map((a: { name: string }) => a.name)).not.toContain(
      'nope',
    );
    const noHeader = await gw.call('GET', '/v1/apps', { token: t.loginToken });
    expect(noHeader.status).toBe(400);
    expect(noHeader.body.error.code).toBe('app_id_required');
    expect((await gw.call('GET', '/v1/apps', { token: t.factoryKey })).status).toBe(401);
    // A factory key with another factory's header: 401.
    expect((await gw.call('GET', `/v1/apps/${other.appId}`, { token: t.factoryKey, appId: other.appId })).status).toBe(
      401,
    );
  });

  it('needs apps.read to read and apps.write to change', async () => {
    const ingest = (
      await gw.call('POST', '/v1/api-keys', { ...as(t), body: { name: 'ingest-only', preset: 'ingest' } })
    ).body.data.plaintext_key;
    const read = await gw.call('GET', '/v1/apps', { token: ingest, appId: t.appId });
    expect(read.status).toBe(403);
    expect(read.body.error).toMatchObject({ code: 'forbidden', required_permission: 'apps.read' });
    const readOnly = (await gw.call('POST', '/v1/api-keys', { ...as(t), body: { name: 'ro', preset: 'read-only' } }))
      .body.data.plaintext_key;
    expect((await gw.call('GET', '/v1/apps', { token: readOnly, appId: t.appId })).status).toBe(200);
    for (const [method, url, body] of [
      ['POST', '/v1/apps', { name: 'ro-made' }],
      ['PATCH', `/v1/apps/${t.appId}`, { display_name: 'ro' }],
      ['DELETE', `/v1/apps/${t.appId}`, undefined],
    ] as const) {
      const res = await gw.call(method, url, { token: readOnly, appId: t.appId, body });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.error.required_permission).toBe('apps.write');
    }
    const reader = await addMember(gw, t, 'read');
    expect(
      (
        await gw.call('PATCH', `/v1/apps/${t.appId}`, {
          token: reader.loginToken,
          appId: t.appId,
          body: { display_name: 'r' },
        })
      ).status,
    ).toBe(403);
    expect((await gw.call('GET', `/v1/apps/${t.appId}`, as(t))).body.data.display_name).toBe('main');
  });

  it('patches names and runner updates, with validation', async () => {
    const made = (await gw.call('POST', '/v1/apps', { ...as(t), body: { name: 'patchme' } })).body.data;
    const on = { token: t.loginToken, appId: made.id };
    gw.clock.advance(60_000);
    const pinned = await gw.call('PATCH', `/v1/apps/${made.id}`, {
      ...on,
      body: { display_name: 'Patched', runner_updates: { mode: 'pin', version: '1.4.2' } },
    });
    expect(pinned.status).toBe(200);
    expect(pinned.body.data).toMatchObject({
      id: made.id,
      name: 'patchme',
      display_name: 'Patched',
      runner_updates: { mode: 'pin', version: '1.4.2' },
      created_at: made.created_at,
    });
    expect(Date.parse(pinned.body.data.updated_at)).toBe(Date.parse(made.updated_at) + 60_000);

    const bad = [
      { runner_updates: { mode: 'pin' } },
      { runner_updates: { mode: 'pin', version: 'latest' } },
      { runner_updates: { mode: 'follow', version: '1.0.0' } },
      { runner_updates: { mode: 'sometimes' } },
      { name: 'bad name' },
      { unknown: true },
      {},
    ];
    for (const body of bad) {
      const res = await gw.call('PATCH', `/v1/apps/${made.id}`, { ...on, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request_body');
    }
    // An enum error names the allowed values once, not one "must be equal to constant" per value.
    const mode = await gw.call('PATCH', `/v1/apps/${made.id}`, {
      ...on,
      body: { runner_updates: { mode: 'sometimes' } },
    });
    expect(mode.body.error.details).toEqual([
      { path: 'runner_updates.mode', message: 'must be one of: "follow", "pin"' },
    ]);
    expect(mode.body.error.message).toBe('Invalid body: runner_updates.mode must be one of: "follow", "pin"');
    const follow = await gw.call('PATCH', `/v1/apps/${made.id}`, {
      ...on,
      body: { runner_updates: { mode: 'follow' } },
    });
    // Back to follow: the version is the gateway's recommendation again (a string, as the spec types it).
    expect(follow.body.data.runner_updates).toEqual({ mode: 'follow', version: VERSION });
    expect(typeof follow.body.data.runner_updates.version).toBe('string');

    const clash = await gw.call('PATCH', `/v1/apps/${made.id}`, { ...on, body: { name: 'main' } });
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe('duplicate_app_name');

    const renamed = await gw.call('PATCH', `/v1/apps/${made.id}`, { ...on, body: { name: 'renamed' } });
    expect(renamed.status).toBe(200);
    const back = await gw.call('GET', `/v1/apps/${made.id}`, on);
    expect(back.body.data).toMatchObject({
      name: 'renamed',
      display_name: 'Patched',
      runner_updates: { mode: 'follow', version: VERSION },
    });

    const audit = await gw.call('GET', `/v1/orgs/${t.orgName}/audit-log?actionType=app.updated&pageSize=100`, {
      token: t.managementKey,
    });
    expect(audit.body.data.length).toBeGreaterThanOrEqual(3);
    expect(audit.body.data[0]).toMatchObject({
      target_type: 'app',
      target_id: made.id,
      target_identifier: 'renamed',
      actor_type: 'user',
      actor_id: t.ownerId,
    });
    expect(audit.body.data[0].details_preview).toContain('"name":{"from":"patchme","to":"renamed"}');
  });

  it('turns the living PR comment on and off (pr_comment, off by default, on every read)', async () => {
    const made = (await gw.call('POST', '/v1/apps', { ...as(t), body: { name: 'commenting' } })).body.data;
    expect(made).toMatchObject({ pr_comment: 'off', pr_comment_problem: null });
    const on = { token: t.loginToken, appId: made.id };
    const turned = await gw.call('PATCH', `/v1/apps/${made.id}`, { ...on, body: { pr_comment: 'on' } });
    expect(turned.status).toBe(200);
    expect(turned.body.data.pr_comment).toBe('on');
    expect((await gw.call('GET', `/v1/apps/${made.id}`, on)).body.data.pr_comment).toBe('on');
    expect(
      (await gw.call('GET', '/v1/apps', as(t))).body.data.find((a: { id: string }) => a.id === made.id).pr_comment,
    ).toBe('on');
    // The factory the caller's key is bound to is untouched.
    expect((await gw.call('GET', `/v1/apps/${t.appId}`, as(t))).body.data.pr_comment).toBe('off');
    for (const value of ['yes', true, null, 'ON']) {
      const res = await gw.call('PATCH', `/v1/apps/${made.id}`, { ...on, body: { pr_comment: value } });
      expect(res.status, JSON.stringify(value)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request_body');
    }
    const reader = await addMember(gw, t, 'read');
    expect(
      (
        await gw.call('PATCH', `/v1/apps/${made.id}`, {
          token: reader.loginToken,
          appId: made.id,
          body: { pr_comment: 'off' },
        })
      ).status,
    ).toBe(403);
    const other = await createTenant(gw);
    expect(
      (
        await gw.call('PATCH', `/v1/apps/${made.id}`, {
          token: other.loginToken,
          appId: other.appId,
          body: { pr_comment: 'off' },
        })
      ).status,
    ).toBe(403);
    const off = await gw.call('PATCH', `/v1/apps/${made.id}`, { ...on, body: { pr_comment: 'off' } });
    expect(off.body.data.pr_comment).toBe('off');
    const audit = await gw.call('GET', `/v1/orgs/${t.orgName}/audit-log?actionType=app.updated&pageSize=100`, {
      token: t.managementKey,
    });
    expect(audit.body.data[0].details_preview).toContain('"pr_comment":{"from":"on","to":"off"}');
  });

  it('deletes by tombstone: gone from reads, name freed, keys revoked', async () => {
    const tenant = await createTenant(gw);
    const doomed = (
      await gw.call('POST', '/v1/apps', { token: tenant.loginToken, appId: tenant.appId, body: { name: 'doomed' } })
    ).body.data;
    const on = { token: tenant.loginToken, appId: doomed.id };
    const key = (await gw.call('POST', '/v1/api-keys', { ...on, body: { name: 'k', preset: 'full-access' } })).body.data
      .plaintext_key;
    expect((await gw.call('GET', '/v1/api-keys', { token: key, appId: doomed.id })).status).toBe(200);

    const del = await gw.call('DELETE', `/v1/apps/${doomed.id}`, on);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');

    // Its key is refused at once; the login token no longer reaches it.
    expect((await gw.call('GET', '/v1/api-keys', { token: key, appId: doomed.id })).status).toBe(401);
    expect((await gw.call('GET', `/v1/apps/${doomed.id}`, on)).status).toBe(401);
    const list = await gw.call('GET', '/v1/apps', { token: tenant.loginToken, appId: tenant.appId });
    expect(list.body.data.map((a: { name: string }) => a.name)).toEqual(['main']);
    // The tombstoned row is still stored, with deleted_at, and its credentials are revoked.
    const row = await gw.app.attest.db
      .selectFrom('apps')
      .select(['deleted_at'])
      .where('id', '=', doomed.id)
      .executeTakeFirstOrThrow();
    expect(Number(row.deleted_at)).toBe(gw.clock.now());
    const live = await gw.app.attest.db
      .selectFrom('credentials')
      .select('id')
      .where('app_id', '=', doomed.id)
      .where('revoked_at', 'is', null)
      .execute();
    expect(live).toEqual([]);
    // The name is free again.
    expect(
      (await gw.call('POST', '/v1/apps', { token: tenant.loginToken, appId: tenant.appId, body: { name: 'doomed' } }))
        .status,
    ).toBe(201);
    const audit = await gw.call('GET', `/v1/orgs/${tenant.orgName}/audit-log?actionType=app.deleted`, {
      token: tenant.managementKey,
    });
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({ target_id: doomed.id, target_identifier: 'doomed' });
    // The other factory of the org is untouched.
    expect((await gw.call('GET', '/v1/api-keys', { token: tenant.factoryKey, appId: tenant.appId })).status).toBe(200);
  });

  it('rejects a malformed appId path', async () => {
    const res = await gw.call('GET', '/v1/apps/not-a-uuid', as(t));
    expect(res.status).toBe(403);
  });
});
