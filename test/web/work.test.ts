/// <reference lib="dom" />
// Browser tests of the work board (/f/{appId}/work) and the work item page (/f/{appId}/work/{itemId}): a real
// gateway on a port serving the built dashboard, seeded through the API with the gateway's ManualClock at known
// instants; the browser's clock is fixed (page.clock) at a known offset from them, so every "N min left" below is
// computed by hand from the seeded times.
import crypto from 'node:crypto';
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
import { ok, png } from './seed.js';

const MIN = 60_000;

describeInBrowser('dashboard: work board and work item page', () => {
  let gw: WebGateway;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let a: Tenant;
  let b: Tenant;
  /** The gateway's clock when the live claims were taken. */
  let t0: number;
  const ids: Record<string, string> = {};
  let proofArtifact: string;
  let prArtifact: string;

  const until = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000 });

  withDashboardAndTenants((s) => ({ gw, browser, a, b } = s));
  beforeAll(async () => {
    const as = { token: a.factoryKey, appId: a.appId };
    const item = async (key: string, title: string, fields: Record<string, unknown>) => {
      ids[key] = (
        await ok(
          gw.call('POST', '/v1/work-items', {
            ...as,
            body: { tracker: 'github', trackerKey: `acme/api#${key}`, title, repository: 'acme/api', ...fields },
          }),
          title,
        )
      ).id;
    };
    await item('docs', 'Write the rate-limit docs', { stage: 'backlog' });
    await item('auth', 'Wait for the auth service', { stage: 'ready', blockClass: 'dependency' });
    await item('login', 'Fix the login redirect', { stage: 'in_progress' });
    await item('limiter', 'Review the limiter window', { stage: 'in_review', section: 'api' });
    await item('ship', 'Ship v2', { stage: 'done' });
    await item('old', 'An abandoned idea', { stage: 'backlog' });
    await ok(gw.call('POST', `/v1/work-items/${ids.old}/withdraw`, as), 'withdraw');

    // The limiter item's claim history: runner-1 (released), runner-2 (its lease ran out), then the live claim.
    t0 = gw.clock.now();
    gw.clock.set(t0 - 120 * MIN);
    await ok(
      gw.call('POST', `/v1/work-items/${ids.limiter}/claims`, {
        ...as,
        body: { source: 'runner-1', branch: 'attest/limiter-1', ttlSeconds: 600 },
      }),
      'claim 1',
    );
    gw.clock.set(t0 - 115 * MIN);
    expect((await gw.call('DELETE', `/v1/work-items/${ids.limiter}/claims/current`, as)).status).toBe(204);
    gw.clock.set(t0 - 60 * MIN);
    await ok(
      gw.call('POST', `/v1/work-items/${ids.limiter}/claims`, {
        ...as,
        body: { source: 'runner-2', branch: 'attest/limiter-2', ttlSeconds: 60 },
      }),
      'claim 2',
    );
    gw.clock.set(t0);
    // Live claims: the limiter for an hour (ends t0 + 60 min), the login redirect for 30 min (ends t0 + 30 min).
    await ok(
      gw.call('POST', `/v1/work-items/${ids.limiter}/claims`, {
        ...as,
        body: { source: 'reviewer-bot', branch: 'attest/limiter', ttlSeconds: 3600 },
      }),
      'claim 3',
    );
    await ok(
      gw.call('POST', `/v1/work-items/${ids.login}/claims`, {
        ...as,
        body: { source: 'runner-7', branch: 'attest/login-redirect', ttlSeconds: 1800 },
      }),
      'claim login',
    );

    // Criteria, findings of every severity, a declared pull request and two artifacts: one anchored to the item
    // proving AC-1, one anchored only to the declared pull request (the item's artifacts include it).
    await ok(
      gw.call('PUT', `/v1/work-items/${ids.limiter}/criteria`, {
        ...as,
        body: {
          criteria: [
            { id: 'AC-1', text: 'A request at the window edge counts in the new window', proof: 'screenshot' },
            { id: 'AC-2', text: 'The limits page documents the window', proof: null },
          ],
        },
      }),
      'criteria',
    );
    // One a second, so "oldest first" within a severity is the order they were recorded in.
    let recorded = 0;
    const finding = (severity: string, title: string, extra: Record<string, unknown> = {}) => {
      gw.clock.set(t0 + ++recorded * 1000);
      return ok(
        gw.call('POST', `/v1/work-items/${ids.limiter}/findings`, {
          ...as,
          body: { source: 'reviewer-bot', about: 'change', severity, title, ...extra },
        }),
        title,
      );
    };
    await finding('low', 'Variable name is vague');
    await finding('critical', 'Limiter never resets on restart', { path: 'src/limiter.ts', line: 88 });
    await finding('info', 'Consider a metrics counter');
    await finding('high', 'Window floor is computed twice');
    await finding('medium', 'Missing test for the edge');
    await finding('high', 'Race between two replicas');
    gw.clock.set(t0);
    await ok(
      gw.call('POST', `/v1/work-items/${ids.limiter}/pull-requests`, {
        ...as,
        body: { repository: 'acme/api', number: 12 },
      }),
      'declare PR',
    );
    const upload = async (fields: Record<string, unknown>) => {
      const bytes = png(64, 40);
      return (
        await ok(
          gw.call('POST', '/v1/artifacts', {
            ...as,
            body: {
              schemaVersion: 1,
              artifact: {
                clientArtifactId: crypto.randomUUID(),
                bytes: bytes.length,
                sha256: crypto.createHash('sha256').update(bytes).digest('hex'),
                mediaType: 'image/png',
                emittedAt: new Date(t0).toISOString(),
                ...fields,
              },
              blob: { data: bytes.toString('base64') },
            },
          }),
          'artifact',
        )
      ).id as string;
    };
    proofArtifact = await upload({
      filename: 'edge.png',
      caption: 'Limiter at the window edge',
      workItemId: ids.limiter,
      criterionId: 'AC-1',
    });
    prArtifact = await upload({
      filename: 'pr.png',
      caption: 'Screenshot on the pull request',
      repository: 'acme/api',
      prNumber: 12,
    });

    ctx = await newContext(browser, gw);
    page = await openFactoryHome(ctx, gw, a);
  }, 240_000);

  const titles = (stage: string) => page.getByTestId(`stage-${stage}`).locator('.work-card-title').allInnerTexts();
  const card = (title: string) => page.getByTestId('work-card').filter({ hasText: title });

  it('the board: a column per stage with cards, each with claim, lease left, startability, block class', async () => {
    // 17 min 30 s after the claims: the login redirect's 30 min lease has 12 min 30 s left, the limiter's hour 42 min
    // 30 s.
    await page.clock.setFixedTime(t0 + 17.5 * MIN);
    await page.getByRole('link', { name: 'Work', exact: true }).click();
    await page.waitForURL(`**/f/${a.appId}/work`);
    await until(() => titles('backlog')).toEqual(['#1 Write the rate-limit docs']);
    expect(await titles('ready')).toEqual(['#2 Wait for the auth service']);
    expect(await titles('in_progress')).toEqual(['#3 Fix the login redirect']);
    expect(await titles('in_review')).toEqual(['#4 Review the limiter window']);
    expect(await titles('done')).toEqual(['#5 Ship v2']);
    expect(await page.getByTestId('stage-in_progress').locator('h2').innerText()).toBe('In progress 1');
    expect(await page.getByTestId('work-total').innerText()).toBe('5');

    const login = card('Fix the login redirect');
    expect(await login.getByTestId('work-card-claim').innerText()).toBe(
      'runner-7 · attest/login-redirect · 12 min left',
    );
    expect(await login.getByTestId('startable').innerText()).toBe('not startable');
    expect(await card('Review the limiter window').getByTestId('lease-left').innerText()).toBe('42 min left');
    const docs = card('Write the rate-limit docs');
    expect(await docs.getByTestId('work-card-claim').innerText()).toBe('unclaimed');
    expect(await docs.getByTestId('startable').innerText()).toBe('startable');
    expect(await docs.getByTestId('block-class').innerText()).toBe('not blocked');
    const auth = card('Wait for the auth service');
    expect(await auth.getByTestId('startable').innerText()).toBe('not startable');
    expect(await auth.getByTestId('block-class').innerText()).toBe('blocked: dependency');
    await screenshot(page, 'work');

    // The lease runs on while the page is open: 29 min 15 s after the claim, 45 s left; at 30 min, expired.
    await page.clock.setFixedTime(t0 + 29.25 * MIN);
    await until(() => login.getByTestId('lease-left').innerText()).toBe('45 s left');
    await page.clock.setFixedTime(t0 + 30 * MIN);
    await until(() => login.getByTestId('lease-left').innerText()).toBe('expired');
    expect(await card('Review the limiter window').getByTestId('lease-left').innerText()).toBe('30 min left');
    // Once the gateway's clock passes it too, the API frees the item: the card shows no claim.
    gw.clock.set(t0 + 30 * MIN);
    await page.reload();
    await until(() => card('Fix the login redirect').getByTestId('work-card-claim').innerText()).toBe('unclaimed');
    gw.clock.set(t0);
  });

  it('withdrawn items are hidden behind "Show withdrawn (N)", which is in the URL', async () => {
    await page.clock.setFixedTime(t0 + 17.5 * MIN);
    await page.goto(`/f/${a.appId}/work`);
    const toggle = page.getByRole('checkbox', { name: 'Show withdrawn (1)' });
    await toggle.waitFor();
    expect(await card('An abandoned idea').count()).toBe(0);
    await toggle.click();
    await page.waitForURL(/withdrawn=1/);
    await until(() => titles('backlog')).toEqual(['#1 Write the rate-limit docs', '#6 An abandoned idea']);
    const old = card('An abandoned idea');
    expect(await old.innerText()).toContain('withdrawn');
    expect(await old.getByTestId('startable').innerText()).toBe('not startable');
    await page.reload();
    await until(() => titles('backlog')).toEqual(['#1 Write the rate-limit docs', '#6 An abandoned idea']);
    await page.getByRole('checkbox', { name: 'Show withdrawn (1)' }).click();
    await until(() => titles('backlog')).toEqual(['#1 Write the rate-limit docs']);
  });

  it('a card opens the item page: criteria with proving artifacts, findings by severity, PRs, claims', async () => {
    await page.clock.setFixedTime(t0 + 17.5 * MIN);
    await page.goto(`/f/${a.appId}/work`);
    await card('Review the limiter window').getByRole('link', { name: '#4 Review the limiter window' }).click();
    await page.waitForURL(`**/f/${a.appId}/work/${ids.limiter}`);
    await until(() => page.getByTestId('work-item-title').innerText()).toBe('#4 Review the limiter window');
    const facts = page.getByTestId('work-item-facts');
    expect(await facts.locator('[data-fact="Stage"] dd').innerText()).toBe('In review');
    expect(await facts.locator('[data-fact="Section"] dd').innerText()).toBe('api');
    expect(await facts.locator('[data-fact="Tracker"] dd').innerText()).toBe('github acme/api#limiter');
    expect(await page.getByTestId('work-item-claim').innerText()).toMatch(
      /Claimed by reviewer-bot for branch attest\/limiter since .*: 42 min left/,
    );

    const criteria = page.getByTestId('work-item-criteria');
    const ac1 = criteria.locator('tr[data-criterion="AC-1"]');
    await until(() => ac1.innerText()).toContain('Limiter at the window edge');
    expect(await ac1.getByRole('link', { name: 'Limiter at the window edge' }).getAttribute('href')).toBe(
      `/artifacts/${proofArtifact}`,
    );
    expect(await criteria.locator('tr[data-criterion="AC-2"]').innerText()).toContain('no artifact');

    // Most severe first; the two highs in the order they were recorded.
    const findings = page.getByTestId('work-item-findings');
    await until(() =>
      findings.locator('[data-severity]').evaluateAll((els) => els.map((e) => e.getAttribute('data-severity'))),
    ).toEqual(['critical', 'high', 'medium', 'low', 'info']);
    await until(() => findings.locator('h2').innerText()).toBe('Findings 6');
    expect(await findings.locator('[data-severity="high"] tbody tr td:first-child').allInnerTexts()).toEqual([
      'Window floor is computed twice',
      'Race between two replicas',
    ]);
    expect(await findings.locator('[data-severity="critical"] tbody tr').innerText()).toContain('src/limiter.ts:88');

    const prs = page.getByTestId('work-item-prs');
    expect(await prs.getByRole('link', { name: 'acme/api#12' }).getAttribute('href')).toBe(
      `/f/${a.appId}/prs/acme/api/12`,
    );
    expect(await prs.getByRole('link', { name: 'github.com/acme/api/pull/12' }).getAttribute('href')).toBe(
      'https://github.com/acme/api/pull/12',
    );

    const artifacts = page.getByTestId('work-item-artifacts');
    await until(() => artifacts.locator('h2').innerText()).toBe('Artifacts 2');
    expect(await artifacts.locator(`tr[data-artifact="${prArtifact}"]`).innerText()).toMatch(
      /Screenshot on the pull request\s+screenshot\s+—\s+acme\/api#12/,
    );
    expect(await artifacts.locator(`tr[data-artifact="${proofArtifact}"] td`).nth(2).innerText()).toBe('AC-1');

    // Claim history, newest first: the live claim, runner-2's lease that ran out, runner-1's released one.
    const history = page.getByTestId('work-item-claims');
    await until(() => history.locator('h2').innerText()).toBe('Claim history 3');
    const rows = await history.locator('tbody tr').evaluateAll((trs) =>
      trs.map((tr) =>
        Array.from(tr.querySelectorAll('td'))
          .slice(1, 4)
          .map((td) => td.textContent),
      ),
    );
    expect(rows).toEqual([
      ['reviewer-bot', 'attest/limiter', 'live'],
      ['runner-2', 'attest/limiter-2', 'expired'],
      ['runner-1', 'attest/limiter-1', 'released'],
    ]);
    await screenshot(page, 'work-item');

    await prs.getByRole('link', { name: 'acme/api#12' }).click();
    await page.waitForURL(`**/f/${a.appId}/prs/acme/api/12`);
    await page.goBack();
    await criteria.getByRole('link', { name: 'Limiter at the window edge' }).click();
    await page.waitForURL(`**/artifacts/${proofArtifact}`);
    await until(() => page.getByTestId('artifact-caption').innerText()).toBe('Limiter at the window edge');
  });

  it('an item by its number opens the same page; a withdrawn item shows as withdrawn', async () => {
    await page.goto(`/f/${a.appId}/work/4`);
    await until(() => page.getByTestId('work-item-title').innerText()).toBe('#4 Review the limiter window');
    await page.goto(`/f/${a.appId}/work/${ids.old}`);
    await until(() => page.getByTestId('work-item-title').innerText()).toBe('#6 An abandoned idea');
    expect(await page.getByTestId('work-item-facts').locator('[data-fact="Stage"] dd').innerText()).toContain(
      'withdrawn',
    );
    await until(() => page.getByTestId('work-item-claims').innerText()).toContain('This item was never claimed.');
    await until(() => page.getByTestId('work-item-findings').innerText()).toContain(
      'No findings were recorded on this item.',
    );
  });

  it('an unknown item, and another factory\'s, are "Not found"; another factory\'s board shows none', async () => {
    await page.goto(`/f/${a.appId}/work/00000000-0000-4000-8000-000000000000`);
    await until(() => page.getByRole('heading', { name: 'Not found' }).count()).toBe(1);

    const bctx = await newContext(browser, gw);
    const bpage = await signIn(bctx, gw, b.loginToken);
    await bpage.waitForURL(factoryHome(b.appId));
    // A's item under B's factory: the API answers 404 for B.
    await bpage.goto(`/f/${b.appId}/work/${ids.limiter}`);
    await expect.poll(() => bpage.getByRole('heading', { name: 'Not found' }).count(), { timeout: 15_000 }).toBe(1);
    expect(await bpage.locator('body').innerText()).not.toContain('Review the limiter window');
    // A's factory URL: not B's factory.
    await bpage.goto(`/f/${a.appId}/work/${ids.limiter}`);
    await expect.poll(() => bpage.getByRole('heading', { name: 'Not found' }).count(), { timeout: 15_000 }).toBe(1);
    expect(await bpage.locator('body').innerText()).not.toContain('Review the limiter window');
    // B's own board is empty and says how work items get there.
    await bpage.goto(`/f/${b.appId}/work`);
    const empty = bpage.getByTestId('work-empty');
    await empty.waitFor();
    expect(await empty.innerText()).toContain('POST /v1/work-items');
    expect(await empty.innerText()).toContain(`${gw.base}/v1/work-items`);
    expect(await empty.innerText()).toContain(`X-Outerlayer-App-Id: ${b.appId}`);
    expect(await bpage.locator('body').innerText()).not.toContain('Write the rate-limit docs');
    await bctx.close();
  });

  it('a signed-out visitor is sent to sign-in', async () => {
    const anon = await newContext(browser, gw);
    const p = await anon.newPage();
    await p.goto(`${gw.base}/f/${a.appId}/work`);
    await p.waitForURL('**/sign-in**');
    await p.goto(`${gw.base}/f/${a.appId}/work/${ids.limiter}`);
    await p.waitForURL('**/sign-in**');
    expect(await p.locator('body').innerText()).not.toContain('Review the limiter window');
    await anon.close();
  });
});
