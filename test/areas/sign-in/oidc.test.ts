// Sign-in with an OpenID Connect provider, end to end against a real one (oidc-provider on 127.0.0.1): the
// first sign-in creates the user, a verified email links to an existing user, an unverified one never signs
// in, state and single use are enforced, invitations and auto-join apply, and it ends in the dashboard session
// (cookie, CSRF header, idle expiry) a sign-in link opens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, createTenant, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { startOidcProvider, type TestProvider } from '../../helpers/oidc-provider.js';

const CALLBACK = 'http://attest.test/auth/oidc/callback';

describe('sign-in with an OpenID Connect provider', () => {
  let idp: TestProvider;
  let gw: TestGateway;
  let a: Tenant;

  beforeAll(async () => {
    idp = await startOidcProvider(CALLBACK);
    gw = await startGateway({
      env: {
        ATTEST_OIDC_ISSUER: idp.issuer,
        ATTEST_OIDC_CLIENT_ID: idp.clientId,
        ATTEST_OIDC_CLIENT_SECRET: idp.clientSecret,
        ATTEST_OIDC_NAME: 'Acme SSO',
      },
    });
    a = await createTenant(gw);
  });
  afterAll(async () => {
    await gw?.close();
    await idp?.close();
  });

  const cookieOf = (headers: Record<string, unknown>, name: string): string | null => {
    const raw = headers['set-cookie'];
    const all = Array.isArray(raw) ? raw : raw ? [String(raw)] : [];
    const found = all.find((c: string) => c.startsWith(`${name}=`));
    return found ? found : null;
  };
  const cookieValueOf = (cookie: string | null) => (cookie ? cookie.slice(cookie.indexOf('=') + 1).split(';')[0]! : '');

  /** Starts a flow at the gateway: the provider URL it redirects to, and the flow cookie it set. */
  async function start(invite?: string) {
    const res = await gw.call('GET', `/auth/oidc/start${invite ? `?invite=${invite}` : ''}`);
    expect(res.status).toBe(303);
    const location = String(res.headers.location);
    const flowCookie = cookieValueOf(cookieOf(res.headers, 'attest_sign_in'));
    return { location, flowCookie };
  }
  /** The callback as the browser that started the flow opens it. */
  const back = (callbackUrl: string, flowCookie: string) =>
    gw.call('GET', callbackUrl.slice('http://attest.test'.length), {
      headers: { cookie: `attest_sign_in=${flowCookie}` },
    });
  /** A whole sign-in as `login`: the gateway's answer at the callback. */
  async function signInAs(login: string, invite?: string) {
    const { location, flowCookie } = await start(invite);
    return back(await idp.signIn(location, login), flowCookie);
  }
  const sessionOf = (res: { headers: Record<string, unknown> }) =>
    cookieValueOf(cookieOf(res.headers, 'attest_session'));
  const whoIs = (session: string) =>
    gw.call('GET', '/v1/dashboard/session', { headers: { cookie: `attest_session=${session}` } });
  const invite = async (body: unknown) => {
    const r = await gw.call('POST', `/v1/orgs/${a.orgName}/invitations`, { token: a.managementKey, body });
    expect(r.status).toBe(201);
    return String(r.body.data.url).split('/').pop()!;
  };
  const roleIn = async (email: string) => {
    const r = await gw.call('GET', `/v1/orgs/${a.orgName}/members`, { token: a.managementKey });
    return (r.body.data as { email: string; role: string }[]).find((m) => m.email === email)?.role ?? null;
  };

  it('lists the configured provider; the authorization request carries PKCE (S256), state and nonce', async () => {
    const providers = await gw.call('GET', '/v1/sign-in/providers');
    expect(providers.body.data).toEqual([{ id: 'oidc', name: 'Acme SSO', url: '/auth/oidc/start' }]);
    const { location, flowCookie } = await start();
    const url = new URL(location);
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('redirect_uri')).toBe(CALLBACK);
    expect(url.searchParams.get('state')).toBe(flowCookie);
    expect(url.searchParams.get('nonce')).toMatch(/.{20,}/);
  });

  it('first sign-in creates the user; in no org it says so; once added, the same identity signs in', async () => {
    idp.accounts.set('newcomer', { email: 'Newcomer@Elsewhere.test', email_verified: true, name: 'New Comer' });
    const first = await signInAs('newcomer');
    expect(first.headers.location).toBe('/sign-in?reason=no-org');
    expect(sessionOf(first)).toBe('');
    // The user exists now: the owner can add them by email.
    const added = await gw.call('POST', `/v1/orgs/${a.orgName}/members`, {
      token: a.managementKey,
      body: { email: 'newcomer@elsewhere.test', role: 'read' },
    });
    expect(added.status).toBe(201);
    expect(added.body.data.name).toBe('New Comer');
    const second = await signInAs('newcomer');
    expect(second.headers.location).toBe('/');
    const cookie = cookieOf(second.headers, 'attest_session')!;
    expect(cookie).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/);
    const me = await whoIs(sessionOf(second));
    expect(me.body.data.user).toMatchObject({ id: added.body.data.userId, email: 'newcomer@elsewhere.test' });

    // The same dashboard session rules: a change without the SPA's header is refused, and 12 idle hours end it.
    const csrf = await gw.call('POST', '/v1/invitations/accept', {
      headers: { cookie: `attest_session=${sessionOf(second)}` },
      body: { token: 'x'.repeat(43) },
    });
    expect(csrf.body.error.code).toBe('csrf_rejected');
    gw.clock.advance(12 * 3_600_000 + 1);
    expect((await whoIs(sessionOf(second))).status).toBe(401);
  });

  it('an existing user is linked only through a verified email; an unverified one never signs in', async () => {
    const existing = await gw.call('POST', '/v1/admin/users', {
      token: gw.adminToken,
      body: { email: 'bob@acme.test', name: 'Bob' },
    });
    await gw.call('POST', `/v1/orgs/${a.orgName}/members`, {
      token: a.managementKey,
      body: { email: 'bob@acme.test', role: 'write' },
    });
    idp.accounts.set('mallory', { email: 'bob@acme.test', email_verified: false, name: 'Not Bob' });
    const refused = await signInAs('mallory');
    expect(refused.headers.location).toBe('/sign-in?reason=unverified-email');
    expect(sessionOf(refused)).toBe('');
    idp.accounts.set('no-email', { name: 'Nobody' });
    expect((await signInAs('no-email')).headers.location).toBe('/sign-in?reason=unverified-email');

    idp.accounts.set('bob', { email: 'bob@acme.test', email_verified: true, name: 'Bob at Acme' });
    const linked = await signInAs('bob');
    expect(linked.headers.location).toBe('/');
    expect((await whoIs(sessionOf(linked))).body.data.user.id).toBe(existing.body.data.id);
  });

  it('refuses a callback without the flow cookie, with another state, replayed, or after a provider no', async () => {
    idp.accounts.set('carol', { email: 'carol@acme.test', email_verified: true });
    const { location, flowCookie } = await start();
    const callback = await idp.signIn(location, 'carol');
    const path = callback.slice('http://attest.test'.length);
    expect((await gw.call('GET', path)).headers.location).toBe('/sign-in?reason=state');
    const other = await start();
    expect((await back(callback, other.flowCookie)).headers.location).toBe('/sign-in?reason=state');
    // The flow is still unused after those: the right browser finishes it (carol is in no org), then a replay fails.
    expect((await back(callback, flowCookie)).headers.location).toBe('/sign-in?reason=no-org');
    expect((await back(callback, flowCookie)).headers.location).toBe('/sign-in?reason=state');

    const denied = await start();
    const deniedBack = await idp.signIn(denied.location, 'carol', { deny: true });
    expect(new URL(deniedBack).searchParams.get('error')).toBe('access_denied');
    expect((await back(deniedBack, denied.flowCookie)).headers.location).toBe('/sign-in?reason=provider');
  });

  it('an invitation joins once signed in; one for another email, or expired, does not', async () => {
    idp.accounts.set('dave', { email: 'dave@acme.test', email_verified: true, name: 'Dave' });
    const forDave = await invite({ email: 'dave@acme.test', role: 'admin' });
    const joined = await signInAs('dave', forDave);
    expect(joined.headers.location).toBe(`/o/${a.orgName}`);
    expect(await roleIn('dave@acme.test')).toBe('admin');
    expect((await whoIs(sessionOf(joined))).status).toBe(200);

    idp.accounts.set('erin', { email: 'erin@acme.test', email_verified: true });
    const notErin = await invite({ email: 'someone-else@acme.test', role: 'read' });
    expect((await signInAs('erin', notErin)).headers.location).toBe('/sign-in?reason=invitation-email');
    expect(await roleIn('erin@acme.test')).toBeNull();

    const stale = await invite({ role: 'read' });
    gw.clock.advance(7 * 86_400_000);
    expect((await signInAs('erin', stale)).headers.location).toBe('/sign-in?reason=invitation-expired');
    expect(await roleIn('erin@acme.test')).toBeNull();
  });

  it("auto-joins a new user whose verified email is in the org's domains, at the set role", async () => {
    await gw.call('PATCH', `/v1/orgs/${a.orgName}`, {
      token: a.managementKey,
      body: { autoJoin: { domains: ['auto.test'], role: 'write' } },
    });
    idp.accounts.set('frank', { email: 'frank@auto.test', email_verified: true });
    const res = await signInAs('frank');
    expect(res.headers.location).toBe('/');
    expect(await roleIn('frank@auto.test')).toBe('write');
    idp.accounts.set('grace', { email: 'grace@sub.auto.test', email_verified: true });
    expect((await signInAs('grace')).headers.location).toBe('/sign-in?reason=no-org');
    const audit = await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log?actionType=member.joined`, {
      token: a.managementKey,
    });
    // Dave by invitation, Frank by auto-join.
    expect((audit.body.data as { target_identifier: string }[]).map((e) => e.target_identifier)).toEqual([
      'frank@auto.test',
      'dave@acme.test',
    ]);
  });

  it('returns to the dashboard page the sign-in started from (`next`), never to another origin', async () => {
    idp.accounts.set('nina', { email: 'nina@acme.test', email_verified: true, name: 'Nina' });
    // From an address of its own: the tests above used up much of the per-address sign-in limit.
    const from = (url: string, cookie?: string) =>
      gw.app.inject({ method: 'GET', url, remoteAddress: '10.9.8.7', ...(cookie ? { headers: { cookie } } : {}) });
    const via = async (next: string) => {
      const res = await from(`/auth/oidc/start?next=${encodeURIComponent(next)}`);
      expect(res.statusCode).toBe(303);
      const flowCookie = cookieValueOf(cookieOf(res.headers, 'attest_sign_in'));
      const callback = await idp.signIn(String(res.headers.location), 'nina');
      return from(callback.slice('http://attest.test'.length), `attest_sign_in=${flowCookie}`);
    };
    // The first sign-in creates Nina, in no org: the refusal wins over `next`.
    expect((await via('/tokens')).headers.location).toBe('/sign-in?reason=no-org');
    const added = await gw.call('POST', `/v1/orgs/${a.orgName}/members`, {
      token: a.managementKey,
      body: { email: 'nina@acme.test', role: 'read' },
    });
    expect(added.status).toBe(201);
    const page = '/cli-login?redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2Fcallback&state=s';
    expect((await via(page)).headers.location).toBe(page);
    expect((await via('//evil.example/x')).headers.location).toBe('/');
    expect((await via('/\\evil.example')).headers.location).toBe('/');
    expect((await via('https://evil.example/')).headers.location).toBe('/');
  });

  it('sign-in attempts are limited per client IP and per provider account: 429, Retry-After, a page', async () => {
    // What a browser sends when it navigates.
    const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const from = (ip: string, url: string, cookie?: string, accept = browserAccept) =>
      gw.app.inject({ method: 'GET', url, remoteAddress: ip, headers: { accept, ...(cookie ? { cookie } : {}) } });
    const flowOf = (res: { cookies: { name: string; value: string }[] }) =>
      `attest_sign_in=${res.cookies.find((c) => c.name === 'attest_sign_in')!.value}`;
    const tooMany = (res: { statusCode: number; headers: Record<string, unknown>; body: string }) => {
      expect(res.statusCode).toBe(429);
      const wait = Number(res.headers['retry-after']);
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
      expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
      expect(res.body).toContain('<h1>Too many sign-in attempts</h1>');
      expect(res.body).toContain(`Wait ${wait} second${wait === 1 ? '' : 's'}, then sign in again.`);
      expect(res.body).not.toMatch(/ at .*\.(ts|js):\d+/);
    };

    // Per IP: 30 starts a minute, the 31st is refused; another address is not.
    for (let i = 0; i < 30; i++) expect((await from('203.0.113.7', '/auth/oidc/start')).statusCode).toBe(303);
    tooMany(await from('203.0.113.7', '/auth/oidc/start'));
    // An API client gets the error envelope instead of the page.
    const api = await from('203.0.113.7', '/auth/oidc/start', undefined, 'application/json');
    expect(api.statusCode).toBe(429);
    expect(Number(api.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(api.json().error.code).toBe('rate_limited');
    expect((await from('203.0.113.8', '/auth/oidc/start')).statusCode).toBe(303);

    // Per provider account: 30 completed sign-ins of one subject a minute, each from its own address; the 31st
    // is refused at the callback, after the provider said who it is, whatever the address.
    idp.accounts.set('hasty', { email: 'hasty@elsewhere.test', email_verified: true });
    const once = async (ip: string) => {
      const started = await from(ip, '/auth/oidc/start');
      const callback = await idp.signIn(String(started.headers.location), 'hasty');
      return from(ip, callback.slice('http://attest.test'.length), flowOf(started));
    };
    for (let i = 1; i <= 30; i++)
      expect((await once(`198.51.100.${i}`)).headers.location).toBe('/sign-in?reason=no-org');
    const refused = await once('198.51.100.31');
    tooMany(refused);
    // Nothing about whether an account exists, and no session.
    expect(refused.body).not.toContain('hasty');
    expect(refused.cookies.find((c) => c.name === 'attest_session')).toBeUndefined();
  });
});
