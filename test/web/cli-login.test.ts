// `attest login` through the browser, as a person does it: the CLI (a child process, --no-open) prints the
// /cli-login link, the browser signs in and confirms, the CLI stores a login token that reads the factory;
// the device flow (in process, its waits moving the gateway's clock) confirmed and refused on /device; and
// the "Your tokens" page listing and revoking them.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Tenant } from '../helpers/gateway.js';
import { deviceLogin, type BrowserLoginResult } from '../../src/cli/browser-login.js';
import { ROOT, cliHome } from '../cli/cli-helpers.js';
import { cliArgv } from '../helpers/cli-main.js';
import {
  describeInBrowser,
  factoryHome,
  newContext,
  screenshot,
  signIn,
  type WebGateway,
  withDashboardAndTenants,
} from './helpers.js';

describeInBrowser('attest login through the browser', () => {
  let gw: WebGateway;
  let browser: Browser;
  let a: Tenant;
  let b: Tenant;
  withDashboardAndTenants((s) => ({ gw, browser, a, b } = s));

  const readFactory = (token: string, t: Tenant) => gw.call('GET', `/v1/apps/${t.appId}`, { token, appId: t.appId });
  const listTokens = async (token: string) =>
    (await gw.call('GET', '/v1/me/login-tokens', { token })).body.data as { id: string; name: string }[];

  it('desktop: the CLI prints the link, the browser signs in and confirms, the CLI stores a token', async () => {
    const home = cliHome();
    const child = spawn(process.execPath, [...cliArgv(), 'login', '--url', gw.base, '--no-open'], {
      cwd: ROOT,
      env: home.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      const link = /http:\/\/127\.0\.0\.1:\d+\/cli-login\?\S+/;
      await expect.poll(() => link.test(stdout), { timeout: 30_000 }).toBe(true);
      const url = new URL(link.exec(stdout)![0]);
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      const redirectUri = url.searchParams.get('redirect_uri')!;
      expect(redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      // Anything at the CLI's port without this run's state is refused, and the CLI keeps waiting.
      const forged = await fetch(`${redirectUri}?code=forged&state=${'x'.repeat(32)}`);
      expect(forged.status).toBe(400);
      expect(child.exitCode).toBeNull();

      // Signed out: the page asks to sign in first, then comes back to the confirmation.
      const ctx = await newContext(browser, gw);
      const page = await ctx.newPage();
      await page.goto(`${url.pathname}${url.search}`);
      await page.waitForURL('**/sign-in?**');
      await page.getByLabel('Login token').fill(a.loginToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/cli-login?**');
      expect(await page.getByTestId('cli-login-client').innerText()).toBe(`attest CLI on ${os.hostname()}`);
      expect(await page.getByTestId('cli-login-port').innerText()).toBe(
        new URL(url.searchParams.get('redirect_uri')!).port,
      );
      await screenshot(page, 'cli-login-confirm');
      await page.getByRole('button', { name: 'Sign in the CLI' }).click();
      await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=/);
      expect(await page.locator('h1').innerText()).toBe('Signed in');
      await ctx.close();

      expect(await exited, stderr).toBe(0);
      expect(stdout).toContain(`Logged in to ${gw.base} with a login token; factory ${a.appId}`);
      const profile = JSON.parse(fs.readFileSync(home.profileFile, 'utf8')) as { token: string; appId: string };
      expect(profile.appId).toBe(a.appId);
      expect(profile.token).toMatch(/^olu_/);
      expect(profile.token).not.toBe(a.loginToken);
      expect((await readFactory(profile.token, a)).status).toBe(200);
      expect((await listTokens(a.loginToken)).map((t) => t.name)).toContain(
        `attest login (attest CLI on ${os.hostname()})`,
      );
    } finally {
      child.kill();
    }
  });

  /** An in-process device login whose every wait is held until the test lets the next poll go. */
  function heldDeviceLogin(clientName: string) {
    const printed: string[] = [];
    let waiting: (() => void) | null = null;
    let waits = 0;
    const result: Promise<BrowserLoginResult> = deviceLogin({
      url: gw.base,
      clientName,
      print: (line) => printed.push(line),
      sleep: (ms) =>
        new Promise<void>((resolve) => {
          gw.clock.advance(ms);
          waits++;
          waiting = resolve;
        }),
    });
    result.catch(() => undefined);
    return {
      printed,
      result,
      /** Lets the pending wait end (one poll follows) and waits for the next wait or the end. */
      async poll() {
        const before = waits;
        const go = waiting;
        waiting = null;
        go?.();
        await Promise.race([expect.poll(() => waits).toBeGreaterThan(before), result.catch(() => undefined)]);
      },
      async started() {
        await expect.poll(() => waits).toBe(1);
      },
    };
  }

  it('device: the code confirmed on /device signs the terminal in; a refused one does not', async () => {
    const run = heldDeviceLogin('attest CLI on ssh-box');
    await run.started();
    const text = run.printed.join('\n');
    const complete = /(\S+\/device\?code=([A-Z]{4}-[A-Z]{4}))/.exec(text);
    expect(complete, text).not.toBeNull();
    expect(text).toContain(`and confirm the code  ${complete![2]}`);
    await run.poll(); // not confirmed yet: authorization_pending, and the CLI keeps waiting

    const ctx = await newContext(browser, gw);
    const page = await signIn(ctx, gw, a.loginToken);
    await page.waitForURL(factoryHome(a.appId));
    await page.goto(`/device?code=${complete![2]}`);
    expect(await page.getByTestId('device-client').innerText()).toBe('attest CLI on ssh-box');
    expect(await page.getByTestId('device-ip').innerText()).toBe('127.0.0.1');
    expect(await page.getByTestId('device-code').innerText()).toBe(complete![2]);
    await screenshot(page, 'device-confirm');
    await page.getByRole('button', { name: 'Sign in the terminal' }).click();
    expect(await page.getByTestId('device-done').innerText()).toContain('signed in as you');
    await run.poll();
    const signedIn = await run.result;
    expect(signedIn.user.id).toBe(a.ownerId);
    expect((await readFactory(signedIn.token, a)).status).toBe(200);

    // The same code again: nothing waits for it any more.
    await page.goto(`/device?code=${complete![2]}`);
    expect(await page.getByTestId('device-error').innerText()).toContain('No sign-in is waiting for this code');

    const refused = heldDeviceLogin('attest CLI on someone-else');
    await refused.started();
    const code = /confirm the code {2}([A-Z]{4}-[A-Z]{4})/.exec(refused.printed.join('\n'))![1]!;
    await page.goto('/device');
    await page.getByLabel('Code').fill(code.toLowerCase().replace('-', ''));
    await page.getByRole('button', { name: 'Continue' }).click();
    expect(await page.getByTestId('device-client').innerText()).toBe('attest CLI on someone-else');
    await page.getByRole('button', { name: 'Refuse' }).click();
    expect(await page.getByTestId('device-done').innerText()).toContain('Refused');
    await refused.poll();
    await expect(refused.result).rejects.toThrow('The sign-in was refused on the dashboard.');
    await ctx.close();
  });

  it('"Your tokens" lists your login tokens, not another person\'s, and revokes one after a confirmation', async () => {
    const minted = await gw.call('POST', `/v1/admin/users/${a.ownerId}/login-tokens`, { token: gw.adminToken });
    const spare = minted.body.data as { id: string; token: string };
    expect((await readFactory(spare.token, a)).status).toBe(200);
    const bTokens = await listTokens(b.loginToken);

    const ctx = await newContext(browser, gw);
    const page = await signIn(ctx, gw, a.loginToken);
    await page.waitForURL(factoryHome(a.appId));
    await page.getByTestId('nav-tokens').click();
    await page.waitForURL('**/tokens');
    const rows = page.getByTestId('token-row');
    const expected = (await listTokens(a.loginToken)).map((t) => t.id);
    await expect.poll(() => rows.count()).toBe(expected.length);
    const ids = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
    expect(ids).toEqual(expected);
    expect(ids).toContain(spare.id);
    for (const t of bTokens) expect(ids).not.toContain(t.id);
    const spareRow = page.locator(`[data-testid="token-row"][data-id="${spare.id}"]`);
    expect(await spareRow.getByTestId('token-last-used').innerText()).not.toBe('never');
    expect(await page.getByText('(this browser)').count()).toBe(1);
    await screenshot(page, 'your-tokens');

    await spareRow.getByRole('button', { name: 'Revoke' }).click();
    const dialog = page.getByTestId('confirm-dialog');
    expect(await dialog.innerText()).toContain('stops working at once');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await spareRow.count()).toBe(1);
    await spareRow.getByRole('button', { name: 'Revoke' }).click();
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => spareRow.count()).toBe(0);
    expect((await readFactory(spare.token, a)).status).toBe(401);
    expect(await rows.count()).toBe(expected.length - 1);
    await ctx.close();
  });
});
