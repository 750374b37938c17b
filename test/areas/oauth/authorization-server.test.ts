// The OAuth 2.1 authorization server end to end over a real socket, driven by the MCP SDK's own client-side
// OAuth functions (discovery, registration, PKCE authorization, code exchange, refresh) and its MCP client:
// consent with a login token, tokens bound to one resource, rotation, replay detection, revocation, expiry,
// and client ID metadata documents served by a local HTTP server.
import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type OAuthClientProvider,
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  AuthorizationServerMetadata,
  OAuthClientInformationFull,
  OAuthClientInformationMixed,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { ACCESS_TOKEN_TTL_MS } from '../../../src/areas/oauth/provider.js';
import { addMember, createTenant, startGateway, type Tenant, type TestGateway } from '../../helpers/gateway.js';

let gw: TestGateway;
let base: string;
let a: Tenant;
let b: Tenant;
let metadata: AuthorizationServerMetadata;
let client: OAuthClientInformationFull;
let docServer: http.Server;
let docUrl: string;
const REDIRECT = 'http://127.0.0.1:7/callback';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

const appResource = (appId: string) => `${base}/v1/apps/${appId}/mcp`;

/** Authorization request → consent page → approval. Returns the redirect URL the browser would follow. */
async function consent(opts: {
  clientInfo?: OAuthClientInformationFull;
  resource?: string;
  loginToken?: string;
  appId?: string;
  scope?: string;
  decision?: 'approve' | 'deny';
}): Promise<{ location: URL; codeVerifier: string; page: string; status: number }> {
  const info = opts.clientInfo ?? client;
  const { authorizationUrl, codeVerifier } = await startAuthorization(base, {
    metadata,
    clientInformation: info,
    redirectUrl: REDIRECT,
    state: 'st-1',
    ...(opts.scope ? { scope: opts.scope } : {}),
    ...(opts.resource ? { resource: new URL(opts.resource) } : {}),
  });
  const pageRes = await fetch(authorizationUrl);
  const page = await pageRes.text();
  expect(pageRes.status, page).toBe(200);
  expect(pageRes.headers.get('content-type')).toMatch(/^text\/html/);
  const signed = /name="request" value="([^"]+)"/.exec(page)?.[1];
  expect(signed).toBeTruthy();
  const form = new URLSearchParams({
    request: signed!,
    decision: opts.decision ?? 'approve',
    login_token: opts.loginToken ?? a.loginToken,
  });
  if (opts.appId) form.set('app_id', opts.appId);
  const res = await fetch(`${base}/oauth/consent`, { method: 'POST', body: form, redirect: 'manual' });
  const location = res.headers.get('location');
  return {
    location: new URL(location ?? 'about:blank'),
    codeVerifier,
    page: location ? page : await res.text(),
    status: res.status,
  };
}

async function tokensFor(
  opts: {
    resource?: string;
    clientInfo?: OAuthClientInformationFull;
    scope?: string;
    appId?: string;
    loginTokenOverride?: string;
  } = {},
): Promise<OAuthTokens> {
  const resource = opts.resource ?? appResource(a.appId);
  const { location, codeVerifier } = await consent({
    ...opts,
    resource,
    ...(opts.loginTokenOverride ? { loginToken: opts.loginTokenOverride } : {}),
  });
  const code = location.searchParams.get('code');
  expect(code, location.href).toBeTruthy();
  return exchangeAuthorization(base, {
    metadata,
    clientInformation: opts.clientInfo ?? client,
    authorizationCode: code!,
    codeVerifier,
    redirectUri: REDIRECT,
    resource: new URL(resource),
  });
}

