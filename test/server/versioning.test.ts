// Versioning (spec part 9): /v1 prefix, and 426 runner_upgrade_required for runners below the minimum.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../helpers/gateway.js';

describe('runner versions', () => {
  let gw: TestGateway;
  let t: Tenant;
  beforeAll(async () => {
    gw = await startGateway({
      env: { ATTEST_MIN_RUNNER_VERSION: '1.4.0', ATTEST_RUNNER_UPGRADE_DOCS: 'https://docs.example/upgrade' },
    });
    t = await createTenant(gw);
  });
  afterAll(async () => {
    await gw?.close();
  });

  const headers = (v: string) => ({ 'x-outerlayer-runner-version': v });

  it('a runner below the minimum gets 426 runner_upgrade_required with minimum and docs', async () => {
    const r = await gw.call('GET', '/v1/api-keys', { token: t.factoryKey, appId: t.appId, headers: headers('1.3.9') });
    expect(r.status).toBe(426);
    expect(r.body.error).toMatchObject({
      code: 'runner_upgrade_required',
      minimum: '1.4.0',
      docs: 'https://docs.example/upgrade',
    });
  });

  it('the upgrade answer comes before authentication', async () => {
    const r = await gw.call('GET', '/v1/api-keys', { headers: headers('0.1.0') });
    expect(r.status).toBe(426);
  });

  it('a runner at or above the minimum, or a call without the header, passes', async () => {
    for (const h of [headers('1.4.0'), headers('2.0.0'), {}]) {
      const r = await gw.call('GET', '/v1/api-keys', { token: t.factoryKey, appId: t.appId, headers: h });
      expect(r.status).toBe(200);
    }
  });

  it('a version that is not semver → 400 invalid_runner_version', async () => {
    const r = await gw.call('GET', '/v1/api-keys', { token: t.factoryKey, appId: t.appId, headers: headers('latest') });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_runner_version');
  });

  it('/health is outside /v1 and not version-gated', async () => {
    const r = await gw.call('GET', '/health', { headers: headers('0.0.1') });
    expect(r.status).toBe(200);
  });

  it('with no minimum configured, old runners pass', async () => {
    const open = await startGateway();
    try {
      const t2 = await createTenant(open);
      const r = await open.call('GET', '/v1/api-keys', {
        token: t2.factoryKey,
        appId: t2.appId,
        headers: headers('0.0.1'),
      });
      expect(r.status).toBe(200);
    } finally {
      await open.close();
    }
  });
});
