/// <reference lib="dom" />
// Browser tests of the verdict on the dashboard: a link to `#turn-N` scrolls the virtualized transcript to
// that turn and marks it. Seeded through the API on a real gateway; what is asserted is what a person reads.
import { beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import type { Tenant } from '../helpers/gateway.js';
import { describeInBrowser, newContext, openFactoryHome, screenshot, withDashboardAndTenants, type WebGateway } from './helpers.js';
import { bigSession, ok } from './seed.js';

/** Whether the element's top edge lies inside both the window and the scrolling box that holds it. */
async function inView(el: Locator, box: Locator): Promise<boolean> {
  const [r, b] = [await el.boundingBox(), await box.boundingBox()];
  const height = await el.page().evaluate(() => window.innerHeight);
  if (!r || !b) return false;
  return r.y >= b.y - 1 && r.y < b.y + b.height && r.y >= 0 && r.y < height;
}

describeInBrowser('dashboard: the verdict', () => {
  let gw: WebGateway;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let a: Tenant;
  let b: Tenant;
  const traces = new Map<string, string>();

  const until = <T,>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000 });

  withDashboardAndTenants((s) => ({ gw, browser, a, b } = s));
  beforeAll(async () => {
    const as = { token: a.factoryKey, appId: a.appId };
    const big = bigSession(1200);
    const synced = await ok(gw.call('POST', '/v1/agents/sync', { ...as, body: { schemaVersion: 1, sessions: [big] } }), 'sync');
    expect(synced.rejected).toEqual([]);
    const listed = await ok(gw.call('GET', '/v1/sessions?repoScope=all&limit=100', { token: a.loginToken, appId: a.appId }), 'list');
    for (const s of listed.sessions as Array<{ sessionId: string; traceId: string }>) traces.set(s.sessionId, s.traceId);
    ctx = await newContext(browser, gw);
    page = await openFactoryHome(ctx, gw, a);
  }, 240_000);

  it('#turn-N scrolls the 1,200-turn transcript to that turn and marks it', async () => {
    const trace = traces.get(bigSession(1).id)!;
    await page.goto(`/f/${a.appId}/sessions/${trace}#turn-900`);
    const transcript = page.getByTestId('transcript');
    const turn = transcript.locator('article.turn[data-turn="900"]');
    await until(() => turn.count()).toBe(1);
    expect(await turn.innerText()).toContain('turn number 900 of the long session');
    expect(await turn.getAttribute('class')).toContain('marked');
    expect(await turn.getAttribute('aria-current')).toBe('location');
    await until(() => inView(turn, transcript)).toBe(true);
    // Only that turn is marked, and the page still keeps only the turns in view.
    expect(await transcript.locator('article.turn.marked').count()).toBe(1);
    expect(await transcript.locator('article.turn').count()).toBeLessThan(60);
    await screenshot(page, 'session-turn-marked');

    // Another hash on the same page moves the mark.
    await page.evaluate(() => { window.location.hash = '#turn-17'; });
    const other = transcript.locator('article.turn[data-turn="17"]');
    await until(() => other.getAttribute('class')).toContain('marked');
    await until(() => inView(other, transcript)).toBe(true);
    expect(await transcript.locator('article.turn.marked').count()).toBe(1);

    // A turn the session does not have is said so, not silently ignored.
    await page.goto(`/f/${a.appId}/sessions/${trace}#turn-5000`);
    await until(() => page.getByTestId('turn-missing').innerText()).toBe('Turn #5000 is not in this transcript.');
  }, 60_000);

  it("another factory's member cannot open the session", async () => {
    const trace = traces.get(bigSession(1).id)!;
    const other = await newContext(browser, gw);
    try {
      const p = await openFactoryHome(other, gw, b);
      await p.goto(`/f/${b.appId}/sessions/${trace}#turn-900`);
      await until(() => p.locator('main').innerText()).not.toContain('Loading');
      expect(await p.locator('main').innerText()).not.toContain('turn number 900');
    } finally {
      await other.close();
    }
  });
});
