// Cross-tenant coverage of the emitted-results routes: another org's factory and a sibling factory of the
// same org list none of the owner's results for the same PR, and reusing the owner's clientEmitId is the
// caller's own result (no 409 that would reveal the owner's, no resultId of the owner's).
import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { foreignCallers, siblingFactory, type Sibling } from '../../helpers/cross-tenant.js';

const emitBody = (clientEmitId: string, result: 'pass' | 'fail', name = 'unit-tests') => ({
  schemaVersion: 1,
  emit: {
    clientEmitId,
    name,
    result,
    link: 'https://ci.example.com/runs/1',
    emittedAt: '2026-11-01T12:00:00.000Z',
    prNumber: 12,
    repository: 'acme/api',
  },
});
const LIST = '/v1/emitted-results?repository=acme%2Fapi&prNumber=12';

describe('emitted results across factories and orgs', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  let sibling: Sibling;
  const clientEmitId = crypto.randomUUID();
  let ownId: string;
  const own = () => ({ token: a.factoryKey, appId: a.appId });

  withGatewayAndTenants((s) => ({ gw, a, b } = s));
  beforeAll(async () => {
    sibling = await siblingFactory(gw, a);
    const r = await gw.call('POST', '/v1/emitted-results', {
      ...own(),
      body: emitBody(clientEmitId, 'pass', 'secret-check-of-A'),
    });
    expect(r.status).toBe(201);
    ownId = r.body.data.id;
  });

  it('GET /v1/emitted-results: the same PR in another factory lists nothing', async () => {
    for (const [, auth] of foreignCallers(b, sibling)) {
      const r = await gw.call('GET', LIST, auth);
      expect(r.status).toBe(200);
      expect(r.text).not.toContain('secret-check-of-A');
      expect(r.text).not.toContain(ownId);
    }
  });

  it("POST /v1/emitted-results with the owner's clientEmitId and another result: the caller's own (201)", async () => {
    const before = await gw.call('GET', LIST, own());
    for (const [, auth] of foreignCallers(b, sibling).filter(([who]) => who.includes('factory key'))) {
      const r = await gw.call('POST', '/v1/emitted-results', { ...auth, body: emitBody(clientEmitId, 'fail') });
      expect(r.status).toBe(201);
      expect(r.body.data.id).not.toBe(ownId);
      expect(r.text).not.toContain('secret-check-of-A');
    }
    const after = await gw.call('GET', LIST, own());
    expect(after.body).toEqual(before.body);
    expect(after.text).toContain('secret-check-of-A');
  });
});
