// Browser tests of the factory home (overview) and the export buttons: a real gateway on a port serving the
// built dashboard, Chromium through playwright-core, signed in with a one-time link (test/web/helpers.ts).
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTenant, type Tenant } from '../helpers/gateway.js';
import { ingest, sessionDoc } from '../areas/metrics/sessions.js';
import {
  describeInBrowser,
  launchBrowser,
  newContext,
  screenshot,
  signIn,
  startWebGateway,
  type WebGateway,
} from './helpers.js';

const usd = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 4,
});
const turn = { model: 'claude-sonnet-4-5', in: 1000, out: 500 };

describeInBrowser('dashboard: overview and exports', () => {
  let gw: WebGateway;
  let base: string;
  let t: Tenant;
  let browser: Browser;
  let page: Page;
  const now = Date.now();
  const as = () => ({ token: t.factoryKey, appId: t.appId });
  /** What the test seeded in the last 7 days and the 7 before (the prior window). */
  const current = [
    { hoursAgo: 2, turns: 1, branch: 'main' },
    { hoursAgo: 30, turns: 2, branch: 'main' },
    { hoursAgo: 50, turns: 3, branch: 'feat/x' },
    { hoursAgo: 80, turns: 4, branch: 'feat/x' },
    { hoursAgo: 120, turns: 5, branch: 'fix/y' },
  ];
  const prior = [
    { hoursAgo: 24 * 9, turns: 1, branch: 'main' },
    { hoursAgo: 24 * 10, turns: 1, branch: 'main' },
  ];

  beforeAll(async () => {
    gw = await startWebGateway();
    base = gw.base;
    t = await createTenant(gw);
    await ingest(
      gw,
      as(),
      [...current, ...prior].map((s, i) =>
        sessionDoc({
          startedAt: new Date(now - s.hoursAgo * 3_600_000).toISOString(),
          repo: 'acme/api',
          branch: s.branch,
          title: i === 0 ? 'has, comma' : `s${i}`,
          turns: Array.from({ length: s.turns }, () => turn),
        }),
      ),
    );
    browser = await launchBrowser();
    page = await signIn(await newContext(browser, gw), gw, t.loginToken);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it('the factory home shows the tiles with their change against the prior window, from seeded data', async () => {
    // The list's costs of the seeded sessions: each is `turns` assistant turns of the same price.
    const list = await gw.call('GET', '/v1/sessions?repoScope=all&limit=100', as());
    const sessions: { costUsd: number; turnCount: number; userTurnCount: number; startedAt: string }[] =
      list.body.data.sessions;
    expect(sessions).toHaveLength(7);
    const unit = sessions.find((s) => s.turnCount - s.userTurnCount === 1)!.costUsd;
    const cost = (xs: { turns: number }[]) => xs.reduce((n, s) => n + s.turns * unit, 0);

    await page.goto(`${base}/f/${t.appId}?days=7`);
    await page.getByTestId('tiles').waitFor();
    expect(await page.getByTestId('tile-sessions-value').textContent()).toBe(String(current.length));
    expect(await page.getByTestId('tile-totalCostUsd-value').textContent()).toBe(usd.format(cost(current)));
    expect(await page.getByTestId('tile-turns-value').textContent()).toBe(
      String(current.reduce((n, s) => n + s.turns + 1, 0)),
    );
    // No PR merged: cost per merged PR has no value, every cent is unshipped.
    expect(await page.getByTestId('tile-costPerMergedPrUsd-value').textContent()).toBe('—');
    expect(await page.getByTestId('tile-unshippedCostUsd-value').textContent()).toBe(usd.format(cost(current)));
    // 5 sessions now, 2 before: +150.0%.
    expect(await page.getByTestId('tile-sessions-change').textContent()).toContain('+150.0%');
    expect(await page.getByTestId('tile-sessions-change').textContent()).toContain('(2)');
    // Breakdown by branch, costliest first: feat/x (3+4 turns), fix/y (5), main (1+2).
    const branches = await page.getByTestId('breakdown-branch').locator('tbody tr td:first-child').allTextContents();
    expect(branches).toEqual(['feat/x', 'fix/y', 'main']);
    await page.getByTestId('trend-chart').locator('canvas').first().waitFor();
    await page.getByTestId('model-mix').waitFor();
    await screenshot(page, 'overview');
  });

  it('the factory home shows lines changed, active time, edit acceptance from telemetry, labelled so', async () => {
    await page.goto(`${base}/f/${t.appId}?days=7`);
    await page.getByTestId('tiles').waitFor();
    expect(await page.getByTestId('telemetry-tiles').count()).toBe(0); // none received yet
    const nanos = String(BigInt(now) * 1_000_000n);
    const point = (value: number, attrs: Record<string, string>) => ({
      asDouble: value,
      startTimeUnixNano: String(BigInt(now - 60_000) * 1_000_000n),
      timeUnixNano: nanos,
      attributes: Object.entries({ 'user.email': 'dev@example.com', ...attrs }).map(([key, v]) => ({
        key,
        value: { stringValue: v },
      })),
    });
    const sum = (name: string, dataPoints: unknown[]) => ({
      name,
      sum: { aggregationTemporality: 1, isMonotonic: true, dataPoints },
    });
    const body = {
      resourceMetrics: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'claude-code' } }] },
          scopeMetrics: [
            {
              metrics: [
                sum('claude_code.lines_of_code.count', [point(40, { type: 'added' }), point(12, { type: 'removed' })]),
                sum('claude_code.active_time.total', [point(5400, { type: 'user' })]),
                sum('claude_code.code_edit_tool.decision', [
                  point(3, { decision: 'accept' }),
                  point(1, { decision: 'reject' }),
                ]),
              ],
            },
          ],
        },
      ],
    };
    const r = await fetch(`${base}/v1/metrics`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.factoryKey}`,
        'x-outerlayer-app-id': t.appId,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    expect(r.status).toBe(200);
    await page.goto(`${base}/f/${t.appId}?days=7`);
    await page.getByTestId('telemetry-tiles').waitFor();
    expect(await page.getByTestId('telemetry-tiles').textContent()).toContain("From the agents' own telemetry");
    expect(await page.getByTestId('telemetry-lines').locator('.tile-value').textContent()).toBe('+40 / −12');
    expect(await page.getByTestId('telemetry-active').locator('.tile-value').textContent()).toBe('1.5 h');
    expect(await page.getByTestId('telemetry-acceptance').locator('.tile-value').textContent()).toBe('75.0% of 4');
  });

  it('the window picker and compare mode put two windows side by side', async () => {
    await page.goto(`${base}/f/${t.appId}?days=7`);
    await page.getByTestId('tiles').waitFor();
    // A controlled checkbox: the URL changes, then the page re-renders in compare mode.
    await page.getByRole('checkbox', { name: 'Compare' }).click();
    await page.waitForURL(/compare=/);
    const row = page.getByTestId('compare-sessions');
    await row.waitFor();
    expect(await row.locator('td').allTextContents()).toEqual(['Sessions', '2', '5', '+150.0%']);
    await screenshot(page, 'overview-compare');
    await page.getByRole('button', { name: 'Last 30 days' }).click();
    await page.waitForURL(/days=30/);
    // The 30-day window holds all 7 sessions (the old table stays until the new answer is in).
    await expect
      .poll(() => page.getByTestId('compare-sessions').locator('td').nth(2).textContent(), { timeout: 15_000 })
      .toBe('7');
  });

  it("a custom window the API refuses shows the API's message next to the field, and the page stays", async () => {
    await page.goto(`${base}/f/${t.appId}?days=7`);
    await page.getByTestId('tiles').waitFor();
    const form = page.getByTestId('window-picker').locator('form');
    await form.locator('input[name=from]').fill('2026-11-20');
    await form.locator('input[name=to]').fill('2026-11-10');
    await form.getByRole('button', { name: 'Apply' }).click();
    const error = page.getByTestId('window-error-from');
    await error.waitFor();
    // The gateway's words (400 invalid_date_range, detail on `from`), not the page's own.
    expect(await error.textContent()).toBe(
      'must not be after to: from (2026-11-20T00:00:00.000Z) is after to (2026-11-11T00:00:00.000Z).',
    );
    expect(page.url()).toMatch(/days=7/);
    expect(await page.getByTestId('tiles').isVisible()).toBe(true);
    // A window it accepts moves the page and clears the message.
    await form.locator('input[name=to]').fill('2026-11-25');
    await form.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/to=2026-11-25/);
    expect(await page.getByTestId('window-error-from').count()).toBe(0);
  });

  it('the sessions export downloads the rows the list shows for the same filters', async () => {
    await page.goto(`${base}/f/${t.appId}/sessions?repo=acme/api&branch=main`);
    await page.getByTestId('sessions-export').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('sessions-export').getByRole('button', { name: 'CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('sessions.csv');
    const text = fs.readFileSync((await download.path())!, 'utf8');
    const listed = await gw.call('GET', '/v1/sessions?repo=acme/api&branch=main&limit=100', as());
    const ids: string[] = listed.body.data.sessions.map((s: { traceId: string }) => s.traceId);
    expect(ids).toHaveLength(4);
    const lines = text.trimEnd().split('\r\n');
    expect(lines[0]!.startsWith('traceId,')).toBe(true);
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(ids);
    expect(text).toContain('"has, comma"');
    const [json] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('sessions-export').getByRole('button', { name: 'JSON' }).click(),
    ]);
    const rows = JSON.parse(fs.readFileSync((await json.path())!, 'utf8')) as { traceId: string }[];
    expect(rows.map((r) => r.traceId)).toEqual(ids);
  });
});
