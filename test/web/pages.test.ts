/// <reference lib="dom" />
// The dashboard's pages in a real browser on a seeded factory: what a person reads on each (titles, counts,
// costs, token totals, turn texts), evidence that renders (an image with pixels, a video that plays and seeks,
// a sandboxed HTML report, a log), and filters that live in the URL. Screenshots of each page are saved.
import crypto from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, ConsoleMessage, Page, Request, Response } from 'playwright-core';
import { addMember, createTenant, type Tenant } from '../helpers/gateway.js';
import { siblingFactory } from '../helpers/cross-tenant.js';
import {
  describeInBrowser,
  launchBrowser,
  newContext,
  openFactoryHome,
  signIn,
  screenshot,
  startWebGateway,
  type WebGateway,
} from './helpers.js';
import { LOG_TEXT, PR, RAW_TITLE, seedFactory, type Seeded } from './seed.js';
import { canonical } from '../areas/sessions/fixtures.js';
import { ingest, sessionDoc } from '../areas/metrics/sessions.js';

describeInBrowser('dashboard pages', () => {
  let gw: WebGateway;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let t: Tenant;
  let seeded: Seeded;
  const full = canonical('full');

  beforeAll(async () => {
    gw = await startWebGateway();
    browser = await launchBrowser();
    t = await createTenant(gw);
    seeded = await seedFactory(gw, t, browser);
    ctx = await newContext(browser, gw);
    page = await openFactoryHome(ctx, gw, t);
    await page.goto(`/f/${t.appId}/sessions`);
    // Generous: the first file may build dist/web (about 20 s alone, more beside the rest of the suite).
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  const until = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 10_000 });
  const usd = (n: number) =>
    new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: 'USD',
      minimumFractionDigits: 2,
      maximumFractionDigits: 4,
    }).format(n);
  const rowTitles = () => page.getByTestId('sessions-table').locator('tbody tr td:first-child a').allInnerTexts();

  it('sessions: the dominant repository, the hidden ones offered, and costs as the API states them', async () => {
    // By spend, acme/web (the long converted raw transcript) is the dominant repository; acme/acme-api has the
    // full fixture and the 1,200-turn session (the subagent is left out by default).
    await until(rowTitles).toEqual([RAW_TITLE]);
    expect(await page.getByTestId('sessions-total').innerText()).toBe('1');
    expect(await page.getByTestId('hidden-sessions').innerText()).toMatch(/2 more sessions in\s+1 other repository/);
    await screenshot(page, 'sessions-hidden');
    await page.getByRole('button', { name: 'All repositories' }).click();
    await page.waitForURL(/repoScope=all/);
    await until(() => page.getByTestId('sessions-total').innerText()).toBe('3');
    expect(await page.getByTestId('hidden-sessions').count()).toBe(0);
    expect(await rowTitles()).toEqual(
      expect.arrayContaining([RAW_TITLE, 'Fix rate limiter window boundary', 'Long refactor with 1200 turns']),
    );

    const api = (await gw.call('GET', '/v1/sessions?repoScope=all', { token: t.loginToken, appId: t.appId })).body.data;
    const fix = api.sessions.find((s: { title: string }) => s.title === 'Fix rate limiter window boundary');
    const costCell = page.getByRole('row', { name: /Fix rate limiter window boundary/ }).locator('[data-cost-status]');
    expect(await costCell.getAttribute('data-cost-status')).toBe(fix.costStatus);
    if (fix.costStatus === 'unpriced') expect(await costCell.innerText()).toBe('unpriced');
    else expect(await costCell.innerText()).toContain(usd(fix.costUsd));
    // The PR chip links to the PR page.
    const chip = page.getByRole('link', { name: '#481' }).first();
    expect(await chip.getAttribute('href')).toBe(`/f/${t.appId}/prs/acme/acme-api/481`);
    await screenshot(page, 'sessions');
  });

  it('sessions: filters round-trip through the URL', async () => {
    await page.goto(`/f/${t.appId}/sessions?repoScope=all&q=${encodeURIComponent('rate limiter')}`);
    await until(rowTitles).toEqual(['Fix rate limiter window boundary']);
    expect(await page.locator('input[name=q]').inputValue()).toBe('rate limiter');
    expect(await page.locator('select[name=repo]').inputValue()).toBe('*');
    // Choosing a filter writes it to the URL; reloading the URL restores the same page.
    await page.locator('select[name=repo]').selectOption('acme/acme-api');
    await page.waitForURL((u) => u.searchParams.get('repo') === 'acme/acme-api' && !u.searchParams.has('repoScope'));
    await until(() => page.getByTestId('sessions-total').innerText()).toBe('1');
    await page.locator('input[name=q]').fill('');
    await page.locator('input[name=q]').press('Enter');
    await until(() => page.url()).not.toContain('q=');
    await until(() => page.getByTestId('sessions-total').innerText()).toBe('2');
    const url = page.url();
    await page.reload();
    await until(() => page.getByTestId('sessions-total').innerText()).toBe('2');
    expect(page.url()).toBe(url);
    expect(await page.locator('select[name=repo]').inputValue()).toBe('acme/acme-api');
    expect(await rowTitles()).toEqual(
      expect.arrayContaining(['Fix rate limiter window boundary', 'Long refactor with 1200 turns']),
    );
    // A controlled checkbox: it flips once the URL (the state) has changed. Back undoes it.
    await page.goto(`/f/${t.appId}/sessions?repoScope=all`);
    await until(() => page.getByTestId('sessions-total').innerText()).toBe('3');
    await page.locator('input[name=includeSubagents]').click();
    await page.waitForURL(
      (u) => u.searchParams.get('includeSubagents') === '1' && u.searchParams.get('repoScope') === 'all',
    );
    await until(() => page.getByTestId('sessions-total').innerText()).toBe('4');
    expect(await page.getByTestId('sessions-table').locator('.chip', { hasText: 'subagent' }).count()).toBe(1);
    await page.goBack();
    await until(() => page.getByTestId('sessions-total').innerText()).toBe('3');
    expect(await page.locator('input[name=includeSubagents]').isChecked()).toBe(false);
  });

  it('session detail: facts, tokens by kind, turn texts, tool calls with status, family links, timeline', async () => {
    await page.goto(`/f/${t.appId}/sessions/${seeded.traces.get(full.id)}`);
    await until(() => page.getByTestId('session-title').innerText()).toBe('Fix rate limiter window boundary');
    const facts = page.getByTestId('session-facts');
    expect(await facts.locator('[data-fact="Repository"] dd').innerText()).toBe('acme/acme-api');
    expect(await facts.locator('[data-fact="Branch"] dd').innerText()).toBe('fix/rate-limit-window');
    expect(await facts.locator('[data-fact="Models"] dd').innerText()).toBe('claude-opus-4-8');
    // Token totals of the fixture: 9 input, 412 output, 18,230 cache read, 2,048 cache write.
    expect(await page.getByTestId('tokens-total').locator('td').allInnerTexts()).toEqual(
      expect.arrayContaining(['9', '412', '18,230', '2,048']),
    );
    const transcript = page.getByTestId('transcript');
    await until(() => transcript.innerText()).toContain(
      'The rate limiter resets at the wrong boundary — fix it and add a test.',
    );
    expect(await transcript.innerText()).toContain('Found it — the window floor used the request timestamp.');
    expect(await transcript.locator('.tool.error .status').first().innerText()).toBe('failed');
    expect(await transcript.locator('.tool.error').first().innerText()).toContain(
      'String to replace not found in file',
    );
    // Its subagent links back to it.
    const subLink = page.getByTestId('session-links').locator('li a');
    expect(await subLink.count()).toBe(1);
    await screenshot(page, 'session');
    await subLink.click();
    await page.waitForURL(`**/sessions/${seeded.traces.get(`${canonical('subagent-redacted').id}#sub`)}`);
    await page.getByRole('link', { name: 'the parent session' }).click();
    await page.waitForURL(`**/sessions/${seeded.traces.get(full.id)}`);
    await page.getByRole('tab', { name: 'Timeline' }).click();
    await page.waitForURL(/view=timeline/);
    await until(() => page.getByTestId('timeline').locator('canvas').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('timeline').innerText()).toContain('pr_linked');
    await screenshot(page, 'session-timeline');
  });

  it('session detail: a pasted image renders; a converted raw transcript opens with its turns', async () => {
    await page.goto(`/f/${t.appId}/sessions/${seeded.traces.get(full.id)}`);
    const img = page.getByTestId('transcript').locator('article[data-turn="0"] img');
    await until(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(240);
    await screenshot(page, 'session-pasted-image');

    await page.goto(`/f/${t.appId}/sessions/${seeded.traces.get(seeded.rawSessionId)}`);
    await until(() => page.getByTestId('session-title').innerText()).toBe(RAW_TITLE);
    expect(await page.getByRole('tab', { name: /Transcript/ }).innerText()).toContain('257 turns');
    await until(() => page.getByTestId('transcript').locator('article.turn').count()).toBeGreaterThan(0);
  });

  it('session detail: a 1,200-turn transcript keeps only visible turns in the page, scrolls to the last', async () => {
    await page.goto(`/f/${t.appId}/sessions/${seeded.traces.get(seeded.bigSessionId)}`);
    const transcript = page.getByTestId('transcript');
    await until(() => transcript.innerText()).toContain('turn number 0 of the long session');
    expect(await page.getByRole('tab', { name: /Transcript/ }).innerText()).toContain('1,200 turns');
    expect(await transcript.locator('article.turn').count()).toBeLessThan(60);
    await transcript.evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await until(() => transcript.innerText()).toContain('turn number 1199 of the long session');
    expect(await transcript.locator('article.turn').count()).toBeLessThan(60);
  });

  it('pull requests: the table, and the PR page with sessions, evidence, checks and the work item', async () => {
    await page.goto(`/f/${t.appId}/prs`);
    const row = page.getByTestId('prs-table').getByRole('row', { name: /acme\/acme-api#481/ });
    await until(() => row.count()).toBe(1);
    const api = (await gw.call('GET', `/v1/prs/${PR.repository}/${PR.number}`, { token: t.loginToken, appId: t.appId }))
      .body.data;
    expect(api.sessions).toBe(1);
    // The Sessions column (after the pull request, verdict, state, merged, reverted and CI columns).
    expect(await row.locator('td').nth(6).innerText()).toBe('1');
    await screenshot(page, 'prs');

    await row.getByRole('link', { name: 'acme/acme-api#481' }).click();
    await page.waitForURL(`**/prs/acme/acme-api/481`);
    await until(() => page.getByTestId('pr-sessions').innerText()).toContain('Fix rate limiter window boundary');
    expect(await page.getByTestId('pr-cost').innerText()).toBe(usd(api.costUsd));

    const img = page.locator(`[data-artifact="${seeded.artifacts.image}"] img`);
    await until(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(320);

    const video = page.locator(`[data-artifact="${seeded.artifacts.video}"] video`);
    await video.evaluate((v: HTMLVideoElement) => {
      v.muted = true;
      return v.play();
    });
    await until(() => video.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeGreaterThan(0.2);
    await video.evaluate((v: HTMLVideoElement) => {
      v.pause();
      v.currentTime = 1;
    });
    await until(() => video.evaluate((v: HTMLVideoElement) => !v.seeking && v.currentTime)).toBeGreaterThanOrEqual(0.9);

    const frame = page.locator(`[data-artifact="${seeded.artifacts.report}"] iframe`);
    expect(await frame.getAttribute('sandbox')).toBe('');
    await until(() => frame.contentFrame().locator('#summary').innerText()).toBe('12 passed, 0 failed');
    // Its script never ran: the frame is sandboxed without scripts.
    expect(await frame.contentFrame().locator('body').getAttribute('data-ran')).toBeNull();

    const log = page.locator(`[data-artifact="${seeded.artifacts.log}"] pre`);
    await until(async () => (await log.innerText()).trim()).toBe(LOG_TEXT.trim());
    expect(await page.getByRole('link', { name: /^Download / }).count()).toBe(4);

    const checks = page.getByTestId('pr-results');
    expect(await checks.getByRole('row', { name: /unit-tests/ }).innerText()).toMatch(
      /unit-tests\s+pass\s+run[\s\S]*fail/,
    );
    expect(await checks.getByRole('link', { name: 'run' }).first().getAttribute('href')).toMatch(
      /^https:\/\/ci\.example\.com\/runs\/10[23]$/,
    );

    const item = page.getByTestId('work-item');
    await until(() => item.innerText()).toContain('Rate limiter resets at the right boundary');
    expect(await page.getByTestId('criteria').getByRole('row', { name: /AC-1/ }).innerText()).toContain(
      'Requests at the window edge land in the new window',
    );
    expect(await page.getByTestId('criteria').getByRole('row', { name: /AC-2/ }).innerText()).toContain(
      'CI log of the regression test',
    );
    expect(await page.getByTestId('criteria').getByRole('row', { name: /AC-3/ }).innerText()).toContain('no artifact');
    expect(await page.getByTestId('findings').innerText()).toContain('Window floor is computed twice');
    expect(await page.getByTestId('findings').innerText()).toContain('src/rate-limit.ts:42');
    await screenshot(page, 'pr');
  });

  it("artifact page: the artifact at the API's url, with caption, kind, criterion, PR and session", async () => {
    const api = (
      await gw.call('GET', `/v1/artifacts/${seeded.artifacts.image}`, { token: t.loginToken, appId: t.appId })
    ).body.data;
    // The user has a second factory: the page finds the artifact's factory with one request, not one per
    // factory (which left a 404 per other factory in the browser's console).
    await siblingFactory(gw, t);
    const lookups: string[] = [];
    const failures: string[] = [];
    const onRequest = (r: Request) => {
      const p = new URL(r.url()).pathname;
      if (/^\/v1\/(me\/)?artifacts\/[^/]+$/.test(p)) lookups.push(`${r.method()} ${p}`);
    };
    const onResponse = (r: Response) =>
      void (r.status() >= 400 && failures.push(`${r.status()} ${new URL(r.url()).pathname}`));
    const onConsole = (m: ConsoleMessage) => void (m.type() === 'error' && failures.push(m.text()));
    page.on('request', onRequest);
    page.on('response', onResponse);
    page.on('console', onConsole);
    await page.goto(new URL(api.url).pathname);
    await until(() => page.getByTestId('artifact-caption').innerText()).toBe(
      'Requests at the window edge land in the new window',
    );
    await until(() =>
      page.locator('.artifact img').evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth),
    ).toBe(320);
    page.off('request', onRequest);
    page.off('response', onResponse);
    page.off('console', onConsole);
    expect(lookups).toEqual([`GET /v1/me/artifacts/${api.id}`]);
    expect(failures).toEqual([]);
    // The breadcrumb names the artifact's own factory.
    expect(await page.locator('p.muted').first().innerText()).toContain(`${t.orgName} / main`);
    const body = await page.locator('dl.facts').innerText();
    expect(body).toContain('screenshot');
    expect(body).toContain('AC-1');
    expect(body).toContain('acme/acme-api#481');
    expect(body).toContain(full.id);
    await screenshot(page, 'artifact');
    // The session and the work item are links to their pages (the session by the id its agent wrote).
    const facts = page.locator('dl.facts');
    expect(await facts.getByRole('link', { name: full.id }).getAttribute('href')).toBe(
      `/f/${t.appId}/sessions/${full.id}`,
    );
    await facts.getByRole('link', { name: full.id }).click();
    await until(() => page.getByTestId('session-title').innerText()).toBe('Fix rate limiter window boundary');
    await page.goBack();
    await facts.getByRole('link', { name: seeded.workItemId }).click();
    await page.waitForURL(`**/f/${t.appId}/work/${seeded.workItemId}`);
    await until(() => page.getByTestId('work-item-title').innerText()).toBe(
      '#1 Rate limiter resets at the right boundary',
    );
    await page.goBack();
    await page.getByRole('link', { name: 'acme/acme-api#481' }).click();
    await page.waitForURL('**/prs/acme/acme-api/481');
  });
  // Last: it adds sessions (in a repository of their own, so the pages above are unchanged).
  it("a PR's cost that is not whole says so, on the PR list and on the PR page", async () => {
    const auth = { token: t.factoryKey, appId: t.appId };
    const prUrl = 'https://github.com/acme/tools/pull/9';
    await ingest(gw, auth, [
      sessionDoc({
        startedAt: '2026-10-01T09:00:00Z',
        repo: 'acme/tools',
        branch: 'a',
        prNumber: 9,
        prUrl,
        turns: [{ model: 'claude-sonnet-4-5', in: 1000, out: 500, cacheRead: 0 }],
      }),
      sessionDoc({
        startedAt: '2026-10-01T10:00:00Z',
        repo: 'acme/tools',
        branch: 'b',
        prNumber: 9,
        prUrl,
        turns: [{ model: 'mystery-model-9', in: 1000, out: 500, cacheRead: 0 }],
      }),
    ]);
    const api = (await gw.call('GET', '/v1/prs/acme/tools/9', { token: t.loginToken, appId: t.appId })).body.data;
    expect(api.costStatus).toBe('partial');
    expect(api.costUsd).toBeGreaterThan(0);

    await page.goto(`/f/${t.appId}/prs`);
    const row = page.getByTestId('prs-table').getByRole('row', { name: /acme\/tools#9/ });
    await until(() => row.count()).toBe(1);
    expect(await row.locator('[data-cost-status]').innerText()).toBe(`${usd(api.costUsd)} partial`);
    expect(await row.locator('[data-cost-status]').getAttribute('title')).toBe('No price for: mystery-model-9');
    // The seeded PR's sessions are all priced: no mark.
    expect(
      await page
        .getByTestId('prs-table')
        .getByRole('row', { name: /acme\/acme-api#481/ })
        .locator('[data-cost-status]')
        .getAttribute('data-cost-status'),
    ).toBe('complete');

    await row.getByRole('link', { name: 'acme/tools#9' }).click();
    await page.waitForURL('**/prs/acme/tools/9');
    await until(() => page.getByTestId('pr-cost').innerText()).toBe(`${usd(api.costUsd)} partial`);
    const sessionCosts = page.getByTestId('pr-sessions').locator('tbody [data-cost-status]');
    expect(
      await sessionCosts.evaluateAll((els) =>
        els.map((e) => [e.getAttribute('data-cost-status'), (e as HTMLElement).innerText]),
      ),
    ).toEqual([
      ['complete', usd(api.sessionList[0].costUsd)],
      ['unpriced', 'unpriced'],
    ]);

    // A PR whose every session is unpriced reads "unpriced", never $0.00, on the list and on its page.
    const unpricedUrl = 'https://github.com/acme/tools/pull/10';
    await ingest(gw, auth, [
      sessionDoc({
        startedAt: '2026-10-02T09:00:00Z',
        repo: 'acme/tools',
        branch: 'c',
        prNumber: 10,
        prUrl: unpricedUrl,
        turns: [{ model: 'mystery-model-10', in: 1000, out: 500, cacheRead: 0 }],
      }),
    ]);
    expect(
      (await gw.call('GET', '/v1/prs/acme/tools/10', { token: t.loginToken, appId: t.appId })).body.data,
    ).toMatchObject({ costStatus: 'unpriced', costUsd: 0 });
    await page.goto(`/f/${t.appId}/prs`);
    const unpricedRow = page.getByTestId('prs-table').getByRole('row', { name: /acme\/tools#10/ });
    await until(() => unpricedRow.locator('[data-cost-status]').innerText()).toBe('unpriced');
    expect(await unpricedRow.locator('[data-cost-status]').getAttribute('title')).toBe(
      'No price for: mystery-model-10',
    );
    await unpricedRow.getByRole('link', { name: 'acme/tools#10' }).click();
    await page.waitForURL('**/prs/acme/tools/10');
    await until(() => page.getByTestId('pr-cost').innerText()).toBe('unpriced');
    expect(await page.getByTestId('pr-sessions').locator('tbody').innerText()).not.toContain('$0.00');
  });
  // After the others: it deletes a session and an artifact of its own.
  it('session and artifact pages: delete with a confirm for owners only; a deleted one answers 410', async () => {
    const auth = { token: t.factoryKey, appId: t.appId };
    const doc = sessionDoc({
      startedAt: '2026-10-02T09:00:00Z',
      repo: 'acme/doomed',
      turns: [{ model: 'x', in: 1, out: 1 }],
    });
    await ingest(gw, auth, [doc]);
    const trace = (await gw.call('GET', `/v1/sessions/${doc.id}`, auth)).body.data.traceId as string;
    const png = Buffer.from('\x89PNG doomed artifact');
    const created = await gw.call('POST', '/v1/artifacts', {
      ...auth,
      body: {
        schemaVersion: 1,
        artifact: {
          clientArtifactId: 'doomed-1',
          filename: 'doomed.txt',
          mediaType: 'text/plain',
          bytes: png.length,
          sha256: crypto.createHash('sha256').update(png).digest('hex'),
          caption: 'doomed artifact',
          emittedAt: '2026-10-02T09:00:00Z',
          repository: 'acme/doomed',
          prNumber: 1,
        },
        blob: { data: png.toString('base64') },
      },
    });
    expect(created.status, created.text).toBe(201);
    const artifactId = created.body.data.id as string;
    const sessionPath = `/f/${t.appId}/sessions/${trace}`;

    // An admin reads both pages but is offered no delete (sessions.delete and artifacts.delete are owners').
    const adminCtx = await newContext(browser, gw);
    const admin = await signIn(adminCtx, gw, (await addMember(gw, t, 'admin')).loginToken);
    await admin.goto(sessionPath);
    await until(() => admin.getByTestId('session-facts').count()).toBe(1);
    expect(await admin.getByTestId('delete-button').count()).toBe(0);
    await admin.goto(`/artifacts/${artifactId}`);
    await until(() => admin.getByTestId('artifact-caption').innerText()).toBe('doomed artifact');
    expect(await admin.getByTestId('delete-button').count()).toBe(0);
    await adminCtx.close();

    // The owner: Cancel keeps the session; confirming deletes it and goes to the list.
    await page.goto(sessionPath);
    await until(() => page.getByTestId('delete-button').innerText()).toBe('Delete session');
    await page.getByTestId('delete-button').click();
    const dialog = page.getByTestId('confirm-dialog');
    await until(() => dialog.getByRole('heading').innerText()).toBe('Delete session');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await gw.call('GET', `/v1/sessions/${trace}`, auth)).status).toBe(200);
    await page.getByTestId('delete-button').click();
    await dialog.getByRole('button', { name: 'Delete session' }).click();
    await page.waitForURL(`**/f/${t.appId}/sessions`);
    expect((await gw.call('GET', `/v1/sessions/${trace}`, auth)).status).toBe(410);

    await page.goto(`/artifacts/${artifactId}`);
    await until(() => page.getByTestId('delete-button').innerText()).toBe('Delete artifact');
    await page.getByTestId('delete-button').click();
    await dialog.getByRole('button', { name: 'Delete artifact' }).click();
    await page.waitForURL(`**/f/${t.appId}/prs`);
    const gone = await gw.call('GET', `/v1/artifacts/${artifactId}`, auth);
    expect(gone.status).toBe(410);
    expect(gone.body.error.code).toBe('artifact_deleted');
  });
});