async function mcp(path: string, token: string): Promise<Client> {
  const c = new Client({ name: 'oauth-test', version: '1.0.0' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`${base}${path}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return c;
}

function post(path: string, token: string, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
}

beforeAll(async () => {
  // The public URL must be the listening URL (it is every token's audience), so the port is chosen first;
  // another process may take it in between, hence the retry.
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // The metadata documents below are served on a loopback address, which only this test/dev setting allows.
    gw = await startGateway({ env: { ATTEST_PUBLIC_URL: base, ATTEST_OAUTH_ALLOW_PRIVATE_METADATA: '1' } });
    try {
      await gw.app.listen({ port, host: '127.0.0.1' });
      break;
    } catch (err) {
      await gw.close();
      if (attempt >= 4) throw err;
    }
  }
  a = await createTenant(gw);
  b = await createTenant(gw);
  await gw.call('POST', '/v1/work-items', {
    token: a.factoryKey,
    appId: a.appId,
    body: { tracker: 'local', trackerKey: 'OA-1', title: 'OAuth item' },
  });

  docServer = http.createServer((req, res) => {
    const self = `http://127.0.0.1:${(docServer.address() as net.AddressInfo).port}`;
    const docs: Record<string, unknown> = {
      '/client.json': {
        client_id: `${self}/client.json`,
        client_name: 'Metadata Doc Client',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
      },
      '/wrong-id.json': { client_id: `${self}/other.json`, client_name: 'Liar', redirect_uris: [REDIRECT] },
    };
    const doc = docs[req.url ?? ''];
    res.writeHead(doc ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(doc ?? {}));
  });
  await new Promise<void>((resolve) => docServer.listen(0, '127.0.0.1', resolve));
  docUrl = `http://127.0.0.1:${(docServer.address() as net.AddressInfo).port}`;

  metadata = (await discoverAuthorizationServerMetadata(base))!;
  client = await registerClient(base, {
    metadata,
    clientMetadata: {
      client_name: 'Test Connector',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
  });
});

afterAll(async () => {
  await gw?.close();
  await new Promise((resolve) => docServer?.close(resolve));
});

describe('discovery', () => {
  it('serves RFC 8414 metadata: the endpoints, PKCE S256 only, public clients, metadata documents', async () => {
    expect(metadata).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
      client_id_metadata_document_supported: true,
    });
  });

  it('the protected resource documents of the MCP endpoints name this server (what a 401 points at)', async () => {
    const prm = await discoverOAuthProtectedResourceMetadata(appResource(a.appId));
    expect(prm.resource).toBe(appResource(a.appId));
    expect(prm.authorization_servers).toEqual([base]);
    const res = await post(`/v1/apps/${a.appId}/mcp`, 'olo_nonsense');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/v1/apps/${a.appId}/mcp", ` +
        `error="invalid_token"`,
    );
  });
});

describe('the SDK client on its own (what an MCP connector does)', () => {
  it('401 → WWW-Authenticate → discovery → registration → consent → token → connected → refresh', async () => {
    const saved: { client?: OAuthClientInformationMixed; tokens?: OAuthTokens; verifier?: string } = {};
    let redirectedTo: URL | null = null;
    const provider: OAuthClientProvider = {
      get redirectUrl() {
        return REDIRECT;
      },
      get clientMetadata() {
        return {
          client_name: 'Auto Connector',
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        };
      },
      clientInformation: () => saved.client,
      saveClientInformation: (info) => {
        saved.client = info;
      },
      tokens: () => saved.tokens,
      saveTokens: (t) => {
        saved.tokens = t;
      },
      redirectToAuthorization: (url) => {
        redirectedTo = url;
      },
      saveCodeVerifier: (v) => {
        saved.verifier = v;
      },
      codeVerifier: () => saved.verifier!,
    };
    const url = new URL(appResource(a.appId));
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name: 'auto', version: '1' }).connect(transport)).rejects.toThrow(/Unauthorized/);
    expect(saved.client?.client_id).toBeTruthy(); // registered dynamically
    expect(redirectedTo).not.toBeNull();
    const authUrl = redirectedTo as unknown as URL;
    expect(authUrl.searchParams.get('resource')).toBe(appResource(a.appId));
    // The user agent: the consent page, approved with the login token.
    const page = await (await fetch(authUrl)).text();
    expect(page).toContain('Auto Connector');
    const signed = /name="request" value="([^"]+)"/.exec(page)![1]!;
    const approval = await fetch(`${base}/oauth/consent`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ request: signed, decision: 'approve', login_token: a.loginToken }),
    });
    const code = new URL(approval.headers.get('location')!).searchParams.get('code')!;
    await transport.finishAuth(code);
    expect(saved.tokens?.access_token).toMatch(/^olo_/);

    const connected = new Client({ name: 'auto', version: '1' });
    await connected.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    expect((await connected.listTools()).tools.length).toBeGreaterThan(0);
    await connected.close();

    // An hour later the access token has expired: the client's 401 handling refreshes it by itself.
    const before = saved.tokens!;
    gw.clock.advance(ACCESS_TOKEN_TTL_MS);
    const later = new Client({ name: 'auto', version: '1' });
    await later.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    expect(saved.tokens!.access_token).not.toBe(before.access_token);
    expect(saved.tokens!.refresh_token).not.toBe(before.refresh_token);
    expect((await later.listTools()).tools.length).toBeGreaterThan(0);
    await later.close();
  });
});

