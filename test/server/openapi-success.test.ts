// Every documented operation names its success status; optional paging parameters are not required; a 204
// answers no body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
let t: Tenant;
beforeAll(async () => {
  gw = await startGateway();
  t = await createTenant(gw);
});
afterAll(async () => {
  await gw.close();
});

describe('OpenAPI document', () => {
  it('limit and offset are optional wherever they appear', async () => {
    const doc = (await gw.call('GET', '/v1/openapi.json')).body;
    const required: string[] = [];
    for (const [p, ops] of Object.entries<Record<string, { parameters?: { name: string; in: string; required?: boolean }[] }>>(doc.paths)) {
      for (const [m, op] of Object.entries(ops)) {
        for (const prm of op.parameters ?? []) if (prm.in === 'query' && (prm.name === 'limit' || prm.name === 'offset') && prm.required) required.push(`${m} ${p} ${prm.name}`);
      }
    }
    expect(required).toEqual([]);
  });

  it('DELETE routes document their 204; DELETE /v1/api-keys/{id} answers it with no body', async () => {
    const doc = (await gw.call('GET', '/v1/openapi.json')).body;
    for (const path of ['/v1/api-keys/{id}', '/v1/apps/{appId}', '/v1/work-items/{id}/claims/current', '/v1/repositories/{owner}/{repo}', '/v1/orgs/{orgName}/members/{userId}', '/v1/admin/login-tokens/{tokenId}', '/v1/admin/orgs/{orgName}/members/{userId}', '/v1/dashboard/session']) {
      expect(Object.keys(doc.paths[path].delete.responses), path).toContain('204');
    }
    const key = await gw.call('POST', '/v1/api-keys', { token: t.loginToken, appId: t.appId, body: { name: 'gone', preset: 'read-only' } });
    const del = await gw.call('DELETE', `/v1/api-keys/${key.body.data.id}`, { token: t.loginToken, appId: t.appId });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
  });
});
