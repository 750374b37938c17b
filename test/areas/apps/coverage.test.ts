// Cross-tenant coverage of the factory routes with a data side: another org's credentials list none of
// an org's factories (GET /v1/apps, GET /v1/me/factories), a factory key sees only its own factory even
// beside a sibling, and a sibling's id in the path (GET/PATCH/DELETE /v1/apps/{appId}) is refused with 403
// for a factory key, leaving the sibling as it was.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { siblingFactory, type Sibling } from '../../helpers/cross-tenant.js';

describe('factory routes across factories and orgs', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  let sibling: Sibling;
  const readSibling = async () => {
    const r = await gw.call('GET', `/v1/apps/${sibling.appId}`, { token: a.loginToken, appId: sibling.appId });
    expect(r.status).toBe(200);
    return r.body.data;
  };

  withGatewayAndTenants((s) => ({ gw, a, b } = s));
  beforeAll(async () => {
    sibling = await siblingFactory(gw, a);
  });

  it("GET /v1/apps and /v1/me/factories of another org list none of A's factories", async () => {
    for (const [url, auth] of [
      ['/v1/apps', { token: b.loginToken, appId: b.appId }],
      ['/v1/apps', { token: b.factoryKey, appId: b.appId }],
      ['/v1/me/factories', { token: b.loginToken }],
    ] as const) {
      const r = await gw.call('GET', url, auth);
      expect(r.status).toBe(200);
      expect(r.text).not.toContain(a.appId);
      expect(r.text).not.toContain(sibling.appId);
    }
  });

  it('a factory key lists only its own factory, never its sibling', async () => {
    const r = await gw.call('GET', '/v1/apps', { token: a.factoryKey, appId: a.appId });
    expect(r.status).toBe(200);
    expect(r.body.data.map((x: { id: string }) => x.id)).toEqual([a.appId]);
  });

  it('a factory key naming its sibling: 403 on read, rename and delete; the sibling is unchanged', async () => {
    const before = await readSibling();
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { display_name: 'taken over' }],
      ['DELETE', undefined],
    ] as const) {
      const r = await gw.call(method, `/v1/apps/${sibling.appId}`, {
        token: a.factoryKey,
        appId: a.appId,
        ...(body ? { body } : {}),
      });
      expect({ method, status: r.status, code: r.body?.error?.code }).toEqual({
        method,
        status: 403,
        code: 'forbidden',
      });
    }
    expect(await readSibling()).toEqual(before);
    expect((await gw.call('GET', '/v1/work-items', { token: sibling.factoryKey, appId: sibling.appId })).status).toBe(
      200,
    );
  });

  it("POST /v1/apps in another org with this org's factory name: its own factory (201); ours unchanged", async () => {
    const before = await readSibling();
    const r = await gw.call('POST', '/v1/apps', { token: b.loginToken, appId: b.appId, body: { name: before.name } });
    expect(r.status).toBe(201);
    expect(r.body.data.id).not.toBe(sibling.appId);
    expect(await readSibling()).toEqual(before);
  });
});