describe('registration', () => {
  it('registers a public client (no secret is issued or stored)', async () => {
    expect(client.client_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(client.client_secret).toBeUndefined();
    expect(client.token_endpoint_auth_method).toBe('none');
    const res = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: ['https://app.example.com/cb'],
        client_name: 'Confidential?',
        token_endpoint_auth_method: 'client_secret_post',
      }),
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.client_secret).toBeUndefined();
    expect(body.token_endpoint_auth_method).toBe('none');
  });

  it('refuses http redirect URIs off loopback and malformed metadata', async () => {
    const bad = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://evil.example.com/cb'] }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe('invalid_client_metadata');
    const none = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'x' }),
    });
    expect(none.status).toBe(400);
  });
});

describe('authorization code flow with PKCE', () => {
  it('end to end: consent, code, token, MCP call, refresh, replayed refresh refused, grant ended', async () => {
    const { location, codeVerifier } = await consent({ resource: appResource(a.appId) });
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe('st-1');
    expect(location.searchParams.get('iss')).toBe(base);
    const tokens = await exchangeAuthorization(base, {
      metadata,
      clientInformation: client,
      authorizationCode: location.searchParams.get('code')!,
      codeVerifier,
      redirectUri: REDIRECT,
      resource: new URL(appResource(a.appId)),
    });
    expect(tokens.access_token).toMatch(/^olo_/);
    expect(tokens.refresh_token).toMatch(/^olr_/);
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.expires_in).toBe(3600);

    const c = await mcp(`/v1/apps/${a.appId}/mcp`, tokens.access_token);
    const viaTool = await c.callTool({ name: 'list_work_items', arguments: {} });
    const viaRest = await gw.call('GET', '/v1/work-items', { token: a.loginToken, appId: a.appId });
    expect(viaTool.structuredContent).toEqual(viaRest.body);
    expect(viaRest.body.data.length).toBe(1);
    await c.close();

    // Only a digest is stored.
    const stored = await gw.app.attest.db
      .selectFrom('credentials')
      .select(['digest', 'prefix', 'audience', 'kind'])
      .where('kind', '=', 'oauth_token')
      .execute();
    expect(stored.some((r) => r.digest.includes(tokens.access_token) || r.digest === tokens.access_token)).toBe(false);
    expect(stored.every((r) => r.prefix.length < 12)).toBe(true);
    expect(stored.map((r) => r.audience)).toContain(appResource(a.appId));

    // Refresh rotates: a new pair; the old refresh token is then spent.
    const second = await refreshAuthorization(base, {
      metadata,
      clientInformation: client,
      refreshToken: tokens.refresh_token!,
      resource: new URL(appResource(a.appId)),
    });
    expect(second.refresh_token).not.toBe(tokens.refresh_token);
    expect((await post(`/v1/apps/${a.appId}/mcp`, second.access_token)).status).toBe(200);
    await expect(
      refreshAuthorization(base, { metadata, clientInformation: client, refreshToken: tokens.refresh_token! }),
    ).rejects.toThrow(/already used/);
    // The replay ended the grant: the newest tokens stop too.
    expect((await post(`/v1/apps/${a.appId}/mcp`, second.access_token)).status).toBe(401);
    await expect(
      refreshAuthorization(base, { metadata, clientInformation: client, refreshToken: second.refresh_token! }),
    ).rejects.toThrow(/revoked|already used/);
  });

  it('two concurrent refreshes of one token: one wins, the other is a replay, the grant ends for both', async () => {
    const tokens = await tokensFor();
    const refresh = () =>
      refreshAuthorization(base, { metadata, clientInformation: client, refreshToken: tokens.refresh_token! });
    const results = await Promise.allSettled([refresh(), refresh()]);
    const won = results.filter((r): r is PromiseFulfilledResult<OAuthTokens> => r.status === 'fulfilled');
    expect(won.length).toBeLessThanOrEqual(1);
    expect(results.filter((r) => r.status === 'rejected').length).toBeGreaterThanOrEqual(1);
    for (const w of won) expect((await post(`/v1/apps/${a.appId}/mcp`, w.value.access_token)).status).toBe(401);
    expect((await post(`/v1/apps/${a.appId}/mcp`, tokens.access_token)).status).toBe(401);
  });

  it('a token is bound to its resource: refused on another factory, on /v1/mcp and on REST routes', async () => {
    const tokens = await tokensFor();
    expect((await post(`/v1/apps/${a.appId}/mcp`, tokens.access_token)).status).toBe(200);
    const other = await post(`/v1/apps/${b.appId}/mcp`, tokens.access_token);
    expect(other.status).toBe(401);
    expect(other.headers.get('www-authenticate')).toContain(`/oauth-protected-resource/v1/apps/${b.appId}/mcp`);
    const general = await post('/v1/mcp', tokens.access_token, { 'x-outerlayer-app-id': a.appId });
    expect(general.status).toBe(401);
    expect(((await general.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    const rest = await gw.call('GET', '/v1/work-items', { token: tokens.access_token, appId: a.appId });
    expect(rest.status).toBe(401);
    const forged = await gw.call('GET', '/v1/work-items', {
      token: tokens.access_token,
      appId: a.appId,
      headers: { 'x-attest-internal-call': 'guess' },
    });
    expect(forged.status).toBe(401);
  });

  it('an expired access token is refused; the refresh token still gets a new one', async () => {
    const tokens = await tokensFor();
    expect((await post(`/v1/apps/${a.appId}/mcp`, tokens.access_token)).status).toBe(200);
    gw.clock.advance(ACCESS_TOKEN_TTL_MS);
    const expired = await post(`/v1/apps/${a.appId}/mcp`, tokens.access_token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain('resource_metadata=');
    const fresh = await refreshAuthorization(base, {
      metadata,
      clientInformation: client,
      refreshToken: tokens.refresh_token!,
    });
    expect((await post(`/v1/apps/${a.appId}/mcp`, fresh.access_token)).status).toBe(200);
  });

  it('a token for /v1/mcp acts on the factory chosen at consent, without the factory header', async () => {
    const tokens = await tokensFor({ resource: `${base}/v1/mcp`, appId: a.appId });
    const c = await mcp('/v1/mcp', tokens.access_token);
    const r = await c.callTool({ name: 'list_work_items', arguments: {} });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as { data: unknown[] }).data.length).toBe(1);
    await c.close();
    expect((await post(`/v1/apps/${a.appId}/mcp`, tokens.access_token)).status).toBe(401);
  });

  it('scopes narrow the token: a tool needing another permission is an error result naming it', async () => {
    const tokens = await tokensFor({ scope: 'work.read' });
    expect(tokens.scope).toBe('work.read');
    const c = await mcp(`/v1/apps/${a.appId}/mcp`, tokens.access_token);
    expect((await c.callTool({ name: 'list_work_items', arguments: {} })).isError).toBeFalsy();
    const denied = await c.callTool({ name: 'get_trends', arguments: {} });
    expect(denied.isError).toBe(true);
    expect((denied.structuredContent as { error: { required_permission: string } }).error.required_permission).toBe(
      'metrics.read',
    );
    await c.close();
  });

  it('a wrong PKCE verifier, a replayed code, a wrong redirect URI or another resource is refused', async () => {
    const first = await consent({ resource: appResource(a.appId) });
    const code = first.location.searchParams.get('code')!;
    const args = { metadata, clientInformation: client, authorizationCode: code, redirectUri: REDIRECT };
    await expect(exchangeAuthorization(base, { ...args, codeVerifier: 'x'.repeat(50) })).rejects.toThrow(
      /code_verifier/,
    );
    await expect(
      exchangeAuthorization(base, {
        ...args,
        codeVerifier: first.codeVerifier,
        resource: new URL(appResource(b.appId)),
      }),
    ).rejects.toThrow(/resource/);
    // The failed resource check spent the code (it was used once): a second use is a replay.
    await expect(exchangeAuthorization(base, { ...args, codeVerifier: first.codeVerifier })).rejects.toThrow(
      /already used/,
    );

    const second = await consent({ resource: appResource(a.appId) });
    await expect(
      exchangeAuthorization(base, {
        ...args,
        authorizationCode: second.location.searchParams.get('code')!,
        codeVerifier: second.codeVerifier,
        redirectUri: 'http://127.0.0.1:7/other',
      }),
    ).rejects.toThrow(/redirect_uri/);

    const third = await consent({ resource: appResource(a.appId) });
    const tokens = await exchangeAuthorization(base, {
      ...args,
      authorizationCode: third.location.searchParams.get('code')!,
      codeVerifier: third.codeVerifier,
    });
    expect((await post(`/v1/apps/${a.appId}/mcp`, tokens.access_token)).status).toBe(200);
    await expect(
      exchangeAuthorization(base, {
        ...args,
        authorizationCode: third.location.searchParams.get('code')!,
        codeVerifier: third.codeVerifier,
      }),
    ).rejects.toThrow(/already used/);
    expect((await post(`/v1/apps/${a.appId}/mcp`, tokens.access_token)).status).toBe(401); // the replay revoked them
  });

  it('an expired code is refused', async () => {
    const { location, codeVerifier } = await consent({ resource: appResource(a.appId) });
    gw.clock.advance(10 * 60 * 1000);
    await expect(
      exchangeAuthorization(base, {
        metadata,
        clientInformation: client,
        authorizationCode: location.searchParams.get('code')!,
        codeVerifier,
        redirectUri: REDIRECT,
      }),
    ).rejects.toThrow(/expired/);
  });

  it('refuses code_challenge_method plain and a resource not an MCP endpoint here (redirect with error)', async () => {
    const url = new URL(metadata.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: 'abc',
      code_challenge_method: 'plain',
      state: 's',
    }).toString();
    const plain = await fetch(url, { redirect: 'manual' });
    expect(plain.status).toBe(302);
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: 'abc',
      code_challenge_method: 'S256',
      resource: 'https://elsewhere.example.com/mcp',
    }).toString();
    const target = await fetch(url, { redirect: 'manual' });
    expect(new URL(target.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: 'https://attacker.example.com/cb',
      code_challenge: 'abc',
      code_challenge_method: 'S256',
    }).toString();
    const unregistered = await fetch(url, { redirect: 'manual' });
    expect(unregistered.status).toBe(400); // never redirected to an unregistered URI
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: crypto.randomUUID(),
      redirect_uri: REDIRECT,
      code_challenge: 'abc',
      code_challenge_method: 'S256',
    }).toString();
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(400);
  });
});

