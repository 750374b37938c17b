/// <reference lib="dom" />
// Browser tests of the verdict on the dashboard: the PR page's verdict panel with rows linking to the turn that
// proves them, `#turn-N` scrolling the virtualized transcript to that turn and marking it, the verdict column and
// filter of the PR list, the session's Verification tab, and another factory's data never shown. Seeded through
// the API on a real gateway (full-tier Claude Code sessions whose Bash calls the gateway reads into facts); what
// is asserted is what a person reads.
import crypto from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import type { Tenant } from '../helpers/gateway.js';
import { canonical, variant, type Doc } from '../areas/sessions/fixtures.js';
import {
  describeInBrowser,
  newContext,
  openFactoryHome,
  screenshot,
  withDashboardAndTenants,
  type WebGateway,
} from './helpers.js';
import { bigSession, ok } from './seed.js';

const REPO = 'acme/api';

type Step = { bash: string; ok: boolean; output: string } | { edit: string };

/**
 * A full-tier Claude Code session on a pull request of acme/api: one user turn, then one assistant turn per
 * step (a Bash call with its exit status and output, or an Edit of a file), a minute apart.
 */
function prSession(id: string, title: string, pr: number, steps: Step[], tier: 'full' | 'metrics' = 'full'): Doc {
  return variant(canonical('full'), (d) => {
    d.id = id;
    d.title = title;
    d.captureTier = tier;
    d.env = { os: 'linux', gitRepo: `github.com/${REPO}`, gitBranch: `pr-${pr}` };
    d.outcome = { prNumber: pr, prUrl: `https://github.com/${REPO}/pull/${pr}` };
    d.events = [];
    const start = Date.parse('2026-07-03T10:00:00.000Z');
    d.startedAt = new Date(start).toISOString();
    d.endedAt = new Date(start + (steps.length + 1) * 60_000).toISOString();
    d.totals.wallClockMs = (steps.length + 1) * 60_000;
    d.turns = [
      {
        index: 0,
        role: 'user',
        source: 'human',
        text: tier === 'full' ? `Work on #${pr}` : undefined,
        ts: d.startedAt,
        toolCalls: [],
      },
      ...steps.map((step, i) => {
        const ts = new Date(start + (i + 1) * 60_000).toISOString();
        const call =
          'bash' in step
            ? {
                name: 'Bash',
                isEdit: false,
                status: step.ok ? 'ok' : 'error',
                startTs: ts,
                durationMs: 1000,
                ...(tier === 'full' ? { input: { command: step.bash }, output: step.output } : {}),
              }
            : {
                name: 'Edit',
                isEdit: true,
                status: 'ok',
                startTs: ts,
                durationMs: 200,
                ...(tier === 'full'
                  ? { file: step.edit, input: { file_path: step.edit, old_string: 'a', new_string: 'b' } }
                  : {}),
              };
        return {
          index: i + 1,
          role: 'assistant',
          model: 'claude-opus-4-8',
          ts,
          usage: { in: 10, out: 20, cacheRead: 0, cacheCreate: 0 },
          toolCalls: [call],
          ...(tier === 'full' ? { text: `step ${i + 1}` } : {}),
        };
      }),
    ];
  });
}

const RED = {
  bash: 'npx vitest run',
  ok: false,
  output:
    ' FAIL  test/login.test.ts > redirects after sign-in\n Test Files  1 failed (1)\n      Tests  1 failed | 4 ' +
    'passed (5)',
};
const GREEN = { bash: 'npx vitest run', ok: true, output: ' Test Files  1 passed (1)\n      Tests  5 passed (5)' };

