// The web half of `npm run bench -- dashboard` (bench/dashboard.ts runs it after the API half; alone:
// `npm run bench -- dashboard-web`): the dashboard's two numbers. (1) The initial JS a first visit downloads before
// the first page renders, gzipped (budget 200 KB). (2) The time from opening the sessions page to its first
// rows, with 100k sessions in the store (target 1 s): a real gateway on the embedded SQLite store serving
// dist/web, driven in Debian's Chromium; each visit in a fresh browser context (empty cache), signed in by a
// one-time link. Sessions are bulk-loaded as bench/sessions.ts does (the same rows and counters ingest keeps).
// DASHBOARD_BENCH_SESSIONS (or --sessions) overrides the size; DASHBOARD_BENCH_VISITS the number of timed visits
// (default 5). Not a scenario set of bench/run.ts (it exports no `scenarios`): it runs only when named.
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTenant } from '../test/helpers/gateway.js';
import {
  browserFound,
  CHROMIUM,
  ensureWebBuilt,
  launchBrowser,
  newContext,
  signInLink,
  startWebGateway,
} from '../test/web/helpers.js';
import { INITIAL_JS_BUDGET, initialJsGzipBytes } from '../web/build/compress.js';
import { bulkLoad } from './sessions.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface DashboardWebBenchResult {
  initialJsGzipBytes: number;
  initialJsFiles: string[];
  sessions: number;
  loadSeconds: number;
  /** ms from navigation start to the first row of the sessions table, one per visit (fresh context each). */
  firstRowsMs: number[] | null;
  skipped?: string;
}

export async function runDashboardWebBench(opts: { sessions?: number } = {}): Promise<DashboardWebBenchResult> {
  await ensureWebBuilt();
  const initial = initialJsGzipBytes(path.join(ROOT, 'dist', 'web'));
  const size = opts.sessions ?? Number(process.env.DASHBOARD_BENCH_SESSIONS ?? 100_000);
  const visits = Number(process.env.DASHBOARD_BENCH_VISITS ?? 5);
  const base = { initialJsGzipBytes: initial.bytes, initialJsFiles: initial.files, sessions: size };
  if (!browserFound) return { ...base, loadSeconds: 0, firstRowsMs: null, skipped: `no Chromium at ${CHROMIUM}` };

  delete process.env.TEST_DATABASE_URL; // the embedded default store
  const gw = await startWebGateway({ env: { ATTEST_AUTH_CACHE_MS: '5000' } });
  const browser = await launchBrowser();
  try {
    const limits = gw.app.attest.rateLimits as { consume: unknown };
    limits.consume = async () => ({ allowed: true, limit: 1000, remaining: 999, resetAt: null, retryAfterSeconds: 0 });
    const t = await createTenant(gw, { plan: 'paid' });
    const actors = [t.ownerId, ...Array.from({ length: 9 }, () => crypto.randomUUID())];
    const started = performance.now();
    await bulkLoad(gw.app.attest, t, size, actors);
    const loadSeconds = (performance.now() - started) / 1000;

    const firstRowsMs: number[] = [];
    // One untimed visit warms the gateway's own caches (statement cache, auth), as a running gateway has them.
    for (let i = 0; i <= visits; i++) {
      const ctx = await newContext(browser, gw);
      const page = await ctx.newPage();
      await page.goto(await signInLink(gw, t.loginToken));
      await page.waitForURL(`**/f/${t.appId}`);
      await ctx.clearCookies().catch(() => undefined);
      await ctx.close();
      const fresh = await newContext(browser, gw);
      // Sign the fresh context in without loading any page (the cookie only), so the timed visit starts cold.
      const link = await signInLink(gw, t.loginToken);
      const res = await fresh.request.get(link, { maxRedirects: 0 });
      const cookie = res.headers()['set-cookie'];
      if (!cookie) throw new Error(`sign-in link gave no cookie (${res.status()})`);
      const timed = await fresh.newPage();
      const t0 = Date.now();
      await timed.goto(`/f/${t.appId}/sessions`, { waitUntil: 'commit' });
      await timed.getByTestId('sessions-table').locator('tbody tr').first().waitFor();
      const ms = Date.now() - t0;
      if (i > 0) firstRowsMs.push(ms);
      await fresh.close();
    }
    return { ...base, loadSeconds, firstRowsMs };
  } finally {
    await browser.close();
    await gw.close();
  }
}

export function formatDashboardWebBench(r: DashboardWebBenchResult, targetMs = 1000): string {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const lines = [
    `dashboard: initial JS ${kb(r.initialJsGzipBytes)} gzipped (${r.initialJsFiles.join(', ')}); budget ` +
      `${kb(INITIAL_JS_BUDGET)} → ${r.initialJsGzipBytes <= INITIAL_JS_BUDGET ? 'within' : 'OVER'}`,
  ];
  if (!r.firstRowsMs) {
    lines.push(`dashboard: sessions page not timed (${r.skipped})`);
    return lines.join('\n');
  }
  const sorted = [...r.firstRowsMs].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  lines.push(
    `dashboard: ${r.sessions.toLocaleString('en-US')} sessions bulk-loaded in ${r.loadSeconds.toFixed(1)} s (SQLite)`,
    `dashboard: sessions page to first rows, cold browser cache: median ${median} ms, min ${sorted[0]} ms, max ` +
      `${sorted[sorted.length - 1]} ms over ${sorted.length} visits; target ${targetMs} ms → ` +
      `${median <= targetMs ? 'met' : 'MISSED'}`,
  );
  return lines.join('\n');
}