describe('consent page', () => {
  it('deny redirects with access_denied and issues nothing', async () => {
    const { location } = await consent({ resource: appResource(a.appId), decision: 'deny' });
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('code')).toBeNull();
    expect(location.searchParams.get('state')).toBe('st-1');
  });

  it('a bad login token, or one of a user outside the factory org, shows the page again with 401', async () => {
    const bad = await consent({ resource: appResource(a.appId), loginToken: 'olu_not-a-token' });
    expect(bad.status).toBe(401);
    expect(bad.page).toContain('not a login token');
    const outsider = await consent({ resource: appResource(a.appId), loginToken: b.loginToken });
    expect(outsider.status).toBe(401);
    expect(outsider.page).toContain('not a member');
    const factoryKey = await consent({ resource: appResource(a.appId), loginToken: a.factoryKey });
    expect(factoryKey.status).toBe(401);
  });

  it('with no factory in the resource the user chooses one of theirs in a second step', async () => {
    const first = await consent({ resource: `${base}/v1/mcp` });
    expect(first.status).toBe(200);
    expect(first.page).toContain('Choose the factory');
    expect(first.page).toContain(`<option value="${a.appId}">${a.orgName} / `);
    expect(first.page).not.toContain(b.appId);
    const signed = /name="request" value="([^"]+)"/.exec(first.page)![1]!;
    const approve = await fetch(`${base}/oauth/consent`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ request: signed, decision: 'approve', login_token: a.loginToken, app_id: a.appId }),
    });
    expect(approve.status).toBe(302);
    expect(new URL(approve.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    const notMine = await fetch(`${base}/oauth/consent`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ request: signed, decision: 'approve', login_token: a.loginToken, app_id: b.appId }),
    });
    expect(notMine.status).toBe(401);
  });

  it('an altered consent request is refused', async () => {
    const form = new URLSearchParams({ request: 'eyJ4IjoxfQ.forged', decision: 'approve', login_token: a.loginToken });
    const res = await fetch(`${base}/oauth/consent`, { method: 'POST', body: form, redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request_body');
  });
});

