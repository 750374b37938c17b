// Dashboard sign-in (DASHBOARD-CONTRACT.md): links, the session cookie, sign-in with a pasted login token,
// sign-out, CSRF, expiry and revocation, and where the cookie works (factory, /v1/me, org routes, the media
// ?appId= rule) and where it never does (admin routes, another org's data).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintPlaintext } from '../../../src/server/credentials.js';
import {
  addMember,
  createTenant,
  startGateway,
  type CallResult,
  type Tenant,
  type TestGateway,
} from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { artifactBody } from '../artifacts/helpers.js';

const HOUR = 3600_000;
const DASH = { 'x-attest-dashboard': '1' };

function cookieFrom(r: CallResult): string {
  const raw = r.headers['set-cookie'];
  const line = Array.isArray(raw) ? raw[0] : raw;
  const m = /^attest_session=([^;]*)/.exec(String(line ?? ''));
  if (!m) throw new Error(`no session cookie in ${r.status} ${JSON.stringify(r.headers)}`);
  return m[1]!;
}

function setCookieLine(r: CallResult): string {
  const raw = r.headers['set-cookie'];
  return String(Array.isArray(raw) ? raw[0] : (raw ?? ''));
}

describe('dashboard sign-in', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;

  withGatewayAndTenants((s) => ({ gw, a, b } = s));

  const withCookie = (cookie: string, extra: Record<string, string> = {}) => ({
    cookie: `attest_session=${cookie}`,
    ...extra,
  });
  const makeLink = async (token: string) => {
    const r = await gw.call('POST', '/v1/me/dashboard-links', { token });
    expect(r.status).toBe(201);
    return r.body.data as { url: string; expiresAt: string };
  };
  const open = (url: string) => gw.call('GET', new URL(url).pathname);
  const signInByLink = async (token: string) => cookieFrom(await open((await makeLink(token)).url));
  const signIn = async (loginToken: string) => {
    const r = await gw.call('POST', '/v1/dashboard/session', { body: { loginToken }, headers: DASH });
    expect(r.status).toBe(201);
    return cookieFrom(r);
  };

  describe('POST /v1/me/dashboard-links', () => {
    it('answers 201 with a one-time link under the public URL, valid 10 minutes', async () => {
      const now = gw.clock.now();
      const r = await gw.call('POST', '/v1/me/dashboard-links', { token: a.loginToken });
      expect(r.status).toBe(201);
      expect(r.body.data.url).toMatch(/^http:\/\/attest\.test\/auth\/link\/[A-Za-z0-9_-]{40,}$/);
      expect(r.body.data.expiresAt).toBe(new Date(now + 10 * 60_000).toISOString());
    });

    it('a dashboard session may ask for a link too', async () => {
      const cookie = await signInByLink(a.loginToken);
      const r = await gw.call('POST', '/v1/me/dashboard-links', { headers: withCookie(cookie, DASH) });
      expect(r.status).toBe(201);
      const second = await open(r.body.data.url);
      expect(second.status).toBe(303);
      expect(second.headers.location).toBe('/');
    });

    it('refuses no credential, API keys, management keys and admin tokens with 401', async () => {
      for (const token of [undefined, a.factoryKey, a.managementKey, gw.adminToken, mintPlaintext('login_token')]) {
        const r = await gw.call('POST', '/v1/me/dashboard-links', token ? { token } : {});
        expect(r.status).toBe(401);
        expect(r.body.error.code).toBe('unauthorized');
        expect(r.body.data).toBeUndefined();
      }
    });
  });

  describe('GET /auth/link/:token', () => {
    it('sets an HttpOnly, SameSite=Lax session cookie and redirects to /; the link works once', async () => {
      const link = await makeLink(a.loginToken);
      const r = await open(link.url);
      expect(r.status).toBe(303);
      expect(r.headers.location).toBe('/');
      const line = setCookieLine(r);
      expect(line).toMatch(/^attest_session=ols_[0-9A-Za-z]{42}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/);
      expect(line).not.toContain('Secure');
      expect(r.headers['cache-control']).toBe('no-store');

      const again = await open(link.url);
      expect(again.status).toBe(303);
      expect(again.headers.location).toBe('/sign-in?reason=used');
      expect(again.headers['set-cookie']).toBeUndefined();
    });

    it('an unknown link redirects to /sign-in?reason=invalid', async () => {
      for (const token of ['nope', 'A'.repeat(43), 'x'.repeat(90)]) {
        const r = await gw.call('GET', `/auth/link/${token}`);
        expect(r.status).toBe(303);
        expect(r.headers.location).toBe('/sign-in?reason=invalid');
        expect(r.headers['set-cookie']).toBeUndefined();
      }
    });

    it('a link past its 10 minutes redirects to /sign-in?reason=expired', async () => {
      const link = await makeLink(a.loginToken);
      gw.clock.advance(10 * 60_000);
      const r = await open(link.url);
      expect(r.headers.location).toBe('/sign-in?reason=expired');
      expect(r.headers['set-cookie']).toBeUndefined();
    });

    it('stores only a digest: the session id is nowhere in the credentials table', async () => {
      const cookie = await signInByLink(a.loginToken);
      const rows = await gw.app.attest.db
        .selectFrom('credentials')
        .selectAll()
        .where('kind', '=', 'dashboard_session')
        .execute();
      expect(rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows)).not.toContain(cookie);
      expect(JSON.stringify(rows)).not.toContain(cookie.slice(4, 20));
    });
  });

  describe('POST /v1/dashboard/session (pasted login token)', () => {
    it('answers 201 with the user and the expiry (the idle one, 12 h) and sets the cookie', async () => {
      const now = gw.clock.now();
      const r = await gw.call('POST', '/v1/dashboard/session', { body: { loginToken: a.loginToken }, headers: DASH });
      expect(r.status).toBe(201);
      expect(r.body.data.user).toMatchObject({ id: a.ownerId });
      expect(r.body.data.user.email).toMatch(/^owner-.*@example\.com$/);
      expect(r.body.data.expiresAt).toBe(new Date(now + 12 * HOUR).toISOString());
      expect(setCookieLine(r)).toMatch(/^attest_session=ols_\w+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/);
    });

    it('without X-Attest-Dashboard: 403 csrf_rejected and no cookie', async () => {
      const r = await gw.call('POST', '/v1/dashboard/session', { body: { loginToken: a.loginToken } });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('csrf_rejected');
      expect(r.headers['set-cookie']).toBeUndefined();
    });

    it('an sk_ key, an olk_ key and an admin token get 401: only a login token signs in', async () => {
      for (const key of [a.factoryKey, a.managementKey, gw.adminToken, mintPlaintext('item_key')]) {
        const r = await gw.call('POST', '/v1/dashboard/session', { body: { loginToken: key }, headers: DASH });
        expect(r.status).toBe(401);
        expect(r.body.error.code).toBe('unauthorized');
        expect(r.body.error.message).toContain('Only a CLI login token');
        expect(r.headers['set-cookie']).toBeUndefined();
      }
    });

    it('an unknown or malformed login token → 401; a missing field → 400', async () => {
      for (const loginToken of [mintPlaintext('login_token'), 'olu_nonsense']) {
        const r = await gw.call('POST', '/v1/dashboard/session', { body: { loginToken }, headers: DASH });
        expect(r.status).toBe(401);
        expect(r.body.error.code).toBe('unauthorized');
      }
      const missing = await gw.call('POST', '/v1/dashboard/session', { body: {}, headers: DASH });
      expect(missing.status).toBe(400);
      expect(missing.body.error.code).toBe('invalid_request_body');
    });
  });

  describe('GET /v1/dashboard/session', () => {
    it('answers 200 with the user behind the cookie', async () => {
      const cookie = await signIn(a.loginToken);
      const r = await gw.call('GET', '/v1/dashboard/session', { headers: withCookie(cookie) });
      expect(r.status).toBe(200);
      expect(r.body.data.user.id).toBe(a.ownerId);
      expect(r.body.data.expiresAt).toBe(new Date(gw.clock.now() + 12 * HOUR).toISOString());
    });

    it('401 without a cookie, with an unknown or malformed one, and with a session id sent as a bearer', async () => {
      const cookie = await signIn(a.loginToken);
      const attempts: Array<Record<string, string>> = [
        {},
        withCookie(mintPlaintext('dashboard_session')),
        withCookie('garbage'),
        withCookie(a.loginToken),
        { authorization: `Bearer ${cookie}` },
        { authorization: `Bearer ${a.loginToken}` },
      ];
      for (const headers of attempts) {
        const r = await gw.call('GET', '/v1/dashboard/session', { headers });
        expect(r.status).toBe(401);
        expect(r.body.error.code).toBe('unauthorized');
        expect(r.body.data).toBeUndefined();
      }
    });
  });

  describe('what the cookie reaches', () => {
    it('/v1/me/factories lists the user’s factories', async () => {
      const cookie = await signIn(a.loginToken);
      const r = await gw.call('GET', '/v1/me/factories', { headers: withCookie(cookie) });
      expect(r.status).toBe(200);
      expect(r.body.data.map((f: { id: string }) => f.id)).toEqual([a.appId]);
    });

    it('factory routes with the header act as the login token; without it 400 app_id_required', async () => {
      const cookie = await signIn(a.loginToken);
      const viaCookie = await gw.call('GET', '/v1/api-keys', { headers: withCookie(cookie), appId: a.appId });
      const viaToken = await gw.call('GET', '/v1/api-keys', { token: a.loginToken, appId: a.appId });
      expect(viaCookie.status).toBe(200);
      expect(viaCookie.body).toEqual(viaToken.body);
      const noHeader = await gw.call('GET', '/v1/api-keys', { headers: withCookie(cookie) });
      expect(noHeader.status).toBe(400);
      expect(noHeader.body.error.code).toBe('app_id_required');
    });

    it("another org's user sees nothing of this org: factory routes 401, org routes 403", async () => {
      const cookieB = await signIn(b.loginToken);
      for (const url of ['/v1/api-keys', '/v1/sessions', '/v1/apps']) {
        const r = await gw.call('GET', url, { headers: withCookie(cookieB), appId: a.appId });
        expect(r.status).toBe(401);
        expect(r.body.data).toBeUndefined();
        expect(r.text).not.toContain(a.orgName);
      }
      const audit = await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log`, { headers: withCookie(cookieB) });
      expect(audit.status).toBe(403);
      expect(audit.body.error.code).toBe('forbidden');
      expect(audit.body.data).toBeUndefined();
      const me = await gw.call('GET', '/v1/me/factories', { headers: withCookie(cookieB) });
      expect(me.body.data.map((f: { id: string }) => f.id)).toEqual([b.appId]);
    });

    it("org routes act with the user's own role: the owner reads the audit log, a read member gets 403", async () => {
      const owner = await signIn(a.loginToken);
      const log = await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log`, { headers: withCookie(owner) });
      expect(log.status).toBe(200);
      expect(log.body.pagination.total).toBeGreaterThan(0);
      const members = await gw.call('GET', `/v1/orgs/${a.orgName}/members`, { headers: withCookie(owner) });
      expect(members.status).toBe(200);
      expect(members.body.data.some((m: { userId: string }) => m.userId === a.ownerId)).toBe(true);

      const reader = await addMember(gw, a, 'read');
      const readerCookie = await signIn(reader.loginToken);
      const denied = await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log`, { headers: withCookie(readerCookie) });
      expect(denied.status).toBe(403);
      expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'audit.read' });
    });

    it('admin routes refuse the cookie (401) and nothing is created', async () => {
      const cookie = await signIn(a.loginToken);
      const r = await gw.call('POST', '/v1/admin/orgs', {
        headers: withCookie(cookie, DASH),
        body: { name: 'via-cookie' },
      });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('unauthorized');
      const again = await gw.call('POST', '/v1/admin/orgs', { token: gw.adminToken, body: { name: 'via-cookie' } });
      expect(again.status).toBe(201); // the name was free: the refused call created nothing
    });

    it('MCP refuses the cookie (it forwards bearer credentials only)', async () => {
      const cookie = await signIn(a.loginToken);
      const r = await gw.call('POST', '/v1/mcp', {
        headers: withCookie(cookie, DASH),
        appId: a.appId,
        body: { jsonrpc: '2.0', id: 1, method: 'ping' },
      });
      expect(r.status).toBe(401);
    });
  });

  describe('CSRF: a state-changing request with the cookie needs X-Attest-Dashboard: 1', () => {
    it('POST without the header → 403 csrf_rejected, nothing created; with it → 201', async () => {
      const cookie = await signIn(a.loginToken);
      const list = async () =>
        (await gw.call('GET', '/v1/api-keys', { token: a.loginToken, appId: a.appId })).body.data.length as number;
      const before = await list();
      for (const headers of [withCookie(cookie), withCookie(cookie, { 'x-attest-dashboard': '0' })]) {
        const r = await gw.call('POST', '/v1/api-keys', {
          headers,
          appId: a.appId,
          body: { name: 'csrf-probe', preset: 'read-only' },
        });
        expect(r.status).toBe(403);
        expect(r.body.error.code).toBe('csrf_rejected');
        expect(r.body.data).toBeUndefined();
      }
      expect(await list()).toBe(before);
      const ok = await gw.call('POST', '/v1/api-keys', {
        headers: withCookie(cookie, DASH),
        appId: a.appId,
        body: { name: 'csrf-probe', preset: 'read-only' },
      });
      expect(ok.status).toBe(201);
      expect(await list()).toBe(before + 1);
    });

    it('a bearer credential needs no header (only the cookie is ambient)', async () => {
      const r = await gw.call('POST', '/v1/me/dashboard-links', { token: a.loginToken });
      expect(r.status).toBe(201);
    });
  });

  describe('DELETE /v1/dashboard/session (sign-out)', () => {
    it('without the header → 403 csrf_rejected and the session still works', async () => {
      const cookie = await signIn(a.loginToken);
      const r = await gw.call('DELETE', '/v1/dashboard/session', { headers: withCookie(cookie) });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('csrf_rejected');
      expect((await gw.call('GET', '/v1/dashboard/session', { headers: withCookie(cookie) })).status).toBe(200);
    });

    it('→ 204, clears the cookie, and the cookie is refused afterwards (other sessions live on)', async () => {
      const cookie = await signIn(a.loginToken);
      const other = await signIn(a.loginToken);
      const r = await gw.call('DELETE', '/v1/dashboard/session', { headers: withCookie(cookie, DASH) });
      expect(r.status).toBe(204);
      expect(setCookieLine(r)).toBe('attest_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
      for (const [method, url] of [
        ['GET', '/v1/dashboard/session'],
        ['GET', '/v1/me/factories'],
        ['DELETE', '/v1/dashboard/session'],
      ] as const) {
        const after = await gw.call(method, url, { headers: withCookie(cookie, DASH) });
        expect(after.status).toBe(401);
      }
      expect((await gw.call('GET', '/v1/dashboard/session', { headers: withCookie(other) })).status).toBe(200);
    });

    it('401 without a cookie', async () => {
      const r = await gw.call('DELETE', '/v1/dashboard/session', { headers: DASH });
      expect(r.status).toBe(401);
      // Nor with a cookie that was never issued, is not a session id at all, or is a login token.
      for (const cookie of [mintPlaintext('dashboard_session'), 'garbage', a.loginToken]) {
        const bad = await gw.call('DELETE', '/v1/dashboard/session', { headers: withCookie(cookie, DASH) });
        expect(bad.status, cookie.slice(0, 12)).toBe(401);
        expect(bad.body.error.code).toBe('unauthorized');
      }
    });
  });

  describe('revocation', () => {
    it('revoking the login token ends the sessions made with it (link and pasted), not others', async () => {
      const member = await addMember(gw, a, 'write');
      const minted = (await gw.call('POST', `/v1/admin/users/${member.userId}/login-tokens`, { token: gw.adminToken }))
        .body.data;
      const byPaste = await signIn(minted.token);
      const byLink = await signInByLink(minted.token);
      const otherToken = await signIn(member.loginToken);
      const pending = await makeLink(minted.token);
      for (const c of [byPaste, byLink])
        expect((await gw.call('GET', '/v1/sessions', { headers: withCookie(c), appId: a.appId })).status).toBe(200);

      const del = await gw.call('DELETE', `/v1/admin/login-tokens/${minted.id}`, { token: gw.adminToken });
      expect(del.status).toBe(204);
      for (const c of [byPaste, byLink]) {
        expect((await gw.call('GET', '/v1/sessions', { headers: withCookie(c), appId: a.appId })).status).toBe(401);
        expect((await gw.call('GET', '/v1/dashboard/session', { headers: withCookie(c) })).status).toBe(401);
      }
      // A link made before the revocation opens nothing.
      expect((await open(pending.url)).headers.location).toBe('/sign-in?reason=invalid');
      expect((await gw.call('GET', '/v1/dashboard/session', { headers: withCookie(otherToken) })).status).toBe(200);
      expect(
        (await gw.call('POST', '/v1/dashboard/session', { body: { loginToken: minted.token }, headers: DASH })).status,
      ).toBe(401);
    });

    it('DELETE /v1/admin/login-tokens/:id: 404 login_token_not_found if unknown or revoked; admin only', async () => {
      const member = await addMember(gw, a, 'read');
      const minted = (await gw.call('POST', `/v1/admin/users/${member.userId}/login-tokens`, { token: gw.adminToken }))
        .body.data;
      expect((await gw.call('DELETE', `/v1/admin/login-tokens/${minted.id}`, { token: a.loginToken })).status).toBe(
        401,
      );
      expect((await gw.call('DELETE', `/v1/admin/login-tokens/${minted.id}`, { token: gw.adminToken })).status).toBe(
        204,
      );
      for (const id of [minted.id, '00000000-0000-4000-8000-000000000001']) {
        const r = await gw.call('DELETE', `/v1/admin/login-tokens/${id}`, { token: gw.adminToken });
        expect(r.status).toBe(404);
        expect(r.body.error.code).toBe('login_token_not_found');
      }
    });

    it("removing the user from the org ends the session's access (and the session, if no org is left)", async () => {
      const member = await addMember(gw, a, 'write');
      const cookie = await signIn(member.loginToken);
      expect((await gw.call('GET', '/v1/sessions', { headers: withCookie(cookie), appId: a.appId })).status).toBe(200);
      const removed = await gw.call('DELETE', `/v1/orgs/${a.orgName}/members/${member.userId}`, {
        token: a.managementKey,
      });
      expect(removed.status).toBe(204);
      const r = await gw.call('GET', '/v1/sessions', { headers: withCookie(cookie), appId: a.appId });
      expect(r.status).toBe(401);
      expect(r.body.data).toBeUndefined();
      expect((await gw.call('GET', '/v1/dashboard/session', { headers: withCookie(cookie) })).status).toBe(401);
    });
  });

  describe('media: GET /v1/artifacts/:id/content?appId= with the cookie', () => {
    let artifactId: string;
    const png = Buffer.from('\x89PNG dashboard media bytes 0123456789');
    beforeAll(async () => {
      const r = await gw.call('POST', '/v1/artifacts', {
        token: a.factoryKey,
        appId: a.appId,
        body: artifactBody(png),
      });
      expect(r.status).toBe(201);
      artifactId = r.body.data.id;
    });

    it('a cookie GET may name the factory as ?appId= (200 and 206 with Range)', async () => {
      const cookie = await signIn(a.loginToken);
      const r = await gw.call('GET', `/v1/artifacts/${artifactId}/content?appId=${a.appId}`, {
        headers: withCookie(cookie),
      });
      expect(r.status).toBe(200);
      expect(r.text).toBe(png.toString());
      const part = await gw.call('GET', `/v1/artifacts/${artifactId}/content?appId=${a.appId}`, {
        headers: withCookie(cookie, { range: 'bytes=0-3' }),
      });
      expect(part.status).toBe(206);
      expect(part.headers['content-range']).toBe(`bytes 0-3/${png.length}`);
    });

    it("another org's user, or this user naming another factory, gets 401 and no bytes", async () => {
      const cookieB = await signIn(b.loginToken);
      const r = await gw.call('GET', `/v1/artifacts/${artifactId}/content?appId=${a.appId}`, {
        headers: withCookie(cookieB),
      });
      expect(r.status).toBe(401);
      expect(r.text).not.toContain('dashboard media');
      const own = await gw.call('GET', `/v1/artifacts/${artifactId}/content?appId=${b.appId}`, {
        headers: withCookie(cookieB),
      });
      expect(own.status).toBe(404);
      expect(own.body.error.code).toBe('artifact_not_found');
    });

    it('?appId= is only for the cookie: a bearer login token needs the header; other routes ignore it', async () => {
      const r = await gw.call('GET', `/v1/artifacts/${artifactId}/content?appId=${a.appId}`, { token: a.loginToken });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('app_id_required');
      const cookie = await signIn(a.loginToken);
      const other = await gw.call('GET', `/v1/artifacts/${artifactId}?appId=${a.appId}`, {
        headers: withCookie(cookie),
      });
      expect(other.status).toBe(400);
      expect(other.body.error.code).toBe('app_id_required');
    });
  });

  describe('expiry (the test clock moves)', () => {
    it('idle: 12 h without a request ends the session', async () => {
      const cookie = await signIn(a.loginToken);
      gw.clock.advance(12 * HOUR);
      const r = await gw.call('GET', '/v1/dashboard/session', { headers: withCookie(cookie) });
      expect(r.status).toBe(401);
    });

    it('use keeps it alive up to the absolute 7 days, then it ends', async () => {
      const cookie = await signIn(a.loginToken);
      // 15 steps of 11 h = 165 h < 168 h: each request is within the idle bound and before the absolute one.
      for (let i = 0; i < 15; i++) {
        gw.clock.advance(11 * HOUR);
        expect((await gw.call('GET', '/v1/dashboard/session', { headers: withCookie(cookie) })).status).toBe(200);
      }
      gw.clock.advance(3 * HOUR); // 168 h after sign-in
      expect((await gw.call('GET', '/v1/dashboard/session', { headers: withCookie(cookie) })).status).toBe(401);
    });
  });
});

describe('dashboard sign-in configuration', () => {
  let gw: TestGateway;
  let t: Tenant;
  beforeAll(async () => {
    gw = await startGateway({
      env: {
        ATTEST_PUBLIC_URL: 'https://attest.example.com',
        ATTEST_DASHBOARD_IDLE_HOURS: '1',
        ATTEST_DASHBOARD_MAX_DAYS: '2',
      },
    });
    t = await createTenant(gw);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('the cookie is Secure on an https public URL; idle and absolute bounds follow the settings', async () => {
    const now = gw.clock.now();
    const link = (await gw.call('POST', '/v1/me/dashboard-links', { token: t.loginToken })).body.data;
    expect(link.url.startsWith('https://attest.example.com/auth/link/')).toBe(true);
    const r = await gw.call('GET', new URL(link.url).pathname);
    expect(setCookieLine(r)).toMatch(/; Max-Age=172800; Secure$/);
    const cookie = cookieFrom(r);
    const s = await gw.call('GET', '/v1/dashboard/session', { headers: { cookie: `attest_session=${cookie}` } });
    expect(s.body.data.expiresAt).toBe(new Date(now + HOUR).toISOString());
    gw.clock.advance(HOUR);
    expect(
      (await gw.call('GET', '/v1/dashboard/session', { headers: { cookie: `attest_session=${cookie}` } })).status,
    ).toBe(401);
  });
});
