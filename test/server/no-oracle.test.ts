// Issue 19 item 9 (API.md §2): an unknown, a revoked and an expired credential, and a live one naming a
// factory (or, for an OAuth token, a resource) it does not belong to, all get the same 401: byte-identical
// status, body and headers (apart from Date and the request id). Each credential kind where a case applies.
import { describe, expect, it } from 'vitest';
import { mintPlaintext } from '../../src/server/credentials.js';
import { mintCredential, type MintRequest } from '../../src/server/auth/mint.js';
import { revokeCredential } from '../../src/server/auth/store.js';
import type { CredentialKind } from '../../src/db/schema.js';
import type { CallResult, Tenant, TestGateway } from '../helpers/gateway.js';
import { withGatewayAndTenants } from '../helpers/gateway-fixture.js';
import { claim, newItem } from '../areas/work-items/helpers.js';

/** What a client can read of an answer, minus what differs per request by design. */
function visible(r: CallResult): { status: number; body: string; headers: Record<string, unknown> } {
  const headers = { ...r.headers };
  delete headers.date;
  delete headers['x-request-id'];
  return { status: r.status, body: r.text, headers };
}

/** Every answer equals the first, and the first is the plain 401. */
function expectOneAnswer(answers: Record<string, CallResult>): void {
  const [firstName, first] = Object.entries(answers)[0]!;
  expect(first.status, firstName).toBe(401);
  expect(first.body).toEqual({
    error: {
      code: 'unauthorized',
      message: 'The credential is unknown, expired or revoked, or does not belong to the factory the request names.',
    },
  });
  for (const [name, r] of Object.entries(answers))
    expect(visible(r), `${name} vs ${firstName}`).toEqual(visible(first));
}