describe('the user behind a token', () => {
  it('approval is in the audit log; a member removed from the org loses their tokens at once', async () => {
    const member = await addMember(gw, a, 'write');
    const tokens = await tokensFor({
      clientInfo: client,
      scope: 'work.read hosts.read',
      loginTokenOverride: member.loginToken,
    });
    expect((await post(`/v1/apps/${a.appId}/mcp`, tokens.access_token)).status).toBe(200);
    const audit = await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log?actionType=oauth.authorized`, {
      token: a.managementKey,
    });
    expect(audit.status, audit.text).toBe(200);
    const row = audit.body.data.find(
      (r: { actor_id?: string; actorId?: string }) => (r.actor_id ?? r.actorId) === member.userId,
    );
    expect(row, audit.text).toBeTruthy();
    const removed = await gw.call('DELETE', `/v1/orgs/${a.orgName}/members/${member.userId}`, {
      token: a.managementKey,
    });
    expect(removed.status, removed.text).toBeLessThan(300);
    expect((await post(`/v1/apps/${a.appId}/mcp`, tokens.access_token)).status).toBe(401);
  });
});

describe('revocation (RFC 7009)', () => {
  it('revoking an access token stops it at once; revoking a refresh token ends the grant', async () => {
    const tokens = await tokensFor();
    const revoke = (token: string, clientId = client.client_id) =>
      fetch(`${base}/oauth/revoke`, { method: 'POST', body: new URLSearchParams({ token, client_id: clientId }) });
    // Another client cannot revoke it (answered 200 per RFC 7009, nothing happens).
    const other = await registerClient(base, {
      metadata,
      clientMetadata: { client_name: 'Other', redirect_uris: [REDIRECT] },
    });
    expect((await revoke(tokens.access_token, other.client_id)).status).toBe(200);
    expect((await post(`/v1/apps/${a.appId}/mcp`, tokens.access_token)).status).toBe(200);

    expect((await revoke(tokens.access_token)).status).toBe(200);
    expect((await post(`/v1/apps/${a.appId}/mcp`, tokens.access_token)).status).toBe(401);
    const fresh = await refreshAuthorization(base, {
      metadata,
      clientInformation: client,
      refreshToken: tokens.refresh_token!,
    });
    expect((await post(`/v1/apps/${a.appId}/mcp`, fresh.access_token)).status).toBe(200);
    expect((await revoke(fresh.refresh_token!)).status).toBe(200);
    expect((await post(`/v1/apps/${a.appId}/mcp`, fresh.access_token)).status).toBe(401);
    await expect(
      refreshAuthorization(base, { metadata, clientInformation: client, refreshToken: fresh.refresh_token! }),
    ).rejects.toThrow();
    expect((await revoke('olo_unknown')).status).toBe(200);
  });
});

describe('client ID metadata documents', () => {
  it('a client identified by its document URL completes the flow without registering', async () => {
    const info = { client_id: `${docUrl}/client.json`, redirect_uris: [REDIRECT] } as OAuthClientInformationFull;
    const { location, codeVerifier, page } = await consent({ clientInfo: info, resource: appResource(a.appId) });
    expect(page).toContain('Metadata Doc Client');
    const tokens = await exchangeAuthorization(base, {
      metadata,
      clientInformation: info,
      authorizationCode: location.searchParams.get('code')!,
      codeVerifier,
      redirectUri: REDIRECT,
      resource: new URL(appResource(a.appId)),
    });
    expect((await post(`/v1/apps/${a.appId}/mcp`, tokens.access_token)).status).toBe(200);
  });

  it('refuses a document whose client_id is not its URL, a missing one and a non-loopback http URL', async () => {
    for (const clientId of [`${docUrl}/wrong-id.json`, `${docUrl}/missing.json`, 'http://example.com/client.json']) {
      const url = new URL(metadata.authorization_endpoint);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: 'abc',
        code_challenge_method: 'S256',
      }).toString();
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status, clientId).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
    }
  });
});

// Last in the file: it moves the shared clock on by a month.
describe('housekeeping of authorization codes', () => {
  it('a used code is kept 30 days past its expiry, so a replay still ends the grant; then it is deleted', async () => {
    const { location, codeVerifier } = await consent({ resource: appResource(a.appId) });
    const code = location.searchParams.get('code')!;
    const args = { metadata, clientInformation: client, authorizationCode: code, codeVerifier, redirectUri: REDIRECT };
    const tokens = await exchangeAuthorization(base, args);
    const { sql } = await import('kysely');
    const codes = async () =>
      Number(
        (await sql<{ n: number | string }>`select count(*) as n from oauth_codes`.execute(gw.app.attest.db)).rows[0]!.n,
      );
    const stored = await codes();
    expect(stored).toBeGreaterThan(0);

    // 29 days later nothing is deleted: the replay is still recognized and revokes the tokens.
    gw.clock.advance(29 * 86_400_000);
    expect((await gw.app.attest.housekeeping.run()).oauthCodes).toBe(0);
    expect(await codes()).toBe(stored);
    await expect(exchangeAuthorization(base, args)).rejects.toThrow(/already used/);
    expect((await post(`/v1/apps/${a.appId}/mcp`, tokens.access_token)).status).toBe(401);

    // Past 30 days after their 10-minute expiry every code of this file is deleted; a replay is then unknown.
    gw.clock.advance(2 * 86_400_000);
    expect((await gw.app.attest.housekeeping.run()).oauthCodes).toBe(stored);
    expect(await codes()).toBe(0);
    await expect(exchangeAuthorization(base, args)).rejects.toThrow(/Invalid authorization code/);
    // A code issued now is not touched and still works.
    const fresh = await consent({ resource: appResource(a.appId) });
    expect((await gw.app.attest.housekeeping.run()).oauthCodes).toBe(0);
    const again = await exchangeAuthorization(base, {
      ...args,
      authorizationCode: fresh.location.searchParams.get('code')!,
      codeVerifier: fresh.codeVerifier,
    });
    expect((await post(`/v1/apps/${a.appId}/mcp`, again.access_token)).status).toBe(200);
  });
});
