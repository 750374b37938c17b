import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, type TestGateway } from './helpers/gateway.js';

describe('smoke', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('boots, answers /health and lets a tenant list keys', async () => {
    const health = await gw.call('GET', '/health');
    expect(health.status).toBe(200);
    const t = await createTenant(gw);
    const keys = await gw.call('GET', '/v1/api-keys', { token: t.factoryKey, appId: t.appId });
    expect(keys.status).toBe(200);
    expect(keys.body.data).toHaveLength(1);
  });
});
