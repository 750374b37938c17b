// Browser test of the budgets page (/f/{appId}/budgets) and the Overview's factory budget: sessions seeded
// through the API at known instants of the gateway's clock, so each amount below is computed by hand
// (claude-sonnet-4-5 input: $3 per million tokens; a turn of 100,000 input tokens is $0.30).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Tenant } from '../helpers/gateway.js';
import { ingest, sessionDoc } from '../areas/metrics/sessions.js';
import { Receiver } from '../areas/notifications/receiver.js';
import {
  describeInBrowser,
  newContext,
  openFactoryHome,
  screenshot,
  withDashboardAndTenants,
  type WebGateway,
} from './helpers.js';

const turns = (n: number) => Array.from({ length: n }, () => ({ model: 'claude-sonnet-4-5', in: 100_000, out: 0 }));

describeInBrowser('dashboard: budgets', () => {
  let gw: WebGateway;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let a: Tenant;
  const receiver = new Receiver();

  withDashboardAndTenants((s) => ({ gw, browser, a } = s));
  beforeAll(async () => {
    gw.clock.set(Date.parse('2026-11-10T12:00:00Z'));
    const auth = { token: a.loginToken, appId: a.appId };
    await ingest(gw, auth, [sessionDoc({ repo: 'acme/api', startedAt: '2026-11-10T09:00:00Z', turns: turns(2) })]);
    await ingest(gw, auth, [sessionDoc({ repo: 'acme/web', startedAt: '2026-11-09T09:00:00Z', turns: turns(1) })]);
    const r = await gw.call('POST', '/v1/budgets', {
      token: a.factoryKey,
      appId: a.appId,
      body: { name: 'Factory day', scope: { kind: 'factory' }, amountUsd: 2, period: 'day' },
    });
    if (r.status !== 201) throw new Error(r.text);
    ctx = await newContext(browser, gw);
    page = await openFactoryHome(ctx, gw, a);
    await receiver.start();
  }, 240_000);
  afterAll(() => receiver.close());

  const until = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 20_000 });

  it("the Overview shows the factory budget's burn for today", async () => {
    // Today (UTC) holds $0.60 of $2.00; 12 of 24 hours gone: projected $1.20.
    await until(async () => (await page.getByTestId('factory-budget').innerText()).replace(/\s+/g, ' ')).toBe(
      'Factory day: $0.60 of $2.00 this day 30% · projected $1.20',
    );
  });

  it('lists budgets with their burn-down, creates one and edits it', async () => {
    await page.getByRole('link', { name: 'Budgets', exact: true }).click();
    await page.waitForURL(`**/f/${a.appId}/budgets`);
    const factoryDay = page.locator('[data-budget="Factory day"]');
    await until(() => factoryDay.getByTestId('budget-spend').innerText()).toBe(
      "$0.60 of $2.00 this day (30%) · projected $1.20 by the period's end",
    );
    expect(await factoryDay.getByTestId('burn-down').locator('circle').count()).toBe(1);

    await page.getByTestId('budget-new').click();
    const form = page.getByTestId('budget-form');
    await form.getByLabel('Name').fill('Web week');
    await form.getByLabel('one repository').check();
    await form.getByLabel('Repository (owner/name)').fill('acme/web');
    await form.getByLabel('Amount (US dollars)').fill('1');
    await form.getByLabel('Period').selectOption('week');
    await form.getByLabel('Time zone').fill('UTC');
    await form.getByRole('button', { name: 'Save' }).click();
    // The week from Monday 9 November holds acme/web's $0.30: 30% of $1.00, over two days of burn-down.
    const webWeek = page.locator('[data-budget="Web week"]');
    await until(() => webWeek.getByTestId('budget-spend').innerText()).toMatch(/^\$0\.30 of \$1\.00 this week \(30%\)/);
    expect(await webWeek.getByTestId('burn-down').locator('circle').count()).toBe(2);

    await webWeek.getByRole('button', { name: 'Edit' }).click();
    await form.getByLabel('Amount (US dollars)').fill('3');
    await form.getByRole('button', { name: 'Save' }).click();
    await until(() => webWeek.getByTestId('budget-spend').innerText()).toMatch(/^\$0\.30 of \$3\.00 this week \(10%\)/);

    // A budget by telemetry resource attribute, typed as OTEL_RESOURCE_ATTRIBUTES writes it; no telemetry session
    // carried team=payments, so it has spent nothing.
    await page.getByTestId('budget-new').click();
    await form.getByLabel('Name').fill('Payments');
    await form.getByLabel('a telemetry attribute').check();
    await form.getByLabel('Resource attribute (key=value)').fill('team=payments');
    await form.getByLabel('Amount (US dollars)').fill('5');
    await form.getByLabel('Period').selectOption('month');
    await form.getByLabel('Time zone').fill('UTC');
    await form.getByRole('button', { name: 'Save' }).click();
    const payments = page.locator('[data-budget="Payments"]');
    await until(() => payments.getByTestId('budget-spend').innerText()).toMatch(
      /^\$0\.00 of \$5\.00 this month \(0%\)/,
    );
    expect(await payments.innerText()).toContain('team=payments');

    // A time zone the API refuses shows its message under the field.
    await page.getByTestId('budget-new').click();
    await form.getByLabel('Name').fill('Bad zone');
    await form.getByLabel('Amount (US dollars)').fill('1');
    await form.getByLabel('Time zone').fill('Mars/Olympus');
    await form.getByRole('button', { name: 'Save' }).click();
    await until(() => page.getByTestId('error-budget-timeZone').innerText()).toContain('Mars/Olympus');
    await screenshot(page, 'budgets');

    // Deleting a budget (the API answers 204) takes it off the page and out of the API.
    await payments.getByRole('button', { name: 'Delete' }).click();
    await until(() => payments.count()).toBe(0);
    const left = await gw.call('GET', '/v1/budgets', { token: a.loginToken, appId: a.appId });
    expect(left.body.data.map((b: { name: string }) => b.name)).not.toContain('Payments');
  });

  it('settings: adds a webhook channel (secret shown once), refuses non-https, sends a test event', async () => {
    // The receiver listens on 127.0.0.1: the operator's switch for private targets, as in development.
    gw.app.attest.config.notifyAllowPrivate = true;
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await page.waitForURL(`**/f/${a.appId}/settings`);
    const form = page.getByTestId('channel-form');
    await form.getByLabel('Channel name').fill('ops');
    await form.getByLabel('URL').fill('http://example.com/hook');
    await form.getByRole('button', { name: 'Add channel' }).click();
    await until(() => page.getByTestId('error-channel-url').innerText()).toContain('https');
    await form.getByLabel('URL').fill(`${receiver.url}/ops`);
    await form.getByRole('button', { name: 'Add channel' }).click();
    const secret = (await page.getByTestId('channel-secret').locator('code').innerText()).trim();
    expect(secret).toMatch(/^whsec_/);
    receiver.expectSecret('/ops', secret);
    const row = page.locator('tr[data-channel="ops"]');
    await row.getByRole('button', { name: 'Send a test event' }).click();
    await until(() => row.getByTestId('channel-test-result').innerText()).toBe('succeeded (HTTP 200)');
    expect(receiver.at('/ops').map((r) => r.signatureValid)).toEqual([true]);

    // Deleting it (the API answers 204) takes the row away, and the API lists it no more.
    await row.getByRole('button', { name: 'Delete' }).click();
    await until(() => row.count()).toBe(0);
    const left = await gw.call('GET', '/v1/notification-channels', { token: a.loginToken, appId: a.appId });
    expect(left.body.data.map((c: { name: string }) => c.name)).not.toContain('ops');
  });
});
