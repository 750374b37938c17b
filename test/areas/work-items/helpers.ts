// Shared bits of the work-item tests: a FactoryContext for calling services the way a route would (for
// what has no HTTP route, such as importing a legacy lease), and small request shorthands.
import type { FactoryContext } from '../../../src/server/context.js';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';

export async function factoryContextFor(gw: TestGateway, t: Tenant): Promise<FactoryContext> {
  const gateway = gw.app.attest;
  const principal = await gateway.auth.resolve(t.factoryKey, t.appId);
  return {
    gateway,
    db: gateway.db,
    clock: gateway.clock,
    config: gateway.config,
    log: gw.app.log,
    requestId: 'test',
    principal,
    orgId: t.orgId,
    appId: t.appId,
  };
}

export function auth(t: Tenant, token: string = t.factoryKey) {
  return { token, appId: t.appId };
}

let counter = 0;

/** Creates a work item and returns its wire body. */
export async function newItem(gw: TestGateway, t: Tenant, fields: Record<string, unknown> = {}) {
  const res = await gw.call('POST', '/v1/work-items', {
    ...auth(t),
    body: {
      tracker: 'github',
      trackerKey: `acme/api#${++counter}`,
      title: `Item ${counter}`,
      repository: 'acme/api',
      specRepository: 'acme/specs',
      specNumber: counter,
      ...fields,
    },
  });
  if (res.status !== 201) throw new Error(`create work item: ${res.status} ${res.text}`);
  return res.body.data;
}

/** A factory key with exactly these permissions, minted by the tenant's owner. */
export async function keyWith(gw: TestGateway, t: Tenant, permissions: string[]): Promise<string> {
  const res = await gw.call('POST', '/v1/api-keys', {
    token: t.loginToken,
    appId: t.appId,
    body: { name: `k-${++counter}`, permissions },
  });
  if (res.status !== 201) throw new Error(`mint key: ${res.status} ${res.text}`);
  return res.body.data.plaintext_key;
}

export async function claim(gw: TestGateway, t: Tenant, item: string | number, body: Record<string, unknown> = {}) {
  return gw.call('POST', `/v1/work-items/${item}/claims`, {
    ...auth(t),
    body: { source: 'runner-a', branch: 'feat/x', ...body },
  });
}