// #11: red, fix, green, commit: every row that counts passes (clean).
const FIXED = prSession('11111111-1111-4111-8111-111111111111', 'Fix the login redirect', 11, [
  RED,
  { edit: 'src/login.ts' },
  GREEN,
  {
    bash: 'git commit -am "Fix the login redirect"',
    ok: true,
    output: '[pr-11 1a2b3c4] Fix the login redirect\n 1 file changed, 2 insertions(+)',
  },
]);
// #12: the commit skipped the hooks (unverifiable).
const BYPASS = prSession('12121212-1212-4121-8121-121212121212', 'Commit without the hooks', 12, [
  { edit: 'src/limits.ts' },
  GREEN,
  { bash: 'git commit --no-verify -am "wip"', ok: true, output: '[pr-12 5d6e7f8] wip\n 1 file changed' },
]);
// #13: the last edit came after the last test run (review: one flagged row).
const UNTESTED = prSession('13131313-1313-4131-8131-131313131313', 'Change after the tests', 13, [
  GREEN,
  { edit: 'src/cache.ts' },
]);
// A metrics-tier session: counts only, nothing to verify, so the verdict asks for a person's look (review).
const METRICS = prSession(
  '15151515-1515-4151-8151-151515151515',
  'Counted only',
  15,
  [GREEN, { edit: 'src/x.ts' }],
  'metrics',
);
// Another factory's session on the same repository and PR number as #13.
const OTHER = prSession('99999999-9999-4999-8999-999999999999', "Another factory's session", 13, [
  { edit: 'src/other.ts' },
  GREEN,
]);

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

  const until = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 15_000 });

  withDashboardAndTenants((s) => ({ gw, browser, a, b } = s));
  beforeAll(async () => {
    const as = { token: a.factoryKey, appId: a.appId };
    const big = bigSession(1200);
    const synced = await ok(
      gw.call('POST', '/v1/agents/sync', {
        ...as,
        body: { schemaVersion: 1, sessions: [big, FIXED, BYPASS, UNTESTED, METRICS] },
      }),
      'sync',
    );
    expect(synced.rejected).toEqual([]);
    const listed = await ok(
      gw.call('GET', '/v1/sessions?repoScope=all&limit=100', { token: a.loginToken, appId: a.appId }),
      'list',
    );
    for (const s of listed.sessions as Array<{ sessionId: string; traceId: string }>)
      traces.set(s.sessionId, s.traceId);
    // #14 has a CI result and no session: a human pull request, verdict "none".
    await ok(
      gw.call('POST', '/v1/emitted-results', {
        ...as,
        body: {
          schemaVersion: 1,
          emit: {
            clientEmitId: crypto.randomUUID(),
            name: 'unit-tests',
            result: 'pass',
            link: 'https://ci.example.com/runs/14',
            emittedAt: '2026-07-03T11:00:00.000Z',
            repository: REPO,
            prNumber: 14,
            headSha: 'e4e4e4e4e4e4e4e4e4e4',
          },
        },
      }),
      'emit',
    );
    const bs = { token: b.factoryKey, appId: b.appId };
    expect(
      (await ok(gw.call('POST', '/v1/agents/sync', { ...bs, body: { schemaVersion: 1, sessions: [OTHER] } }), 'sync b'))
        .rejected,
    ).toEqual([]);
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
    await page.evaluate(() => {
      window.location.hash = '#turn-17';
    });
    const other = transcript.locator('article.turn[data-turn="17"]');
    await until(() => other.getAttribute('class')).toContain('marked');
    await until(() => inView(other, transcript)).toBe(true);
    expect(await transcript.locator('article.turn.marked').count()).toBe(1);

    // A turn the session does not have is said so, not silently ignored.
    await page.goto(`/f/${a.appId}/sessions/${trace}#turn-5000`);
    await until(() => page.getByTestId('turn-missing').innerText()).toBe('Turn #5000 is not in this transcript.');
  }, 60_000);

  const apiOf = (t: Tenant, path: string) => ok(gw.call('GET', path, { token: t.loginToken, appId: t.appId }), path);
  const row = (n: number) => page.getByTestId('prs-table').getByRole('row', { name: new RegExp(`${REPO}#${n}\\b`) });
  const rowTitles = () => page.getByTestId('prs-table').locator('tbody tr td:first-child a').allInnerTexts();

  it('pull requests: the verdict of each, and a verdict filter kept in the URL', async () => {
    await page.goto(`/f/${a.appId}/prs`);
    await until(() => row(11).locator('[data-verdict]').getAttribute('data-verdict')).toBe('clean');
    // By hand: #11 red, fix, green, commit; #12 a commit with --no-verify (hooks-kept fails: 1 flagged row);
    // #13 the last edit after the last test run (1 flagged row). (#14 has no session: the list, PRs with
    // sessions, leaves it out; its page says "nothing to judge".) #15's only session is metrics-tier: no facts,
    // so one flagged row says nothing could be checked.
    expect(await row(11).locator('[data-verdict]').innerText()).toBe('clean');
    expect(await row(12).locator('[data-verdict]').innerText()).toBe('unverifiable · 1 flagged');
    expect(await row(13).locator('[data-verdict]').innerText()).toBe('review · 1 flagged');
    expect(await row(15).locator('[data-verdict]').innerText()).toBe('review · 1 flagged');
    // The other factory's #13 (same repository and number) is not here: one row, with this factory's verdict.
    expect(await row(13).count()).toBe(1);
    await screenshot(page, 'prs-verdict');

    await page.locator('select[name=verdict]').selectOption('review');
    await page.waitForURL((u) => u.searchParams.get('verdict') === 'review');
    await until(async () => (await rowTitles()).sort()).toEqual([`${REPO}#13`, `${REPO}#15`]);
    expect(await page.getByTestId('prs-total').innerText()).toBe('2');
    await page.locator('select[name=verdict]').selectOption('review,unverifiable');
    await page.waitForURL((u) => u.searchParams.get('verdict') === 'review,unverifiable');
    await until(async () => (await rowTitles()).sort()).toEqual([`${REPO}#12`, `${REPO}#13`, `${REPO}#15`]);
    await page.reload();
    await until(async () => (await rowTitles()).sort()).toEqual([`${REPO}#12`, `${REPO}#13`, `${REPO}#15`]);
    expect(await page.locator('select[name=verdict]').inputValue()).toBe('review,unverifiable');
    await page.goBack();
    await until(async () => (await rowTitles()).sort()).toEqual([`${REPO}#13`, `${REPO}#15`]);
  });

  it('PR page: the verdict panel, each row with its turns; a turn link opens the transcript at that turn', async () => {
    const api = await apiOf(a, `/v1/prs/${REPO}/13/verdict`);
    expect(api.verdict).toBe('review');
    const flaggedRow = (
      api.rows as Array<{
        validator: string;
        status: string;
        sentence: string;
        refs: Array<{ traceId: string; turnIndex: number }>;
      }>
    ).find((r) => r.validator === 'tests-after-last-edit')!;
    expect(flaggedRow.status).toBe('flag');
    await page.goto(`/f/${a.appId}/prs/acme/api/13`);
    const panel = page.getByTestId('verdict');
    await until(() => panel.locator('h2 [data-verdict]').innerText()).toBe('review · 1 flagged');
    expect(await page.getByTestId('verdict-summary').innerText()).toBe("1 row needs a person's look.");
    const tr = page.getByTestId('verdict-rows').locator('tr[data-validator="tests-after-last-edit"]');
    expect(await tr.locator('td').allInnerTexts()).toEqual(
      expect.arrayContaining(['tests-after-last-edit', 'flag', flaggedRow.sentence]),
    );
    // Its proof: the edit at turn 2 of "Change after the tests", linked to that turn.
    const trace = traces.get(UNTESTED.id)!;
    const links = tr.locator('td:last-child a');
    expect(await links.count()).toBe(flaggedRow.refs.length);
    expect(flaggedRow.refs.map((r) => [r.traceId, r.turnIndex])).toContainEqual([trace, 2]);
    const hrefs = await links.evaluateAll((els) => els.map((e) => e.getAttribute('href')));
    expect(hrefs).toEqual(flaggedRow.refs.map((r) => `/f/${a.appId}/sessions/${r.traceId}#turn-${r.turnIndex}`));
    expect(await tr.innerText()).not.toContain("Another factory's session");
    await screenshot(page, 'pr-verdict');

    const target = flaggedRow.refs.at(-1)!;
    await links.last().click();
    await page.waitForURL(`**/sessions/${target.traceId}#turn-${target.turnIndex}`);
    const marked = page.getByTestId('transcript').locator('article.turn.marked');
    await until(() => marked.getAttribute('data-turn')).toBe(String(target.turnIndex));
    await until(() => inView(marked, page.getByTestId('transcript'))).toBe(true);

    // #12: hooks were skipped at turn 3 (git commit --no-verify).
    await page.goto(`/f/${a.appId}/prs/acme/api/12`);
    await until(() => panel.locator('h2 [data-verdict]').getAttribute('data-verdict')).toBe('unverifiable');
    const hooks = page.getByTestId('verdict-rows').locator('tr[data-validator="hooks-kept"]');
    expect(await hooks.locator('td').nth(1).innerText()).toBe('fail');
    expect(
      await hooks.locator('td:last-child a').evaluateAll((els) => els.map((e) => e.getAttribute('href'))),
    ).toContain(`/f/${a.appId}/sessions/${traces.get(BYPASS.id)}#turn-3`);
    // #14: nothing to judge.
    await page.goto(`/f/${a.appId}/prs/acme/api/14`);
    await until(() => page.getByTestId('verdict-summary').innerText()).toBe(
      'No agent session is linked to this pull request: nothing to judge.',
    );
    expect(await page.getByTestId('verdict-rows').count()).toBe(0);
  });

  it('session: the Verification tab lists runs, edits, commits and bypasses, each turn linked', async () => {
    const trace = traces.get(FIXED.id)!;
    await page.goto(`/f/${a.appId}/sessions/${trace}`);
    await page.getByRole('tab', { name: 'Verification' }).click();
    await page.waitForURL((u) => u.searchParams.get('view') === 'verification');
    // By hand: npx vitest run (fail, turn 1), the edit (turn 2), npx vitest run (pass, turn 3), git commit (turn 4).
    await until(() => page.getByTestId('verification-summary').innerText()).toBe(
      '3 commands (2 passed, 1 failed), 1 edit (0 to test files), 1 commit, 0 hook bypasses.',
    );
    const runs = page.getByTestId('verification-runs').locator('tbody tr');
    expect(await runs.nth(0).locator('td').allInnerTexts()).toEqual(['#1', 'test', 'fail', 'full', 'npx vitest run']);
    expect(await runs.nth(1).locator('td').allInnerTexts()).toEqual(['#3', 'test', 'pass', 'full', 'npx vitest run']);
    expect(await runs.nth(2).locator('td').allInnerTexts()).toEqual([
      '#4',
      'commit',
      'pass',
      expect.any(String),
      'git commit -am "Fix the login redirect"',
    ]);
    expect(await page.getByTestId('verification-edits').locator('tbody tr td').allInnerTexts()).toEqual([
      '#2',
      'src/login.ts',
      'no',
    ]);
    expect(await page.getByTestId('verification-commits').innerText()).toContain('1a2b3c4');
    await screenshot(page, 'session-verification');
    // A turn link leaves the tab for the transcript at that turn.
    await runs.nth(0).getByRole('link', { name: '#1' }).click();
    await page.waitForURL((u) => !u.searchParams.has('view') && u.hash === '#turn-1');
    await until(() => page.getByTestId('transcript').locator('article.turn.marked').getAttribute('data-turn')).toBe(
      '1',
    );

    // The bypass of #12's session.
    await page.goto(`/f/${a.appId}/sessions/${traces.get(BYPASS.id)}?view=verification`);
    await until(() => page.getByTestId('verification-bypasses').locator('tbody tr td').allInnerTexts()).toEqual([
      '#3',
      '--no-verify',
    ]);

    // A metrics-tier session has none, and the page says why.
    await page.goto(`/f/${a.appId}/sessions/${traces.get(METRICS.id)}?view=verification`);
    await until(() => page.getByTestId('verification-empty').innerText()).toContain('captured at the metrics tier');
    expect(await page.getByTestId('verification').count()).toBe(0);
  });

  it('overview: pull requests by verdict in the window, with merged, reverted and CI failures', async () => {
    await page.goto(`/f/${a.appId}/?from=2026-07-01&to=2026-07-31`);
    const table = page.getByTestId('verdict-outcomes');
    const cells = (v: string) => table.locator(`tr[data-verdict-row="${v}"] td`).allInnerTexts();
    // By hand: opened (first session) on 2026-07-03: #11 clean, #13 and #15 review, #12 unverifiable; none
    // merged, reverted or with a failed CI (no webhook told any). #14 has no session.
    await until(() => cells('clean')).toEqual(['clean', '1', '0 (0%)', '0 (0%)', '0 (0%)']);
    expect(await cells('review')).toEqual(['review', '2', '0 (0%)', '0 (0%)', '0 (0%)']);
    expect(await cells('unverifiable')).toEqual(['unverifiable', '1', '0 (0%)', '0 (0%)', '0 (0%)']);
    expect(await cells('waiting')).toEqual(['waiting for sessions', '0', '0', '0', '0']);
    await screenshot(page, 'overview-verdicts');
    // A window before any of them: nothing, said so.
    await page.goto(`/f/${a.appId}/?from=2026-06-01&to=2026-06-30`);
    await until(() => page.getByTestId('verdict-outcomes-empty').innerText()).toBe(
      'No pull request was opened in this window.',
    );
  });

  it("another factory's member sees its own verdicts only, and none of this factory's sessions", async () => {
    const other = await newContext(browser, gw);
    try {
      const p = await openFactoryHome(other, gw, b);
      await p.goto(`/f/${b.appId}/prs`);
      const rows = p.getByTestId('prs-table').locator('tbody tr');
      await until(() => rows.count()).toBe(1);
      expect(await rows.locator('td:first-child a').innerText()).toBe(`${REPO}#13`);
      expect(await rows.locator('[data-verdict]').getAttribute('data-verdict')).toBe('clean');
      await p.goto(`/f/${b.appId}/prs/acme/api/12`);
      await until(() => p.locator('main').innerText()).toContain('Not found');
      // Its overview counts its own PR only (clean: an edit, then the tests passed).
      await p.goto(`/f/${b.appId}/?from=2026-07-01&to=2026-07-31`);
      await until(() =>
        p.getByTestId('verdict-outcomes').locator('tr[data-verdict-row="clean"] td').nth(1).innerText(),
      ).toBe('1');
      expect(
        await p.getByTestId('verdict-outcomes').locator('tr[data-verdict-row="review"] td').nth(1).innerText(),
      ).toBe('0');
      for (const id of [bigSession(1).id, UNTESTED.id]) {
        await p.goto(`/f/${b.appId}/sessions/${traces.get(id)}#turn-2`);
        await until(() => p.locator('main').innerText()).toContain('Not found');
        expect(await p.locator('main').innerText()).not.toContain('Change after the tests');
      }
    } finally {
      await other.close();
    }
  });
});
