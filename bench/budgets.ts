// `npm run bench -- budgets`: what budgets cost the sync path (issue 44: evaluating 1,000 budgets after each
// sync costs at most 1 ms p50 on the sync path, or moves off it). The evaluation runs in the notification
// worker, so the sync path's cost is measured as the difference of POST /v1/agents/sync (one session, through
// the whole server with inject) with 1,000 budgets in the factory and with none; the worker's evaluation of the
// 1,000 budgets after each sync is timed on its own. A gateway in this process on a temp SQLite store.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { ManualClock } from '../src/server/clock.js';
import { loadConfig } from '../src/server/config.js';
import { oneTurnSession, percentile } from './seed.js';

export const scenarios = [];

export interface BudgetsBenchRow {
  name: string;
  p50Ms: number;
  p99Ms: number;
  samples: number;
}

const pct = (xs: number[], p: number) =>
  percentile(
    [...xs].sort((x, y) => x - y),
    p,
  );

export async function runBudgetsBench(opts: { samples?: number; budgets?: number } = {}): Promise<BudgetsBenchRow[]> {
  const samples = opts.samples ?? 100;
  const count = opts.budgets ?? 1000;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'attest-bench-budgets-'));
  const clock = new ManualClock(Date.parse('2026-11-10T12:00:00Z'));
  const app = await buildApp({
    config: loadConfig({
      ATTEST_DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      ATTEST_JOBS_POLL_MS: '0',
      ATTEST_HOUSEKEEPING_MINUTES: '0',
    }),
    clock,
    logger: false,
  });
  await app.ready();
  try {
    const boot = app.attest.bootstrap;
    const headers = {
      authorization: `Bearer ${boot.loginToken}`,
      'x-outerlayer-app-id': boot.appId,
      'content-type': 'application/json',
    };
    const sync = async () => {
      const payload = JSON.stringify({ schemaVersion: 1, sessions: [oneTurnSession(clock.now() - 60_000)] });
      const t = performance.now();
      const r = await app.inject({ method: 'POST', url: '/v1/agents/sync', headers, payload });
      const ms = performance.now() - t;
      if (r.statusCode !== 200) throw new Error(`sync ${r.statusCode} ${r.body}`);
      clock.advance(1000);
      return ms;
    };
    const rows: BudgetsBenchRow[] = [];
    for (let i = 0; i < 20; i++) await sync();
    const without: number[] = [];
    for (let i = 0; i < samples; i++) without.push(await sync());
    rows.push({ name: 'POST /v1/agents/sync, no budgets', p50Ms: pct(without, 50), p99Ms: pct(without, 99), samples });

    for (let i = 0; i < count; i++) {
      const r = await app.inject({
        method: 'POST',
        url: '/v1/budgets',
        headers,
        payload: JSON.stringify({
          name: `b${i}`,
          // A quarter each: the factory, a repository, a repository, a resource attribute (team=tN).
          scope: [
            { kind: 'factory' },
            { kind: 'repository', repository: `acme/r${i % 50}` },
            { kind: 'repository', repository: `acme/r${(i + 25) % 50}` },
            { kind: 'attribute', key: 'team', value: `t${i % 10}` },
          ][i % 4],
          amountUsd: 1000 + i,
          period: (['day', 'week', 'month'] as const)[i % 3],
          timeZone: i % 4 ? 'UTC' : 'Europe/Berlin',
        }),
      });
      if (r.statusCode !== 201) throw new Error(`budget ${r.statusCode} ${r.body}`);
    }
    await app.attest.notifications.runDueJobs();
    const withBudgets: number[] = [];
    const evaluation: number[] = [];
    for (let i = 0; i < samples; i++) {
      withBudgets.push(await sync());
      const t = performance.now();
      await app.attest.notifications.runDueJobs();
      evaluation.push(performance.now() - t);
    }
    rows.push({
      name: `POST /v1/agents/sync, ${count} budgets`,
      p50Ms: pct(withBudgets, 50),
      p99Ms: pct(withBudgets, 99),
      samples,
    });
    rows.push({
      name: `worker: evaluate ${count} budgets after a sync`,
      p50Ms: pct(evaluation, 50),
      p99Ms: pct(evaluation, 99),
      samples,
    });
    return rows;
  } finally {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatBudgetsBench(rows: BudgetsBenchRow[]): string {
  const lines = rows.map(
    (r) =>
      `${r.name.padEnd(48)} ${r.p50Ms.toFixed(2).padStart(8)} ${r.p99Ms.toFixed(2).padStart(8)} ` +
      `${String(r.samples).padStart(6)}`,
  );
  return [`${'scenario'.padEnd(48)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'n'.padStart(6)}`, ...lines].join(
    '\n',
  );
}
