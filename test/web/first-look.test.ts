// Issue 45, in the browser: the first look at real data. Sessions dated 60 days ago (older than the default
// window) on a gateway without a GitHub App: the overview says where they are and offers their window in one
// click, a first visit opens on it; no page shows an id as a title; a transcript's tool calls read one line each,
// failed ones marked, with a failed-only control and next/previous error keys; the PR pages say that state comes
// from the GitHub App and link to the settings page that installs it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTenant, type Tenant } from '../helpers/gateway.js';
import { describeInBrowser, launchBrowser, newContext, signIn, startWebGateway, type WebGateway } from './helpers.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const DAY = 86_400_000;

describeInBrowser('dashboard: the first look at real data (issue 45)', () => {
  let gw: WebGateway;
  let t: Tenant;
  let browser: Browser;
  let page: Page;
  // 01:00 UTC of the day 60 days ago: the sessions' turns (up to an hour later) stay on that one day whatever the
  // time of day the test runs.
  const started = new Date(Math.floor((Date.now() - 60 * DAY) / DAY) * DAY + 3_600_000);
  const at = (s: number) => new Date(started.getTime() + s * 1000).toISOString();
  const day = started.toISOString().slice(0, 10);
  const later = new Date(started.getTime() + 3_600_000).toISOString();
  const ids = { full: crypto.randomUUID(), redacted: crypto.randomUUID() };
  const call = (name: string, status: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    name,
    status,
    isEdit: name === 'Edit',
    input,
    ...extra,
  });

  beforeAll(async () => {
    gw = await startWebGateway();
    t = await createTenant(gw);
    const base = {
      schemaVersion: 1,
      agent: { type: 'claude-code' },
      models: ['claude-sonnet-4-5'],
      events: [],
      warnings: [],
      totals: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
    };
    const assistant = (index: number, calls: unknown[]) => ({
      index,
      role: 'assistant',
      ts: at(index),
      text: `step ${index}`,
      toolCalls: calls,
    });
    const full = {
      ...base,
      id: ids.full,
      captureTier: 'full',
      startedAt: at(0),
      env: { gitRepo: 'github.com/acme/api', gitBranch: 'fix/login' },
      outcome: { prNumber: 12, prUrl: 'https://github.com/acme/api/pull/12' },
      turns: [
        {
          index: 0,
          role: 'user',
          source: 'human',
          ts: at(0),
          text: 'Fix the flaky login test\nand run the whole suite after',
          toolCalls: [],
        },
        assistant(1, [
          call('Bash', 'ok', { command: 'npm test -- --run login\necho done', description: 'run the login tests' }),
        ]),
        assistant(2, [
          call('Edit', 'ok', { file_path: 'src/login.ts', old_string: 'a', new_string: 'b' }, { file: 'src/login.ts' }),
        ]),
        assistant(3, [
          call(
            'WebFetch',
            'error',
            { url: 'https://example.com/docs/login', prompt: 'read' },
            { errorSignature: 'HTTP 404' },
          ),
        ]),
        assistant(4, [call('Grep', 'ok', { pattern: 'TODO', path: 'src' })]),
        assistant(5, [call('Bash', 'error', { command: 'npm run build' }, { errorSignature: 'exit code 2' })]),
        assistant(6, []),
      ],
    };
    const redacted = {
      ...base,
      id: ids.redacted,
      captureTier: 'redacted',
      startedAt: later,
      env: { gitRepo: 'github.com/acme/api', gitBranch: 'fix/parser' },
      turns: [
        { index: 0, role: 'user', source: 'human', ts: later, text: null, toolCalls: [] },
        {
          index: 1,
          role: 'assistant',
          ts: later,
          text: null,
          toolCalls: [{ name: 'Read', status: 'ok', isEdit: false, file: 'docs/guide.md' }],
        },
        { index: 2, role: 'assistant', ts: later, text: null, toolCalls: [] },
      ],
    };
    const r = await gw.call('POST', '/v1/agents/sync', {
      token: t.factoryKey,
      appId: t.appId,
      body: { schemaVersion: 1, sessions: [full, redacted] },
    });
    if (r.status !== 200 || r.body.data.accepted.length !== 2) throw new Error(`seed: ${r.status} ${r.text}`);
    browser = await launchBrowser();
    page = await signIn(await newContext(browser, gw), gw, t.loginToken);
    page.on('pageerror', (e) => console.log('page error:', e.message));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it('a first visit opens on a window with sessions; an empty one says where they are, one click away', async () => {
    await page.goto(`${gw.base}/f/${t.appId}`);
    await page.waitForURL(/days=90/);
    expect(await page.getByTestId('tile-sessions-value').textContent()).toBe('2');
    expect(await page.getByTestId('empty-window-hint').count()).toBe(0);

    await page.getByRole('button', { name: 'Last 30 days' }).click();
    await page.waitForURL(/days=30/);
    const hint = page.getByTestId('empty-window-hint');
    await hint.waitFor();
    expect(await page.getByTestId('tile-sessions-value').textContent()).toBe('0');
    expect(await hint.innerText()).toContain(`this factory has 2 sessions, started from ${day} to ${day} (UTC)`);
    await hint.getByRole('button', { name: 'Show the last 90 days' }).click();
    await page.waitForURL(/days=90/);
    expect(await page.getByTestId('tile-sessions-value').textContent()).toBe('2');
    expect(await page.getByTestId('empty-window-hint').count()).toBe(0);
  });

  it('shows no id as a title: the list, the session page and the PR page show derived titles', async () => {
    await page.goto(`${gw.base}/f/${t.appId}/sessions?repoScope=all`);
    const links = page.locator('table a[href*="/sessions/"]');
    await links.first().waitFor();
    const titles = await links.allInnerTexts();
    expect(titles.sort()).toEqual(['Fix the flaky login test', 'claude-code on fix/parser · 3 turns']);
    expect(titles.some((x) => UUID.test(x))).toBe(false);
    expect(await page.locator('main').innerText()).not.toMatch(UUID);

    await links.filter({ hasText: 'claude-code on fix/parser' }).click();
    expect(await page.getByTestId('session-title').innerText()).toBe('claude-code on fix/parser · 3 turns');

    await page.goto(`${gw.base}/f/${t.appId}/prs/acme/api/12`);
    await page.getByTestId('pr-title').waitFor();
    expect(await page.getByTestId('pr-sessions').locator('a[href*="/sessions/"]').allInnerTexts()).toEqual([
      'Fix the flaky login test',
    ]);
  });

  it('tool calls read one line each, failed ones marked; failed-only and the next/previous error keys', async () => {
    await page.goto(`${gw.base}/f/${t.appId}/sessions?repoScope=all`);
    await page.locator('table a', { hasText: 'Fix the flaky login test' }).click();
    await page.getByTestId('transcript').waitFor();
    const tools = page.getByTestId('transcript').locator('.tool');
    await tools.first().waitFor();
    // What a reader scans: status, tool, and its command, file, URL or pattern on one line.
    expect(
      await tools.evaluateAll((els) =>
        els.map((e) => [
          e.querySelector('.status')?.textContent,
          e.getAttribute('data-tool'),
          e.querySelector('[data-testid="tool-summary"]')?.textContent,
        ]),
      ),
    ).toEqual([
      ['ok', 'Bash', 'npm test -- --run login …'],
      ['ok', 'Edit', 'src/login.ts'],
      ['failed', 'WebFetch', 'https://example.com/docs/login'],
      ['ok', 'Grep', 'TODO in src'],
      ['failed', 'Bash', 'npm run build'],
    ]);
    expect(await page.getByTestId('error-position').innerText()).toContain('2 failed tool calls in 2 turns');

    await page.keyboard.press('n');
    expect(await page.getByTestId('error-position').innerText()).toBe('Error 1 of 2');
    expect(await page.locator('[data-current-error] .tool.error').innerText()).toContain(
      'https://example.com/docs/login',
    );
    await page.keyboard.press('n');
    expect(await page.getByTestId('error-position').innerText()).toBe('Error 2 of 2');
    expect(await page.locator('[data-current-error] .tool.error').innerText()).toContain('npm run build');
    await page.getByRole('button', { name: '◀ Previous error' }).click();
    expect(await page.getByTestId('error-position').innerText()).toBe('Error 1 of 2');

    await page.getByLabel('Failed calls only').check();
    expect(
      await tools.evaluateAll((els) => els.map((e) => e.querySelector('[data-testid="tool-summary"]')?.textContent)),
    ).toEqual(['https://example.com/docs/login', 'npm run build']);
    expect(await page.getByTestId('error-position').innerText()).toContain('showing 2 of 7 turns');
    await page.keyboard.press('p');
    expect(await page.getByTestId('error-position').innerText()).toContain('Error 2 of 2');

    // At the redacted tier only the file is kept, and that is the line.
    await page.goto(`${gw.base}/f/${t.appId}/sessions?repoScope=all`);
    await page.locator('table a', { hasText: 'claude-code on fix/parser' }).click();
    await page.getByTestId('transcript').locator('.tool').first().waitFor();
    expect(await page.getByTestId('transcript').locator('[data-testid="tool-summary"]').allInnerTexts()).toEqual([
      'docs/guide.md',
    ]);
  });

  it('the PR list and page say state comes from the GitHub App, and link to the settings to install it', async () => {
    await page.goto(`${gw.base}/f/${t.appId}/prs`);
    const notice = page.getByTestId('github-app-notice');
    await notice.waitFor();
    expect(await notice.innerText()).toContain(
      'come from the GitHub App, and this gateway has no GitHub App configured',
    );
    expect(
      await page
        .getByTestId('prs-table')
        .getByRole('row', { name: /acme\/api#12/ })
        .getByTestId('pr-state')
        .innerText(),
    ).toBe('unknown');

    await page.goto(`${gw.base}/f/${t.appId}/prs/acme/api/12`);
    await page.getByTestId('github-app-notice').waitFor();
    await page.getByTestId('github-app-settings-link').click();
    await page.waitForURL(`**/f/${t.appId}/settings`);
    await page.getByTestId('installations').waitFor();
  });
});
