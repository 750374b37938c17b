// Signing in to the dashboard in a real browser: by one-time link and by pasted login token; used and expired
// links; sign-out; a revoked session; an API key refused; a cookie-carrying write without the dashboard's
// header refused; another factory's data never shown.
import { beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Tenant } from '../helpers/gateway.js';
import {
  describeInBrowser,
  factoryHome,
  newContext,
  screenshot,
  signIn,
  signInLink,
  type WebGateway,
  withDashboardAndTenants,
} from './helpers.js';
import { canonical } from '../areas/sessions/fixtures.js';

describeInBrowser('dashboard sign-in', () => {
  let gw: WebGateway;
  let browser: Browser;
  let a: Tenant;
  let b: Tenant;
  let bArtifact: string;

  withDashboardAndTenants((s) => ({ gw, browser, a, b } = s));
  beforeAll(async () => {
    const full = canonical('full');
    const r = await gw.call('POST', '/v1/agents/sync', {
      token: a.factoryKey,
      appId: a.appId,
      body: { schemaVersion: 1, sessions: [full] },
    });
    expect(r.status).toBe(200);
    const bytes = Buffer.from('b-only log line\n');
    const art = await gw.call('POST', '/v1/artifacts', {
      token: b.factoryKey,
      appId: b.appId,
      body: {
        schemaVersion: 1,
        artifact: {
          clientArtifactId: 'b-log',
          filename: 'b.log',
          mediaType: 'text/plain',
          bytes: bytes.length,
          sha256: (await import('node:crypto')).createHash('sha256').update(bytes).digest('hex'),
          caption: 'factory B secret log',
          emittedAt: '2026-07-01T00:00:00.000Z',
          repository: 'bee/hive',
          prNumber: 3,
        },
        blob: { data: bytes.toString('base64') },
      },
    });
    expect(art.status, art.text).toBe(201);
    bArtifact = art.body.data.id;
  });

  it('a one-time link signs in and lands on the only factory; opened again it is "used"', async () => {
    const ctx = await newContext(browser, gw);
    const link = await signInLink(gw, a.loginToken);
    const page = await ctx.newPage();
    await page.goto(link);
    await page.waitForURL(factoryHome(a.appId));
    await page.goto(`/f/${a.appId}/sessions`);
    await expect.poll(() => page.getByRole('link', { name: 'Fix rate limiter window boundary' }).count()).toBe(1);
    expect(await page.getByTestId('sessions-total').innerText()).toBe('1');
    await screenshot(page, 'sessions-signed-in');

    const other = await newContext(browser, gw);
    const again = await other.newPage();
    await again.goto(link);
    await again.waitForURL('**/sign-in?reason=used');
    expect(await again.getByTestId('sign-in-reason').innerText()).toContain('already used');
    expect(await again.locator('pre').first().innerText()).toContain('attest dashboard');
    await screenshot(again, 'sign-in-used');
    await ctx.close();
    await other.close();
  });

  it('an expired link says so; an unknown one is "invalid"', async () => {
    const ctx = await newContext(browser, gw);
    const link = await signInLink(gw, a.loginToken);
    gw.clock.advance(11 * 60_000);
    const page = await ctx.newPage();
    await page.goto(link);
    await page.waitForURL('**/sign-in?reason=expired');
    expect(await page.getByTestId('sign-in-reason').innerText()).toContain('expired');
    await page.goto(`${gw.base}/auth/link/not-a-real-link`);
    await page.waitForURL('**/sign-in?reason=invalid');
    expect(await page.getByTestId('sign-in-reason').innerText()).toContain('not valid');
    await ctx.close();
  });

  it('a pasted login token signs in; a pasted API key is refused with the reason', async () => {
    const ctx = await newContext(browser, gw);
    const page = await ctx.newPage();
    await page.goto('/');
    await page.waitForURL('**/sign-in**');
    await page.getByLabel('Login token').fill(a.factoryKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/login token/i);
    expect(page.url()).toContain('/sign-in');
    await screenshot(page, 'sign-in-refused-key');
    await page.getByLabel('Login token').fill(a.loginToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(factoryHome(a.appId));
    await page.goto(`/f/${a.appId}/sessions`);
    await expect.poll(() => page.getByRole('link', { name: 'Fix rate limiter window boundary' }).count()).toBe(1);
    await ctx.close();
  });

  it('sign-out ends the session: the pages ask to sign in again', async () => {
    const ctx = await newContext(browser, gw);
    const page = await signIn(ctx, gw, a.loginToken);
    await page.waitForURL(factoryHome(a.appId));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/sign-in?reason=signed-out');
    await page.goto(`/f/${a.appId}/sessions`);
    await page.waitForURL('**/sign-in**');
    const status = await page.evaluate(
      async () => (await fetch('/v1/dashboard/session', { headers: { 'X-Attest-Dashboard': '1' } })).status,
    );
    expect(status).toBe(401);
    await ctx.close();
  });

  it('a session whose login token is deleted is revoked', async () => {
    const mint = await gw.call('POST', `/v1/admin/users/${a.ownerId}/login-tokens`, { token: gw.adminToken });
    expect(mint.status).toBe(201);
    const ctx = await newContext(browser, gw);
    const page = await signIn(ctx, gw, mint.body.data.token);
    await page.waitForURL(factoryHome(a.appId));
    const del = await gw.call('DELETE', `/v1/admin/login-tokens/${mint.body.data.id}`, { token: gw.adminToken });
    expect(del.status).toBe(204);
    await page.goto(`/f/${a.appId}/sessions`);
    await page.waitForURL('**/sign-in**');
    await ctx.close();
  });

  it('a write with the cookie but no dashboard header: csrf_rejected; a cross-site form does nothing', async () => {
    const before = (await gw.call('GET', '/v1/api-keys', { token: a.loginToken, appId: a.appId })).body.data.length;
    const ctx = await newContext(browser, gw);
    const page = await signIn(ctx, gw, a.loginToken);
    await page.waitForURL(factoryHome(a.appId));
    const refused = await page.evaluate(async (appId) => {
      const r = await fetch('/v1/api-keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Outerlayer-App-Id': appId },
        body: JSON.stringify({ name: 'csrf', preset: 'full-access' }),
      });
      return { status: r.status, body: await r.json() };
    }, a.appId);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('csrf_rejected');
    // Another site (localhost is not 127.0.0.1) posts a form at the gateway: the browser holds the cookie.
    const evil = await ctx.newPage();
    const port = new URL(gw.base).port;
    await evil.goto(`http://localhost:${port}/sign-in`);
    await evil.setContent(
      `<form method="POST" action="${gw.base}/v1/api-keys" enctype="text/plain"><input ` +
        `name='{"name":"evil","preset":"full-access","a":"' value='"}'></form>`,
    );
    await Promise.all([evil.waitForLoadState(), evil.evaluate(() => document.forms[0]!.submit())]);
    const after = (await gw.call('GET', '/v1/api-keys', { token: a.loginToken, appId: a.appId })).body.data.length;
    expect(after).toBe(before);
    await ctx.close();
  });

  it("another factory's sessions, PRs and artifacts are never shown", async () => {
    const ctx = await newContext(browser, gw);
    const page = await signIn(ctx, gw, b.loginToken);
    await page.waitForURL(factoryHome(b.appId));
    await page.goto(`/f/${b.appId}/sessions`);
    expect(await page.getByTestId('sessions-empty').innerText()).toContain(`attest login --url ${gw.base}`);
    await screenshot(page, 'sessions-empty');
    await page.goto(`/f/${a.appId}/sessions`);
    await expect.poll(() => page.getByRole('heading', { name: 'Not found' }).count()).toBe(1);
    expect(await page.locator('body').innerText()).not.toContain('Fix rate limiter');
    await page.goto(`/f/${a.appId}/prs/acme/acme-api/481`);
    await expect.poll(() => page.getByRole('heading', { name: 'Not found' }).count()).toBe(1);
    // A's user opening B's artifact url: not found, never the artifact.
    const actx = await newContext(browser, gw);
    const apage = await signIn(actx, gw, a.loginToken);
    await apage.waitForURL(factoryHome(a.appId));
    await apage.goto(`/artifacts/${bArtifact}`);
    await expect.poll(() => apage.getByRole('heading', { name: 'Not found' }).count()).toBe(1);
    expect(await apage.locator('body').innerText()).not.toContain('factory B secret log');
    await screenshot(apage, 'artifact-not-found');
    // B's own user sees it.
    await page.goto(`/artifacts/${bArtifact}`);
    await expect.poll(() => page.getByTestId('artifact-caption').innerText()).toBe('factory B secret log');
    await expect.poll(() => page.locator('pre.log').innerText()).toContain('b-only log line');
    await ctx.close();
    await actx.close();
  });
});
