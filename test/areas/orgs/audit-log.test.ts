import { describe, expect, it } from 'vitest';
import { createTenant, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';

const ENTRY_FIELDS = [
  'action_type',
  'actor_email',
  'actor_id',
  'actor_label',
  'actor_name',
  'actor_type',
  'created_at',
  'details_preview',
  'id',
  'target_id',
  'target_identifier',
  'target_type',
];

describe('org audit log', () => {
  let gw: TestGateway;
  let t: Tenant;
  let other: Tenant;
  withGatewayAndTenants((s) => ({ gw, a: t, b: other } = s));

  const log = (tenant: Tenant, query = '', token = tenant.managementKey) =>
    gw.call('GET', `/v1/orgs/${tenant.orgName}/audit-log${query}`, { token });

  it('records every change made through the API, newest first, with the spec fields', async () => {
    const tenant = await createTenant(gw);
    const on = { token: tenant.loginToken, appId: tenant.appId };
    gw.clock.advance(1000);
    const key = (await gw.call('POST', '/v1/api-keys', { ...on, body: { name: 'ci', preset: 'ingest' } })).body.data;
    gw.clock.advance(1000);
    expect((await gw.call('DELETE', `/v1/api-keys/${key.id}`, on)).status).toBe(204);
    gw.clock.advance(1000);
    const app = (await gw.call('POST', '/v1/apps', { ...on, body: { name: 'audited' } })).body.data;
    gw.clock.advance(1000);
    await gw.call('PATCH', `/v1/apps/${app.id}`, {
      token: tenant.loginToken,
      appId: app.id,
      body: { display_name: 'Audited' },
    });
    gw.clock.advance(1000);
    await gw.call('DELETE', `/v1/apps/${app.id}`, { token: tenant.loginToken, appId: app.id });
    gw.clock.advance(1000);
    // A permission denial (a read-only key trying to write) is recorded too.
    const ro = (await gw.call('POST', '/v1/api-keys', { ...on, body: { name: 'ro', preset: 'read-only' } })).body.data
      .plaintext_key;
    gw.clock.advance(1000);
    expect((await gw.call('POST', '/v1/apps', { token: ro, appId: tenant.appId, body: { name: 'nope' } })).status).toBe(
      403,
    );
    gw.clock.advance(1000);
    expect(
      (
        await gw.call('PATCH', `/v1/admin/orgs/${tenant.orgName}`, {
          token: gw.adminToken,
          body: { plan: 'enterprise' },
        })
      ).status,
    ).toBe(200);

    const res = await log(tenant, '?pageSize=100');
    expect(res.status).toBe(200);
    const actions = res.body.data.map((r: { action_type: string }) => r.action_type);
    expect(actions).toEqual([
      'org.plan_changed',
      'permission.denied',
      'api_key.created',
      'app.deleted',
      'app.updated',
      'app.created',
      'api_key.revoked',
      'api_key.created',
      'management_key.created',
      'api_key.created',
      'app.created',
      'member.added',
      'org.created',
    ]);
    for (const row of res.body.data) expect(Object.keys(row).sort()).toEqual(ENTRY_FIELDS);
    const times = res.body.data.map((r: { created_at: string }) => Date.parse(r.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const denial = res.body.data[1];
    expect(denial).toMatchObject({
      actor_type: 'api_key',
      actor_label: 'ro',
      target_type: 'app',
      target_id: tenant.appId,
      target_identifier: 'POST /v1/apps',
    });
    expect(JSON.parse(denial.details_preview)).toEqual({ required_permission: 'apps.write' });
    const revoked = res.body.data[6];
    expect(revoked).toMatchObject({
      target_type: 'api_key',
      target_id: key.id,
      target_identifier: 'ci',
      actor_type: 'user',
      actor_id: tenant.ownerId,
    });
    expect(revoked.actor_email).toMatch(/^owner-.*@example\.com$/);
    expect(res.body.data[0]).toMatchObject({ actor_type: 'admin', target_type: 'org', target_id: tenant.orgId });
    expect(JSON.parse(res.body.data[0].details_preview)).toEqual({ from: 'enterprise', to: 'enterprise' });
    expect(res.body.pagination).toEqual({ page: 1, pageSize: 100, total: 13, totalPages: 1 });
  });

  it('pages and filters with the six query parameters', async () => {
    const tenant = await createTenant(gw);
    const on = { token: tenant.loginToken, appId: tenant.appId };
    // createTenant wrote 5 rows at the start instant; add 7 app.created rows, one a day.
    const start = gw.clock.now();
    for (let i = 0; i < 7; i++) {
      gw.clock.advance(86_400_000);
      expect((await gw.call('POST', '/v1/apps', { ...on, body: { name: `day-${i}` } })).status).toBe(201);
    }
    const all = await log(tenant);
    expect(all.body.pagination).toEqual({ page: 1, pageSize: 25, total: 12, totalPages: 1 });

    const p1 = await log(tenant, '?page=1&pageSize=5');
    const p3 = await log(tenant, '?page=3&pageSize=5');
    expect(p1.body.pagination).toEqual({ page: 1, pageSize: 5, total: 12, totalPages: 3 });
    expect(p1.body.data.map((r: { target_identifier: string }) => r.target_identifier)).toEqual([
      'day-6',
      'day-5',
      'day-4',
      'day-3',
      'day-2',
    ]);
    expect(p3.body.data).toHaveLength(2);
    expect(p3.body.data[1].action_type).toBe('org.created');
    const beyond = await log(tenant, '?page=9&pageSize=5');
    expect(beyond.status).toBe(200);
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.pagination).toEqual({ page: 9, pageSize: 5, total: 12, totalPages: 3 });
    const far = await log(tenant, '?page=10000&pageSize=100');
    expect(far.status).toBe(200);
    expect(far.body.data).toEqual([]);
    // Pages are bounded (schemas.ts Page: 1..10000); beyond it, or not finite, is a 400 (issue 19).
    const absurd = await log(tenant, '?page=900000000000000000&pageSize=100');
    expect(absurd.status).toBe(400);
    expect(absurd.body.error.code).toBe('invalid_query_params');

    const created = await log(tenant, '?actionType=app.created');
    expect(created.body.pagination.total).toBe(8); // 'main' plus 7
    const keys = await log(tenant, '?targetType=api_key');
    expect(keys.body.data.map((r: { action_type: string }) => r.action_type)).toEqual(['api_key.created']);
    const none = await log(tenant, '?actionType=no.such');
    expect(none.body).toEqual({ data: [], pagination: { page: 1, pageSize: 25, total: 0, totalPages: 0 } });

    const day = (n: number) => new Date(start + n * 86_400_000).toISOString().slice(0, 10);
    // A bare endDate covers its whole day; a bare startDate starts at midnight UTC.
    const window = await log(tenant, `?startDate=${day(2)}&endDate=${day(4)}`);
    expect(window.body.data.map((r: { target_identifier: string }) => r.target_identifier)).toEqual([
      'day-3',
      'day-2',
      'day-1',
    ]);
    const instant = new Date(start + 3 * 86_400_000).toISOString(); // exactly when day-2 was created
    const fromInstant = await log(tenant, `?startDate=${instant}&actionType=app.created`);
    expect(fromInstant.body.data.map((r: { target_identifier: string }) => r.target_identifier)).toEqual([
      'day-6',
      'day-5',
      'day-4',
      'day-3',
      'day-2',
    ]);
    const untilNoZ = await log(tenant, `?endDate=${instant.replace(/\.\d+Z$/, '')}&actionType=app.created`);
    expect(untilNoZ.body.pagination.total).toBe(4); // main, day-0, day-1, day-2
    const fraction = await log(tenant, `?endDate=${instant.replace(/\.\d+Z$/, '.5Z')}&actionType=app.created`);
    expect(fraction.body.pagination.total).toBe(4);
  });

  it('answers 400 on each query constraint', async () => {
    const bad = [
      'page=0',
      'page=-1',
      'page=abc',
      'pageSize=0',
      'pageSize=101',
      'pageSize=2.5',
      'actionType=',
      'targetType=',
      'startDate=2026-11-01Z',
      'startDate=2026-11-01T12:00',
      'startDate=2026-11-01T12:00:00.1234Z',
      'startDate=2026-11-01T12:00:00%2B01:00',
      'endDate=20261101',
      'endDate=yesterday',
      'endDate=2026-11-01%2012:00:00',
      'endDate=2026-02-30',
      'startDate=2026-11-01T25:00:00Z',
      'cursor=abc',
    ];
    for (const q of bad) {
      const res = await log(t, `?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code, q).toBe('invalid_query_params');
    }
    const good = [
      'startDate=2026-11-01',
      'startDate=2026-11-01T12:00:00',
      'startDate=2026-11-01T12:00:00Z',
      'startDate=2026-11-01T12:00:00.1',
      'endDate=2026-11-01T12:00:00.123Z',
      'pageSize=1',
      'pageSize=100',
    ];
    for (const q of good) expect((await log(t, `?${q}`)).status, q).toBe(200);
    const reversed = await log(t, '?startDate=2026-11-02&endDate=2026-11-01');
    expect(reversed.status).toBe(400);
    expect(reversed.body.error.code).toBe('invalid_date_range');
  });

  it('answers 402 entitlement_required without the enterprise plan', async () => {
    const free = await createTenant(gw, { plan: 'free' });
    for (const url of ['audit-log', 'audit-log/verify']) {
      const res = await gw.call('GET', `/v1/orgs/${free.orgName}/${url}`, { token: free.managementKey });
      expect(res.status, url).toBe(402);
      expect(res.body.error).toEqual({
        code: 'entitlement_required',
        message: expect.any(String),
        entitlement: 'audit_log',
        current: 'free',
        limit: 'enterprise',
      });
    }
    const paid = await createTenant(gw, { plan: 'paid' });
    expect((await log(paid)).body.error.current).toBe('paid');
    // The plan change applies to the next request, and the change itself is in the log.
    expect(
      (await gw.call('PATCH', `/v1/admin/orgs/${free.orgName}`, { token: gw.adminToken, body: { plan: 'enterprise' } }))
        .status,
    ).toBe(200);
    const now = await log(free);
    expect(now.status).toBe(200);
    expect(now.body.data[0]).toMatchObject({ action_type: 'org.plan_changed' });
    expect(JSON.parse(now.body.data[0].details_preview)).toEqual({ from: 'free', to: 'enterprise' });
  });

  it('needs audit.read and a management key of this org', async () => {
    const membersOnly = (
      await gw.call('POST', `/v1/admin/orgs/${t.orgName}/management-keys`, {
        token: gw.adminToken,
        body: { name: 'members-only', createdBy: t.ownerId, permissions: ['members.read'] },
      })
    ).body.data.key;
    for (const url of ['audit-log', 'audit-log/verify']) {
      const denied = await gw.call('GET', `/v1/orgs/${t.orgName}/${url}`, { token: membersOnly });
      expect(denied.status).toBe(403);
      expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'audit.read' });
      expect((await gw.call('GET', `/v1/orgs/${t.orgName}/${url}`)).status).toBe(401);
      for (const token of [t.factoryKey, t.loginToken, gw.adminToken]) {
        const res = await gw.call('GET', `/v1/orgs/${t.orgName}/${url}`, { token, appId: t.appId });
        expect(res.status, `${url} ${token.slice(0, 4)}`).toBe(401);
      }
      const foreign = await gw.call('GET', `/v1/orgs/${t.orgName}/${url}`, { token: other.managementKey });
      expect(foreign.status).toBe(403);
      expect(foreign.body.error.code).toBe('forbidden');
    }
    const denials = await log(t, '?actionType=permission.denied');
    expect(denials.body.data[0]).toMatchObject({
      actor_type: 'management_key',
      actor_label: 'members-only',
      target_type: 'org',
      target_id: t.orgId,
    });
    // Another org's log holds only its own rows.
    const others = await log(other, '?pageSize=100');
    expect(
      others.body.data.every((r: { target_id: string }) => r.target_id !== t.orgId && r.target_id !== t.appId),
    ).toBe(true);
  });

  it('verifies the hash chain and catches a row edited or deleted in the database', async () => {
    const tenant = await createTenant(gw);
    const on = { token: tenant.loginToken, appId: tenant.appId };
    for (let i = 0; i < 3; i++) await gw.call('POST', '/v1/apps', { ...on, body: { name: `chain-${i}` } });
    const verify = () => gw.call('GET', `/v1/orgs/${tenant.orgName}/audit-log/verify`, { token: tenant.managementKey });

    const intact = await verify();
    expect(intact.status).toBe(200);
    expect(intact.body).toEqual({ data: { intact: true, checked: 8, firstBadRow: null } });

    const db = gw.app.attest.db;
    const rows = await db
      .selectFrom('audit_log')
      .select(['id', 'seq', 'target_identifier'])
      .where('org_id', '=', tenant.orgId)
      .orderBy('seq')
      .execute();
    const victim = rows[5]!;
    await db.updateTable('audit_log').set({ target_identifier: 'rewritten' }).where('id', '=', victim.id).execute();
    const tampered = await verify();
    expect(tampered.body.data).toEqual({ intact: false, checked: 6, firstBadRow: { id: victim.id, seq: 6 } });
    // Other orgs' chains are unaffected.
    expect(
      (await gw.call('GET', `/v1/orgs/${t.orgName}/audit-log/verify`, { token: t.managementKey })).body.data.intact,
    ).toBe(true);

    // Put it back: intact again. Then delete a row: the row after the gap is the first bad one.
    await db
      .updateTable('audit_log')
      .set({ target_identifier: victim.target_identifier })
      .where('id', '=', victim.id)
      .execute();
    expect((await verify()).body.data.intact).toBe(true);
    await db.deleteFrom('audit_log').where('id', '=', rows[2]!.id).execute();
    const gap = await verify();
    expect(gap.body.data).toEqual({ intact: false, checked: 3, firstBadRow: { id: rows[3]!.id, seq: 4 } });
  });

  it('catches a recomputed row hash through the next row', async () => {
    const tenant = await createTenant(gw);
    const db = gw.app.attest.db;
    const rows = await db
      .selectFrom('audit_log')
      .selectAll()
      .where('org_id', '=', tenant.orgId)
      .orderBy('seq')
      .execute();
    // A forger who rewrites a row and its own row_hash still breaks the next row's prev_hash link.
    const { hashRow } = await import('../../../src/server/audit.js');
    const target = rows[1]!;
    const { prev_hash, row_hash: _old, ...fields } = target;
    const forged = {
      ...fields,
      seq: Number(fields.seq),
      created_at: Number(fields.created_at),
      target_identifier: 'forged',
    };
    await db
      .updateTable('audit_log')
      .set({ target_identifier: 'forged', row_hash: hashRow(prev_hash, forged) })
      .where('id', '=', target.id)
      .execute();
    const res = await gw.call('GET', `/v1/orgs/${tenant.orgName}/audit-log/verify`, { token: tenant.managementKey });
    expect(res.body.data).toEqual({ intact: false, checked: 3, firstBadRow: { id: rows[2]!.id, seq: 3 } });
  });
});
