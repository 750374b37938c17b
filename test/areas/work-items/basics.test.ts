import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../../helpers/gateway.js';

describe('work items: basics', () => {
  let gw: TestGateway;
  let t: Tenant;
  beforeAll(async () => { gw = await startGateway(); t = await createTenant(gw); });
  afterAll(async () => { await gw?.close(); });

  it('creates an item, lists it, claims it', async () => {
    const auth = { token: t.factoryKey, appId: t.appId };
    const created = await gw.call('POST', '/v1/work-items', { ...auth, body: { tracker: 'github', trackerKey: 'acme/api#1', title: 'One', repository: 'acme/api', specNumber: 1 } });
    expect(created.status).toBe(201);
    expect(created.body.data.number).toBe(1);
    const list = await gw.call('GET', '/v1/work-items', auth);
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    const claim = await gw.call('POST', `/v1/work-items/1/claims`, { ...auth, body: { source: 'runner-a', branch: 'feat/one' } });
    expect(claim.status).toBe(201);
    expect(claim.body.data.itemKey).toMatch(/^oli_/);
    const again = await gw.call('POST', `/v1/work-items/1/claims`, { ...auth, body: { source: 'runner-b', branch: 'feat/one' } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('work_item_claimed');
  });
});
