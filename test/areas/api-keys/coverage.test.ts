// Cross-tenant coverage of the API-key routes: another org's factory and a sibling factory of the same org
// list none of the owner's keys, cannot delete one by id (404 api_key_not_found; the key keeps working),
// and may reuse its name (names are unique per factory).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { foreignCallers, siblingFactory, type Sibling } from '../../helpers/cross-tenant.js';

describe('API-key routes across factories and orgs', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  let sibling: Sibling;
  let key: { id: string; plaintext_key: string };

  withGatewayAndTenants((s) => ({ gw, a, b } = s));
  beforeAll(async () => {
    sibling = await siblingFactory(gw, a);
    const r = await gw.call('POST', '/v1/api-keys', {
      token: a.loginToken,
      appId: a.appId,
      body: { name: 'secret-key-of-a', preset: 'read-only' },
    });
    expect(r.status).toBe(201);
    key = r.body.data;
  });

  it("GET /v1/api-keys: no other factory lists the owner's key", async () => {
    for (const [, auth] of foreignCallers(b, sibling)) {
      const r = await gw.call('GET', '/v1/api-keys', auth);
      expect(r.status).toBe(200);
      expect(r.text).not.toContain(key.id);
      expect(r.text).not.toContain('secret-key-of-a');
    }
  });

  it('DELETE /v1/api-keys/{id}: 404 api_key_not_found for every other factory, and the key still works', async () => {
    for (const [, auth] of foreignCallers(b, sibling)) {
      const r = await gw.call('DELETE', `/v1/api-keys/${key.id}`, auth);
      expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status: 404, code: 'api_key_not_found' });
    }
    expect((await gw.call('GET', '/v1/api-keys', { token: key.plaintext_key, appId: a.appId })).status).toBe(200);
  });

  it("POST /v1/api-keys with the owner's key name is fine in another factory (names are per factory)", async () => {
    for (const [, auth] of foreignCallers(b, sibling).filter(([who]) => who.includes('login token'))) {
      const r = await gw.call('POST', '/v1/api-keys', {
        ...auth,
        body: { name: 'secret-key-of-a', preset: 'read-only' },
      });
      expect(r.status).toBe(201);
    }
    const own = await gw.call('GET', '/v1/api-keys', { token: a.loginToken, appId: a.appId });
    expect(
      own.body.data.filter((k: { name: string }) => k.name === 'secret-key-of-a').map((k: { id: string }) => k.id),
    ).toEqual([key.id]);
  });
});