describe('one 401 for unknown, revoked, expired and wrong-factory credentials (no oracle)', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s));

  /** A credential minted by the real minting code, for states no route reaches (an expiring login token). */
  async function mint(kind: CredentialKind, fields: Omit<MintRequest, 'kind' | 'name'>) {
    const gateway = gw.app.attest;
    return mintCredential(gateway.db, gateway.pepper, gw.clock.now(), { kind, name: `oracle-${kind}`, ...fields });
  }

  it('API keys: unknown, revoked, expired and another factory named in the header', async () => {
    const revoked = await gw.call('POST', '/v1/api-keys', {
      token: a.loginToken,
      appId: a.appId,
      body: { name: 'to-revoke', preset: 'read-only' },
    });
    expect(
      (await gw.call('DELETE', `/v1/api-keys/${revoked.body.data.id}`, { token: a.loginToken, appId: a.appId })).status,
    ).toBe(204);
    const expiring = await gw.call('POST', '/v1/api-keys', {
      token: a.loginToken,
      appId: a.appId,
      body: { name: 'to-expire', preset: 'read-only', expiresAt: new Date(gw.clock.now() + 60_000).toISOString() },
    });
    expect(
      (await gw.call('GET', '/v1/api-keys', { token: expiring.body.data.plaintext_key, appId: a.appId })).status,
    ).toBe(200);
    gw.clock.advance(61_000);
    // The live key works on its own factory: what makes the last answer a refusal is only the header.
    expect((await gw.call('GET', '/v1/api-keys', { token: a.factoryKey, appId: a.appId })).status).toBe(200);
    expectOneAnswer({
      unknown: await gw.call('GET', '/v1/api-keys', { token: mintPlaintext('factory_key'), appId: a.appId }),
      revoked: await gw.call('GET', '/v1/api-keys', { token: revoked.body.data.plaintext_key, appId: a.appId }),
      expired: await gw.call('GET', '/v1/api-keys', { token: expiring.body.data.plaintext_key, appId: a.appId }),
      otherFactory: await gw.call('GET', '/v1/api-keys', { token: a.factoryKey, appId: b.appId }),
      noSuchFactory: await gw.call('GET', '/v1/api-keys', {
        token: a.factoryKey,
        appId: '0f0f0f0f-0000-4000-8000-000000000001',
      }),
    });
    // The same on the MCP endpoint, where the 401 also carries WWW-Authenticate (the same for all).
    const mcp = (token: string, appId: string) =>
      gw.call('POST', '/v1/mcp', {
        token,
        appId,
        headers: { accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'ping' },
      });
    const answers = {
      unknown: await mcp(mintPlaintext('factory_key'), a.appId),
      revoked: await mcp(revoked.body.data.plaintext_key, a.appId),
      expired: await mcp(expiring.body.data.plaintext_key, a.appId),
      otherFactory: await mcp(a.factoryKey, b.appId),
    };
    expectOneAnswer(answers);
    expect(answers.otherFactory.headers['www-authenticate']).toBe(
      'Bearer resource_metadata="http://attest.test/.well-known/oauth-protected-resource/v1/mcp", ' +
        'error="invalid_token"',
    );
  });

  it("login tokens: unknown, revoked, expired, another org's factory and a factory that does not exist", async () => {
    const admin = { token: gw.adminToken };
    const revoked = (await gw.call('POST', `/v1/admin/users/${a.ownerId}/login-tokens`, admin)).body.data;
    expect((await gw.call('DELETE', `/v1/admin/login-tokens/${revoked.id}`, admin)).status).toBe(204);
    const expiring = await mint('login_token', { userId: a.ownerId, expiresAt: gw.clock.now() + 1000 });
    expect((await gw.call('GET', '/v1/work-items', { token: expiring.plaintext, appId: a.appId })).status).toBe(200);
    gw.clock.advance(1000);
    expectOneAnswer({
      unknown: await gw.call('GET', '/v1/work-items', { token: mintPlaintext('login_token'), appId: a.appId }),
      revoked: await gw.call('GET', '/v1/work-items', { token: revoked.token, appId: a.appId }),
      expired: await gw.call('GET', '/v1/work-items', { token: expiring.plaintext, appId: a.appId }),
      otherFactory: await gw.call('GET', '/v1/work-items', { token: a.loginToken, appId: b.appId }),
      noSuchFactory: await gw.call('GET', '/v1/work-items', {
        token: a.loginToken,
        appId: '0f0f0f0f-0000-4000-8000-000000000002',
      }),
    });
  });

  it('item keys: unknown, revoked (claim released), expired and another factory named in the header', async () => {
    const put = (token: string, appId: string | undefined, item: string) =>
      gw.call('PUT', `/v1/work-items/${item}/claims/current`, { token, ...(appId ? { appId } : {}) });
    const item = await newItem(gw, a);
    const released = (await claim(gw, a, item.id)).body.data;
    expect(
      (await gw.call('DELETE', `/v1/work-items/${item.id}/claims/current`, { token: released.itemKey, appId: a.appId }))
        .status,
    ).toBe(204);
    const live = (await claim(gw, a, item.id)).body.data;
    expect((await put(live.itemKey, a.appId, item.id)).status).toBe(200);
    const expiring = await mint('item_key', {
      orgId: a.orgId,
      appId: a.appId,
      workItemId: item.id,
      expiresAt: gw.clock.now() + 1000,
    });
    gw.clock.advance(1000);
    expectOneAnswer({
      unknown: await put(mintPlaintext('item_key'), a.appId, item.id),
      revoked: await put(released.itemKey, a.appId, item.id),
      expired: await put(expiring.plaintext, a.appId, item.id),
      otherFactory: await put(live.itemKey, b.appId, item.id),
    });
  });

  it('management keys: unknown, revoked and expired', async () => {
    const revoked = await mint('management_key', { orgId: a.orgId, createdBy: a.ownerId });
    const gateway = gw.app.attest;
    expect(await revokeCredential(gateway.db, revoked.id, 'management_key', gw.clock.now())).toBe(true);
    gateway.auth.invalidate();
    const expiring = await mint('management_key', {
      orgId: a.orgId,
      createdBy: a.ownerId,
      expiresAt: gw.clock.now() + 1000,
    });
    gw.clock.advance(1000);
    expect((await gw.call('GET', `/v1/orgs/${a.orgName}/members`, { token: a.managementKey })).status).toBe(200);
    expectOneAnswer({
      unknown: await gw.call('GET', `/v1/orgs/${a.orgName}/members`, { token: mintPlaintext('management_key') }),
      revoked: await gw.call('GET', `/v1/orgs/${a.orgName}/members`, { token: revoked.plaintext }),
      expired: await gw.call('GET', `/v1/orgs/${a.orgName}/members`, { token: expiring.plaintext }),
    });
  });

  it("OAuth access tokens: unknown, expired, and a live token for another factory's MCP resource", async () => {
    const resource = (appId: string) => `http://attest.test/v1/apps/${appId}/mcp`;
    const live = await mint('oauth_token', { userId: a.ownerId, appId: a.appId, audience: resource(a.appId) });
    const expiring = await mint('oauth_token', {
      userId: a.ownerId,
      appId: a.appId,
      audience: resource(a.appId),
      expiresAt: gw.clock.now() + 1000,
    });
    gw.clock.advance(1000);
    const mcp = (token: string, appId: string) =>
      gw.call('POST', `/v1/apps/${appId}/mcp`, {
        token,
        headers: { accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'ping' },
      });
    expect((await mcp(live.plaintext, a.appId)).status).toBe(200);
    // Another factory's user would not be let in either; b's resource is what a's token is aimed at.
    expectOneAnswer({
      unknown: await mcp(mintPlaintext('oauth_token'), b.appId),
      expired: await mcp(expiring.plaintext, b.appId),
      otherResource: await mcp(live.plaintext, b.appId),
    });
  });
});
