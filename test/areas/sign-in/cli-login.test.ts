// `attest login` through the browser, at the API: the loopback code (PKCE S256, exact loopback redirect,
// single use, one minute), the device flow (pending, slow_down, confirmed, refused, expired), the per-address
// limit, and a person's own login tokens (listed with their last use, revoked; another person's never).
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, type CallResult, type Tenant, type TestGateway } from '../../helpers/gateway.js';

const REDIRECT = 'http://127.0.0.1:49152/callback';
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

describe('attest login through the browser (API)', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  let aSession: string;

  /** A dashboard session cookie for the user of `loginToken`, through a one-time sign-in link. */
  async function sessionOf(loginToken: string): Promise<string> {
    const link = await gw.call('POST', '/v1/me/dashboard-links', { token: loginToken });
    expect(link.status).toBe(201);
    const opened = await gw.call('GET', new URL(link.body.data.url).pathname);
    const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
    expect(cookie).toMatch(/^attest_session=ols_/);
    return cookie;
  }
  const asDashboard = (cookie: string) => ({ headers: { cookie, 'x-attest-dashboard': '1' } });

  beforeAll(async () => {
    gw = await startGateway();
    a = await createTenant(gw);
    b = await createTenant(gw);
    aSession = await sessionOf(a.loginToken);
  });
  afterAll(async () => gw?.close());

  function pkce() {
    const verifier = crypto.randomBytes(32).toString('base64url');
    return { verifier, challenge: crypto.createHash('sha256').update(verifier).digest('base64url') };
  }
  const codeRequest = (challenge: string, redirectUri = REDIRECT) => ({
    redirectUri,
    codeChallenge: challenge,
    codeChallengeMethod: 'S256',
    state: 'state-of-this-run-0123',
    clientName: 'attest CLI on test-box',
  });
  async function issueCode(cookie = aSession) {
    const { verifier, challenge } = pkce();
    const res = await gw.call('POST', '/v1/cli-login/codes', { ...asDashboard(cookie), body: codeRequest(challenge) });
    expect(res.status, res.text).toBe(201);
    const to = new URL(res.body.data.redirectTo);
    return { verifier, code: to.searchParams.get('code')!, res };
  }
  const exchange = (body: { code: string; codeVerifier: string; redirectUri?: string }) =>
    gw.call('POST', '/v1/cli-login/token', { body: { redirectUri: REDIRECT, ...body } });
  /** A factory read with the token (the tenant's own factory). */
  const readFactory = (token: string, t: Tenant) => gw.call('GET', `/v1/apps/${t.appId}`, { token, appId: t.appId });
  const expectError = (res: CallResult, status: number, code: string) => {
    expect(res.status, res.text).toBe(status);
    expect(res.body.error.code).toBe(code);
  };

  it('a confirmed loopback code, exchanged with its verifier, gives a login token that works; once only', async () => {
    const before = gw.clock.now();
    const { verifier, code, res } = await issueCode();
    const to = new URL(res.body.data.redirectTo);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT);
    expect(to.searchParams.get('state')).toBe('state-of-this-run-0123');
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.data.expiresAt).toBe(new Date(before + 60_000).toISOString());
    expect(res.headers['cache-control']).toBe('no-store');

    const got = await exchange({ code, codeVerifier: verifier });
    expect(got.status, got.text).toBe(201);
    expect(got.body.data.token).toMatch(/^olu_/);
    expect(got.body.data.name).toBe('attest login (attest CLI on test-box)');
    expect(got.body.data.user).toMatchObject({ id: a.ownerId });
    expect((await readFactory(got.body.data.token, a)).status).toBe(200);
    // Another org's factory: the same refusal as any dead credential.
    expect((await readFactory(got.body.data.token, b)).status).toBe(401);

    expectError(await exchange({ code, codeVerifier: verifier }), 400, 'invalid_grant');
  });

  it('a wrong verifier or redirect is refused and uses the code up; a code past its minute is refused', async () => {
    const first = await issueCode();
    expectError(await exchange({ code: first.code, codeVerifier: pkce().verifier }), 400, 'invalid_grant');
    expectError(await exchange({ code: first.code, codeVerifier: first.verifier }), 400, 'invalid_grant');

    const second = await issueCode();
    const otherPort = {
      code: second.code,
      codeVerifier: second.verifier,
      redirectUri: 'http://127.0.0.1:49153/callback',
    };
    expectError(await exchange(otherPort), 400, 'invalid_grant');
    expectError(await exchange({ code: second.code, codeVerifier: second.verifier }), 400, 'invalid_grant');

    const third = await issueCode();
    gw.clock.advance(60_001);
    expectError(await exchange({ code: third.code, codeVerifier: third.verifier }), 400, 'invalid_grant');
    expectError(await exchange({ code: 'never-issued', codeVerifier: third.verifier }), 400, 'invalid_grant');
    // A verifier outside RFC 7636's alphabet or length never reaches the store.
    expectError(await exchange({ code: third.code, codeVerifier: 'short' }), 400, 'invalid_request_body');
  });

  it('issues codes only for an exact http://127.0.0.1:<port>/<path> redirect', async () => {
    const { challenge } = pkce();
    for (const redirectUri of [
      'http://localhost:49152/callback',
      'https://127.0.0.1:49152/callback',
      'http://127.0.0.1/callback',
      'http://127.0.0.1:80/callback',
      'http://127.0.0.1:49152/callback?next=https://evil.example',
      'http://127.0.0.1:49152/callback#x',
      'http://127.0.0.1:49152/a/b',
      'http://evil.example:49152/callback',
      'http://127.0.0.1.evil.example:49152/callback',
      'http://user@127.0.0.1:49152/callback',
      'http://127.1:49152/callback',
      'HTTP://127.0.0.1:49152/callback',
      'javascript:alert(1)',
      '//127.0.0.1:49152/callback',
    ]) {
      const res = await gw.call('POST', '/v1/cli-login/codes', {
        ...asDashboard(aSession),
        body: codeRequest(challenge, redirectUri),
      });
      expect(res.body?.error?.code, redirectUri).toBe('invalid_redirect_uri');
      expect(res.status).toBe(400);
    }
    const plain = { ...codeRequest(challenge), codeChallengeMethod: 'plain' };
    expectError(
      await gw.call('POST', '/v1/cli-login/codes', { ...asDashboard(aSession), body: plain }),
      400,
      'invalid_request_body',
    );
  });

  it('only a signed-in browser issues codes: no cookie, a bearer token or no dashboard header is refused', async () => {
    const body = codeRequest(pkce().challenge);
    expectError(await gw.call('POST', '/v1/cli-login/codes', { body }), 401, 'unauthorized');
    expectError(await gw.call('POST', '/v1/cli-login/codes', { token: a.loginToken, body }), 401, 'unauthorized');
    expectError(
      await gw.call('POST', '/v1/cli-login/codes', { headers: { cookie: aSession }, body }),
      403,
      'csrf_rejected',
    );
  });

  it('device flow: pending, slow_down when polled too soon, confirmed on the dashboard, then a token', async () => {
    const started = await gw.call('POST', '/v1/cli-login/device', { body: { clientName: 'attest CLI on ssh-box' } });
    expect(started.status, started.text).toBe(201);
    const d = started.body.data;
    expect(d.userCode).toMatch(USER_CODE);
    expect(d.verificationUri).toBe(`${gw.config.publicUrl}/device`);
    expect(d.verificationUriComplete).toBe(`${gw.config.publicUrl}/device?code=${d.userCode}`);
    expect(d).toMatchObject({ expiresIn: 600, interval: 5 });
    const poll = () => gw.call('POST', '/v1/cli-login/device/token', { body: { deviceCode: d.deviceCode } });

    let res = await poll();
    expectError(res, 400, 'authorization_pending');
    expect(res.body.error.interval).toBe(5);
    gw.clock.advance(4_999);
    res = await poll();
    expectError(res, 400, 'slow_down');
    expect(res.body.error.interval).toBe(10);
    gw.clock.advance(10_000);
    res = await poll();
    expectError(res, 400, 'authorization_pending');
    expect(res.body.error.interval).toBe(10);

    // What the confirmation page shows, by the code as typed (any case, with or without the dash).
    const typed = d.userCode.replace('-', '').toLowerCase();
    const shown = await gw.call('GET', `/v1/cli-login/device/${typed}`, asDashboard(aSession));
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.data).toEqual({
      userCode: d.userCode,
      clientName: 'attest CLI on ssh-box',
      requestedIp: '127.0.0.1',
      requestedAt: new Date(gw.clock.now() - 14_999).toISOString(),
      expiresAt: new Date(gw.clock.now() - 14_999 + 600_000).toISOString(),
    });
    expect((await gw.call('POST', `/v1/cli-login/device/${d.userCode}/approve`, asDashboard(aSession))).status).toBe(
      204,
    );
    expectError(
      await gw.call('POST', `/v1/cli-login/device/${d.userCode}/approve`, asDashboard(aSession)),
      404,
      'device_code_not_found',
    );

    gw.clock.advance(10_000);
    res = await poll();
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.name).toBe('attest login (attest CLI on ssh-box)');
    expect(res.body.data.user.id).toBe(a.ownerId);
    expect((await readFactory(res.body.data.token, a)).status).toBe(200);
    gw.clock.advance(10_000);
    expectError(await poll(), 400, 'invalid_grant');
  });

  it('device flow: a refused code gets access_denied; an unconfirmed one expires after 10 minutes', async () => {
    const start = async () =>
      (await gw.call('POST', '/v1/cli-login/device', { body: { clientName: 'attest CLI on x' } })).body.data;
    const refused = await start();
    const expired = await start();
    expect((await gw.call('POST', `/v1/cli-login/device/${refused.userCode}/deny`, asDashboard(aSession))).status).toBe(
      204,
    );
    const poll = (deviceCode: string) => gw.call('POST', '/v1/cli-login/device/token', { body: { deviceCode } });
    expectError(await poll(refused.deviceCode), 400, 'access_denied');

    gw.clock.advance(600_000);
    expectError(await poll(expired.deviceCode), 400, 'expired_token');
    expectError(
      await gw.call('GET', `/v1/cli-login/device/${expired.userCode}`, asDashboard(aSession)),
      404,
      'device_code_not_found',
    );
    expectError(
      await gw.call('POST', `/v1/cli-login/device/${expired.userCode}/approve`, asDashboard(aSession)),
      404,
      'device_code_not_found',
    );
    expectError(await poll('never-issued'), 400, 'invalid_grant');
  });

  it('the confirmation routes need a signed-in browser and know nothing of a code never issued', async () => {
    expectError(await gw.call('GET', '/v1/cli-login/device/BCDF-GHJK'), 401, 'unauthorized');
    expectError(await gw.call('GET', '/v1/cli-login/device/BCDF-GHJK', { token: a.loginToken }), 401, 'unauthorized');
    expectError(
      await gw.call('POST', '/v1/cli-login/device/BCDF-GHJK/approve', { headers: { cookie: aSession } }),
      403,
      'csrf_rejected',
    );
    expectError(
      await gw.call('GET', '/v1/cli-login/device/BCDF-GHJK', asDashboard(aSession)),
      404,
      'device_code_not_found',
    );
    expectError(
      await gw.call('GET', '/v1/cli-login/device/AEIO-UAEI', asDashboard(aSession)),
      404,
      'device_code_not_found',
    );
  });

  it('your login tokens: listed with their last use, revocable by you only', async () => {
    const { verifier, code } = await issueCode();
    const cli = (await exchange({ code, codeVerifier: verifier })).body.data;
    const listOf = async (cred: { token?: string; headers?: Record<string, string> }) => {
      const res = await gw.call('GET', '/v1/me/login-tokens', cred);
      expect(res.status, res.text).toBe(200);
      return res.body.data as { id: string; name: string; lastUsedAt: string | null; current: boolean }[];
    };
    const mine = (await listOf({ token: a.loginToken })).find((t) => t.id === cli.id);
    expect(mine).toMatchObject({ name: 'attest login (attest CLI on test-box)', lastUsedAt: null, current: false });

    const usedAt = gw.clock.now();
    expect((await readFactory(cli.token, a)).status).toBe(200);
    gw.clock.advance(1_000);
    const listed = await listOf({ token: cli.token });
    const self = listed.find((t) => t.id === cli.id)!;
    expect(self.current).toBe(true);
    expect(self.lastUsedAt).toBe(new Date(usedAt).toISOString());
    expect(listed.filter((t) => t.current)).toHaveLength(1);
    // The session's row is its login token (minted by the owner): it is the current one for the cookie.
    const viaCookie = await listOf({ headers: { cookie: aSession } });
    expect(viaCookie.find((t) => t.current)?.name).toMatch(/^login owner-/);

    // Another person sees none of these and cannot revoke one; the token keeps working.
    const theirs = await listOf({ token: b.loginToken });
    expect(theirs.some((t) => t.id === cli.id)).toBe(false);
    expectError(
      await gw.call('DELETE', `/v1/me/login-tokens/${cli.id}`, { token: b.loginToken }),
      404,
      'login_token_not_found',
    );
    expect((await readFactory(cli.token, a)).status).toBe(200);

    expectError(await gw.call('GET', '/v1/me/login-tokens'), 401, 'unauthorized');
    expectError(await gw.call('GET', '/v1/me/login-tokens', { token: a.factoryKey }), 401, 'unauthorized');
    expectError(
      await gw.call('DELETE', `/v1/me/login-tokens/${cli.id}`, { headers: { cookie: aSession } }),
      403,
      'csrf_rejected',
    );
    expect((await gw.call('DELETE', `/v1/me/login-tokens/${cli.id}`, { token: a.loginToken })).status).toBe(204);
    expect((await readFactory(cli.token, a)).status).toBe(401);
    expect((await listOf({ token: a.loginToken })).some((t) => t.id === cli.id)).toBe(false);
    expectError(
      await gw.call('DELETE', `/v1/me/login-tokens/${cli.id}`, { token: a.loginToken }),
      404,
      'login_token_not_found',
    );
    expectError(
      await gw.call('DELETE', `/v1/me/login-tokens/${crypto.randomUUID()}`, { token: a.loginToken }),
      404,
      'login_token_not_found',
    );
  });

  it('limits code exchanges and polls to 60 a minute from one address', async () => {
    const from = (remoteAddress: string) =>
      gw.app.inject({
        method: 'POST',
        url: '/v1/cli-login/device/token',
        remoteAddress,
        payload: { deviceCode: 'guess' },
      });
    for (let i = 0; i < 60; i++) expect((await from('10.7.7.7')).statusCode).toBe(400);
    const limited = await from('10.7.7.7');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await from('10.7.7.8')).statusCode).toBe(400);
  });
});
