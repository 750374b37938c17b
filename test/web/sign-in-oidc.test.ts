// Signing in with an OpenID Connect provider in a real browser, end to end: Chromium clicks the sign-in page's
// button, fills in the provider's own login and consent pages (oidc-provider, a certified implementation, on
// 127.0.0.1), and comes back to the gateway. One gateway, one provider, one browser; each case in a fresh
// browser context (the provider remembers who signed in per browser). The same cases run over HTTP in
// test/areas/sign-in/oidc.test.ts, which also checks the stored rows; here it is what a person sees.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTenant, type Tenant } from '../helpers/gateway.js';
import { startOidcProvider, type TestProvider } from '../helpers/oidc-provider.js';
import {
  describeInBrowser,
  factoryHome,
  freePort,
  launchBrowser,
  newContext,
  startWebGateway,
  type WebGateway,
} from './helpers.js';

describeInBrowser('sign-in with an OpenID Connect provider, in the browser', () => {
  let idp: TestProvider;
  let gw: WebGateway;
  let browser: Browser;
  let a: Tenant;

  beforeAll(async () => {
    // The provider must know the redirect URI before the gateway starts: the gateway's port is chosen first.
    const port = await freePort();
    idp = await startOidcProvider(`http://127.0.0.1:${port}/auth/oidc/callback`);
    gw = await startWebGateway({
      port,
      publicUrl: true,
      env: {
        ATTEST_OIDC_ISSUER: idp.issuer,
        ATTEST_OIDC_CLIENT_ID: idp.clientId,
        ATTEST_OIDC_CLIENT_SECRET: idp.clientSecret,
        ATTEST_OIDC_NAME: 'Acme SSO',
      },
    });
    browser = await launchBrowser();
    a = await createTenant(gw);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
    await idp?.close();
  });

  /** A fresh browser (no session here or at the provider) on `path`. */
  async function freshPage(path: string): Promise<Page> {
    const ctx = await newContext(browser, gw);
    // The provider's development pages import a web font; this machine has no outside network.
    await ctx.route('https://fonts.googleapis.com/**', (route) => route.abort());
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.log('page error:', e.message));
    await page.goto(path);
    return page;
  }

  /** Clicks "Sign in with Acme SSO", signs in at the provider as `login` and consents (or cancels there). */
  async function signInAtProvider(page: Page, login: string, opts: { cancel?: boolean } = {}): Promise<void> {
    await page.getByTestId('provider-oidc').click();
    await page.waitForURL(`${idp.issuer}/interaction/**`);
    if (opts.cancel) {
      await page.getByRole('link', { name: '[ Cancel ]' }).click();
    } else {
      await page.locator('input[name="login"]').fill(login);
      await page.locator('input[name="password"]').fill('any password');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();
    }
    await page.waitForURL((u) => u.origin === gw.base && !u.pathname.startsWith('/auth/'));
  }

  const reasonOn = async (page: Page) => {
    await page.waitForURL('**/sign-in?reason=*');
    return page.getByTestId('sign-in-reason').innerText();
  };
  const sessionCookie = async (page: Page) =>
    (await page.context().cookies(gw.base)).find((c) => c.name === 'attest_session');
  const invite = async (body: unknown) => {
    const r = await gw.call('POST', `/v1/orgs/${a.orgName}/invitations`, { token: a.managementKey, body });
    expect(r.status).toBe(201);
    return String(r.body.data.url).split('/').pop()!;
  };
  const roleIn = async (email: string) => {
    const r = await gw.call('GET', `/v1/orgs/${a.orgName}/members`, { token: a.managementKey });
    return (r.body.data as { email: string; role: string }[]).find((m) => m.email === email)?.role ?? null;
  };

  it('first sign-in: a new person opens an invitation, signs in at the provider, joins the org', async () => {
    idp.accounts.set('nina', { email: 'Nina@Newco.test', email_verified: true, name: 'Nina New' });
    const page = await freshPage(`/invite/${await invite({ role: 'read' })}`);
    await page.waitForURL('**/sign-in?invite=*');
    expect(await page.getByTestId('invite-note').innerText()).toBe('Sign in to accept your invitation.');
    expect(await page.getByTestId('provider-oidc').innerText()).toBe('Sign in with Acme SSO');
    await signInAtProvider(page, 'nina');
    await page.waitForURL(`**/o/${a.orgName}`);
    expect(await page.getByTestId('org-name').innerText()).toBe(a.orgName);
    expect(await page.getByTestId('org-role').innerText()).toBe('read');
    expect(await page.locator('.who').innerText()).toBe('nina@newco.test');
    expect(await roleIn('nina@newco.test')).toBe('read');
    // The user was made from the provider's claims.
    const members = await gw.call('GET', `/v1/orgs/${a.orgName}/members`, { token: a.managementKey });
    expect(members.body.data).toContainEqual(
      expect.objectContaining({ email: 'nina@newco.test', name: 'Nina New', role: 'read' }),
    );
  });

  it("an existing member's verified email links the provider account to them: they land on their factory", async () => {
    const members = await gw.call('GET', `/v1/orgs/${a.orgName}/members`, { token: a.managementKey });
    const ownerEmail = (members.body.data as { userId: string; email: string }[]).find(
      (m) => m.userId === a.ownerId,
    )!.email;
    idp.accounts.set('owner-at-acme', { email: ownerEmail, email_verified: true });
    const page = await freshPage('/sign-in');
    await signInAtProvider(page, 'owner-at-acme');
    await page.waitForURL(factoryHome(a.appId));
    expect(await page.locator('.who').innerText()).toBe(ownerEmail);
    const me = await page.evaluate(async () => (await fetch('/v1/dashboard/session')).json());
    expect(me.data.user.id).toBe(a.ownerId);
  });

  it('an unverified email is refused: the page says why, nothing about any account, no session', async () => {
    idp.accounts.set('unverified', { email: 'nina@newco.test', email_verified: false });
    const page = await freshPage('/sign-in');
    await signInAtProvider(page, 'unverified');
    expect(await reasonOn(page)).toBe('The identity provider did not confirm a verified email address for you.');
    expect(await sessionCookie(page)).toBeUndefined();
    expect(await page.locator('body').innerText()).not.toContain('nina');
  });

  it('the provider refusing (the person cancels there) gives the sign-in page, never an error body', async () => {
    const page = await freshPage('/sign-in');
    await signInAtProvider(page, '', { cancel: true });
    expect(await reasonOn(page)).toBe(
      'The identity provider did not sign you in. Try again, or ask your administrator.',
    );
    expect(await sessionCookie(page)).toBeUndefined();
  });

  it("a bad state: a callback made in someone else's browser does not sign this one in", async () => {
    // The attacker starts a flow and signs in at the provider as themselves, then sends the callback link.
    idp.accounts.set('attacker', { email: 'mallory@newco.test', email_verified: true });
    const started = await gw.call('GET', '/auth/oidc/start');
    const callback = await idp.signIn(String(started.headers.location), 'attacker');
    expect(new URL(callback).pathname).toBe('/auth/oidc/callback');
    const page = await freshPage('/sign-in');
    await page.goto(callback);
    expect(await reasonOn(page)).toBe(
      'That sign-in was not started in this browser, or was already finished. Start again.',
    );
    expect(await sessionCookie(page)).toBeUndefined();
  });

  it('a replayed code: the callback opened again after signing in is refused', async () => {
    idp.accounts.set('auto-replay', { email: 'replay@auto-join.test', email_verified: true });
    await gw.call('PATCH', `/v1/orgs/${a.orgName}`, {
      token: a.managementKey,
      body: { autoJoin: { domains: ['auto-join.test'], role: 'read' } },
    });
    const page = await freshPage('/sign-in');
    const callback = page.waitForRequest((r) => r.url().startsWith(`${gw.base}/auth/oidc/callback?`));
    await signInAtProvider(page, 'auto-replay');
    await page.waitForURL(factoryHome(a.appId));
    const used = (await callback).url();
    expect(new URL(used).searchParams.get('code')).toBeTruthy();
    // The browser still holding that flow's cookie (put back: the callback cleared it) opens the URL again: the
    // flow was used once, so the code is never exchanged again.
    const state = new URL(used).searchParams.get('state')!;
    await page.context().addCookies([{ name: 'attest_sign_in', value: state, url: `${gw.base}/auth/oidc/callback` }]);
    await page.goto(used);
    expect(await reasonOn(page)).toBe(
      'That sign-in was not started in this browser, or was already finished. Start again.',
    );
  });

  it('a domain auto-join: a new person whose verified email is at the org domain joins at the set role', async () => {
    await gw.call('PATCH', `/v1/orgs/${a.orgName}`, {
      token: a.managementKey,
      body: { autoJoin: { domains: ['auto-join.test'], role: 'write' } },
    });
    idp.accounts.set('walt', { email: 'walt@auto-join.test', email_verified: true });
    const page = await freshPage('/sign-in');
    await signInAtProvider(page, 'walt');
    await page.waitForURL(factoryHome(a.appId));
    expect(await page.locator('.who').innerText()).toBe('walt@auto-join.test');
    expect(await roleIn('walt@auto-join.test')).toBe('write');
    // A subdomain is not the domain.
    idp.accounts.set('sub', { email: 'sub@eng.auto-join.test', email_verified: true });
    const other = await freshPage('/sign-in');
    await signInAtProvider(other, 'sub');
    expect(await reasonOn(other)).toBe(
      'You are signed in, but not a member of any organization here yet. Ask an owner for an invitation.',
    );
    expect(await roleIn('sub@eng.auto-join.test')).toBeNull();
  });

  it('an invitation for another email is refused with the reason, and joins nobody', async () => {
    idp.accounts.set('erin', { email: 'erin@newco.test', email_verified: true });
    const page = await freshPage(`/invite/${await invite({ email: 'someone-else@newco.test', role: 'write' })}`);
    await page.waitForURL('**/sign-in?invite=*');
    await signInAtProvider(page, 'erin');
    expect(await reasonOn(page)).toBe(
      'That invitation is for another email address. Sign in with the address it was sent to.',
    );
    expect(await roleIn('erin@newco.test')).toBeNull();
    expect(await sessionCookie(page)).toBeUndefined();
  });

  // Last: it moves the gateway's clock 7 days on.
  it('an expired invitation is refused with the reason', async () => {
    idp.accounts.set('late', { email: 'late@newco.test', email_verified: true });
    const token = await invite({ role: 'read' });
    gw.clock.advance(7 * 86_400_000);
    const page = await freshPage(`/invite/${token}`);
    await page.waitForURL('**/sign-in?invite=*');
    await signInAtProvider(page, 'late');
    expect(await reasonOn(page)).toBe('That invitation has expired (7 days). Ask for a new one.');
    expect(await roleIn('late@newco.test')).toBeNull();
  });
});
