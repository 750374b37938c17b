// Browser tests: a real gateway listening on a port (temp data dir; a fresh PostgreSQL schema when
// TEST_DATABASE_URL is set) serving the built dashboard from dist/web, driven by playwright-core in Debian's
// Chromium. No Chromium → the web tests skip with one printed line (CI sets ATTEST_REQUIRE_BROWSER=1, where a
// missing browser fails instead).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ManualClock } from '../../src/server/clock.js';
import { createTenant, startGateway, type StartOptions, type Tenant, type TestGateway } from '../helpers/gateway.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SCREENSHOTS = path.join(ROOT, 'test', 'web', 'screenshots');
export const CHROMIUM = process.env.ATTEST_CHROMIUM ?? '/usr/bin/chromium';
export const browserFound = fs.existsSync(CHROMIUM);

/** describe() when a Chromium is there; otherwise one clear line and the block skipped (or a failure in CI). */
export function describeInBrowser(name: string, fn: () => void): void {
  if (browserFound) {
    describe(name, fn);
    return;
  }
  if (process.env.ATTEST_REQUIRE_BROWSER)
    throw new Error(`No Chromium at ${CHROMIUM}: the browser tests are required here (ATTEST_REQUIRE_BROWSER)`);
  console.log(
    `web tests skipped (${name}): no Chromium at ${CHROMIUM}; install it with \`apt-get install chromium\` or set ` +
      `ATTEST_CHROMIUM`,
  );
  describe.skip(name, fn);
}

// ---- the dashboard build ------------------------------------------------------------------------------

function newest(dir: string): number {
  let latest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) latest = Math.max(latest, newest(p));
    else if (!e.name.endsWith('.d.ts')) latest = Math.max(latest, fs.statSync(p).mtimeMs);
  }
  return latest;
}

function webIsFresh(): boolean {
  const index = path.join(ROOT, 'dist', 'web', 'index.html');
  // The dashboard bundles the shared API client (src/client) too.
  return (
    fs.existsSync(index) &&
    fs.statSync(index).mtimeMs >= Math.max(newest(path.join(ROOT, 'web')), newest(path.join(ROOT, 'src', 'client')))
  );
}

/**
 * Builds dist/web when it is missing or older than web/ (so `npm test` works from a fresh clone). Several test
 * files may ask at once: one builds under a lock directory, the others wait for it.
 */
export async function ensureWebBuilt(): Promise<void> {
  if (webIsFresh()) return;
  const lock = path.join(ROOT, 'dist', '.web-build-lock');
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      // Someone else builds; a lock older than 5 minutes is a crashed build.
      try {
        if (Date.now() - fs.statSync(lock).mtimeMs > 300_000) fs.rmSync(lock, { recursive: true, force: true });
      } catch {
        /* gone already */
      }
      await new Promise((r) => setTimeout(r, 500));
      if (webIsFresh()) return;
    }
  }
  try {
    if (!webIsFresh())
      execFileSync('npm', ['run', '--silent', 'build:web'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

// ---- gateway and browser ------------------------------------------------------------------------------

export interface WebGateway extends TestGateway {
  /** http://127.0.0.1:<port> */
  base: string;
}

/** A port free on 127.0.0.1 right now (for a gateway whose public URL must be known before it starts). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A real gateway on a free port (or `port`), its clock at the real now (cookies and links expire by it).
 * `publicUrl`: its public URL is its own address (an identity provider's redirects then come back to it).
 */
export async function startWebGateway(
  opts: StartOptions & { publicUrl?: boolean; port?: number } = {},
): Promise<WebGateway> {
  await ensureWebBuilt();
  const { publicUrl, port: given, ...rest } = opts;
  const port = given ?? (publicUrl ? await freePort() : 0);
  const gw = await startGateway({
    clock: new ManualClock(Date.now()),
    ...rest,
    env: {
      ATTEST_AUTH_CACHE_MS: '0',
      ...(publicUrl ? { ATTEST_PUBLIC_URL: `http://127.0.0.1:${port}` } : {}),
      ...rest.env,
    },
  });
  await gw.app.listen({ port, host: '127.0.0.1' });
  const address = gw.app.server.address();
  if (!address || typeof address === 'string') throw new Error('gateway did not listen on a port');
  return Object.assign(gw, { base: `http://127.0.0.1:${address.port}` });
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // A fresh profile per launch (playwright makes a temp user-data dir); no background traffic: this
    // machine's network is closed and Chromium would keep trying.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

export async function newContext(browser: Browser, gw: WebGateway): Promise<BrowserContext> {
  const ctx = await browser.newContext({
    baseURL: gw.base,
    viewport: { width: 1280, height: 860 },
    colorScheme: 'light',
  });
  ctx.setDefaultTimeout(15_000);
  return ctx;
}

/** A one-time sign-in link for the user of `loginToken`, pointed at this gateway's port. */
export async function signInLink(gw: WebGateway, loginToken: string): Promise<string> {
  const r = await gw.call('POST', '/v1/me/dashboard-links', { token: loginToken });
  if (r.status !== 201) throw new Error(`dashboard link: ${r.status} ${r.text}`);
  const u = new URL(r.body.data.url as string);
  return `${gw.base}${u.pathname}`;
}

/** Signs the context in by opening a fresh link; returns the page, on wherever the link led. */
export async function signIn(ctx: BrowserContext, gw: WebGateway, loginToken: string): Promise<Page> {
  const page = await ctx.newPage();
  await page.goto(await signInLink(gw, loginToken));
  return page;
}

/**
 * Signs the user of `loginToken` in on `ctx` and waits for the factory's home page; the page's script errors are
 * logged.
 */
export async function openFactoryHome(
  ctx: BrowserContext,
  gw: WebGateway,
  who: { loginToken: string; appId: string },
): Promise<Page> {
  const page = await signIn(ctx, gw, who.loginToken);
  page.on('pageerror', (e) => console.log('page error:', e.message));
  await page.waitForURL(factoryHome(who.appId));
  return page;
}

/**
 * A URL matcher for a factory's home page, whatever its query: the Overview, opened with no window on a factory
 * whose sessions are older than the default one, replaces its URL with the window that holds them
 * (`?from=…&to=…`), and a glob on the bare path misses the page when that replacement lands first.
 */
export function factoryHome(appId: string): (url: URL) => boolean {
  return (url) => url.pathname === `/f/${appId}`;
}

export interface DashboardAndTenants {
  gw: WebGateway;
  browser: Browser;
  a: Tenant;
  b: Tenant;
}

/**
 * Registers, where it is called, a beforeAll that starts a web gateway, launches the browser and creates tenant
 * `a` then tenant `b`, and an afterAll that closes the browser and the gateway. `use` receives the handles once
 * they exist: `withDashboardAndTenants((s) => ({ gw, browser, a, b } = s))`. A beforeAll the file registers
 * after this call (seeding, signing in) runs after it.
 */
export function withDashboardAndTenants(use: (handles: DashboardAndTenants) => void): void {
  let gw: WebGateway | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    gw = await startWebGateway();
    browser = await launchBrowser();
    const a = await createTenant(gw);
    const b = await createTenant(gw);
    use({ gw, browser, a, b });
    // Generous: the first file may build dist/web (about 20 s alone, more beside the rest of the suite).
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: false });
}
