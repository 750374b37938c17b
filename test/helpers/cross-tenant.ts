// A second factory in a tenant's own org, for the cross-factory half of the house rule: credentials of a
// sibling factory (the same owner's login token, or a full-access key of that factory) must see nothing of
// the first factory, exactly like another org's.
import type { Tenant, TestGateway } from './gateway.js';

export interface Sibling {
  appId: string;
  factoryKey: string;
  loginToken: string;
}

let siblings = 0;

export async function siblingFactory(gw: TestGateway, t: Tenant): Promise<Sibling> {
  const created = await gw.call('POST', '/v1/apps', {
    token: t.loginToken,
    appId: t.appId,
    body: { name: `sibling-${++siblings}` },
  });
  if (created.status !== 201) throw new Error(`create sibling factory: ${created.status} ${created.text}`);
  const appId = created.body.data.id as string;
  const key = await gw.call('POST', '/v1/api-keys', {
    token: t.loginToken,
    appId,
    body: { name: 'full', preset: 'full-access' },
  });
  if (key.status !== 201) throw new Error(`sibling key: ${key.status} ${key.text}`);
  return { appId, factoryKey: key.body.data.plaintext_key as string, loginToken: t.loginToken };
}

/** The credentials of factories other than `t`'s: another org's key and login token, and a sibling's. */
export function foreignCallers(b: Tenant, sibling: Sibling): Array<[string, { token: string; appId: string }]> {
  return [
    ['another org, factory key', { token: b.factoryKey, appId: b.appId }],
    ['another org, login token', { token: b.loginToken, appId: b.appId }],
    ['sibling factory, factory key', { token: sibling.factoryKey, appId: sibling.appId }],
    ['sibling factory, login token', { token: sibling.loginToken, appId: sibling.appId }],
  ];
}
