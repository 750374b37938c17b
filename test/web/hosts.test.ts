// Browser tests of the hosts page (/f/{appId}/hosts): heartbeats sent through the API at known instants of the
// gateway's ManualClock, the browser's clock fixed at a known offset from them (page.clock), so each status and
// "N s ago" below is computed by hand. The page asks again every 5 s: a heartbeat sent while it is open shows up
// without a reload, and the ages tick.
import { beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Tenant } from '../helpers/gateway.js';
import {
  describeInBrowser,
  factoryHome,
  newContext,
  openFactoryHome,
  screenshot,
  signIn,
  type WebGateway,
  withDashboardAndTenants,
} from './helpers.js';

const SEC = 1000;
const MIN = 60 * SEC;

describeInBrowser('dashboard: hosts', () => {
  let gw: WebGateway;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let a: Tenant;
  let b: Tenant;
  let t0: number;

  const beat = async (t: Tenant, at: number, body: Record<string, unknown>) => {
    gw.clock.set(at);
    const r = await gw.call('POST', '/v1/hosts/heartbeat', {
      token: t.factoryKey,
      appId: t.appId,
      body: { runnerVersion: '1.4.0', ...body },
    });
    if (r.status !== 200) throw new Error(`heartbeat: ${r.status} ${r.text}`);
  };

  withDashboardAndTenants((s) => ({ gw, browser, a, b } = s));
  beforeAll(async () => {
    t0 = gw.clock.now();
    // At t0: alpha heard 42 s ago with a free slot (online), bravo 10 s ago at capacity (busy), charlie 5 min
    // ago (stale: older than 90 s), delta 2 h ago (offline: older than 10 min).
    await beat(a, t0 - 2 * 60 * MIN, { hostId: 'h-delta', name: 'delta', capacity: 2, activeJobs: 0 });
    await beat(a, t0 - 5 * MIN, { hostId: 'h-charlie', name: 'charlie', capacity: 4, activeJobs: 1 });
    await beat(a, t0 - 42 * SEC, {
      hostId: 'h-alpha',
      name: 'alpha',
      capacity: 4,
      activeJobs: 1,
      labels: ['linux', 'gpu'],
    });
    await beat(a, t0 - 10 * SEC, { hostId: 'h-bravo', name: 'bravo', capacity: 2, activeJobs: 2 });
    gw.clock.set(t0);
    ctx = await newContext(browser, gw);
    page = await openFactoryHome(ctx, gw, a);
  }, 240_000);

  const until = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 20_000 });
  const row = (hostId: string) => page.locator(`tr[data-host="${hostId}"]`);
  const cell = (hostId: string, testId: string) => row(hostId).getByTestId(testId).innerText();

  it('lists the hosts by name with their status, active jobs, capacity and heartbeat age', async () => {
    await page.clock.setFixedTime(t0);
    await page.getByRole('link', { name: 'Hosts', exact: true }).click();
    await page.waitForURL(`**/f/${a.appId}/hosts`);
    await until(() => page.getByTestId('hosts-table').locator('tbody tr td:first-child b').allInnerTexts()).toEqual([
      'alpha',
      'bravo',
      'charlie',
      'delta',
    ]);
    expect(await page.getByTestId('hosts-total').innerText()).toBe('4');
    const expected: Array<[string, string, string, string, string]> = [
      ['h-alpha', 'online', '1', '4', '42 s ago'],
      ['h-bravo', 'busy', '2', '2', '10 s ago'],
      ['h-charlie', 'stale', '1', '4', '5 min ago'],
      ['h-delta', 'offline', '0', '2', '2 h ago'],
    ];
    for (const [id, status, active, capacity, age] of expected) {
      expect(
        [
          await cell(id, 'host-status'),
          await cell(id, 'host-active'),
          await cell(id, 'host-capacity'),
          await cell(id, 'host-heartbeat'),
        ],
        id,
      ).toEqual([status, active, capacity, age]);
    }
    expect(await row('h-alpha').innerText()).toContain('linux');
    expect(await row('h-alpha').innerText()).toContain('1.4.0');
    expect(await page.getByTestId('hosts-summary').innerText()).toContain('1 online · 1 busy · 1 stale · 1 offline');
    await screenshot(page, 'hosts');
  });

  it('refreshes while open: the ages tick, and a heartbeat sent meanwhile shows up without a reload', async () => {
    await page.clock.setFixedTime(t0);
    await page.goto(`/f/${a.appId}/hosts`);
    await until(() => cell('h-alpha', 'host-heartbeat')).toBe('42 s ago');
    // 20 s later in the browser: alpha was heard 62 s ago, bravo 30 s ago.
    await page.clock.setFixedTime(t0 + 20 * SEC);
    await until(() => cell('h-alpha', 'host-heartbeat')).toBe('1 min ago');
    expect(await cell('h-bravo', 'host-heartbeat')).toBe('30 s ago');
    // charlie (stale) heartbeats at t0 + 20 s with 3 of 4 slots busy: online again, heard 0 s ago.
    await beat(a, t0 + 20 * SEC, { hostId: 'h-charlie', name: 'charlie', capacity: 4, activeJobs: 3 });
    const navigations: string[] = [];
    page.on('framenavigated', (f) => {
      if (f === page.mainFrame()) navigations.push(f.url());
    });
    await until(() => cell('h-charlie', 'host-status')).toBe('online');
    expect(await cell('h-charlie', 'host-active')).toBe('3');
    expect(await cell('h-charlie', 'host-heartbeat')).toBe('0 s ago');
    expect(navigations).toEqual([]);
    // bravo goes quiet: past 90 s without a heartbeat (the gateway's clock at t0 + 101 s) it turns stale.
    gw.clock.set(t0 + 101 * SEC);
    await page.clock.setFixedTime(t0 + 101 * SEC);
    await until(() => cell('h-bravo', 'host-status')).toBe('stale');
    expect(await cell('h-bravo', 'host-heartbeat')).toBe('1 min ago');
    expect(navigations).toEqual([]);
    gw.clock.set(t0);
  });

  it('B\'s hosts page is empty and says how hosts get there; A\'s hosts URL is "Not found" for B', async () => {
    const bctx = await newContext(browser, gw);
    const bpage = await signIn(bctx, gw, b.loginToken);
    await bpage.waitForURL(factoryHome(b.appId));
    await bpage.goto(`/f/${b.appId}/hosts`);
    const empty = bpage.getByTestId('hosts-empty');
    await empty.waitFor();
    expect(await empty.innerText()).toContain('attest host heartbeat');
    expect(await empty.innerText()).toContain(`attest login --url ${gw.base}`);
    expect(await bpage.locator('body').innerText()).not.toContain('alpha');
    await bpage.goto(`/f/${a.appId}/hosts`);
    await expect.poll(() => bpage.getByRole('heading', { name: 'Not found' }).count(), { timeout: 15_000 }).toBe(1);
    expect(await bpage.locator('body').innerText()).not.toContain('charlie');
    await bctx.close();
  });

  it('a signed-out visitor is sent to sign-in', async () => {
    const anon = await newContext(browser, gw);
    const p = await anon.newPage();
    await p.goto(`${gw.base}/f/${a.appId}/hosts`);
    await p.waitForURL('**/sign-in**');
    expect(await p.locator('body').innerText()).not.toContain('alpha');
    await anon.close();
  });
});
