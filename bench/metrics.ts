// `npx tsx bench/metrics.ts [--sessions N] [--samples N] [--days N]` (DATABASE_URL=postgres://... for PostgreSQL)
//
// GET /v1/metrics/overview and GET /v1/metrics/models over a factory holding 100k sessions (target: p99
// ≤ 50 ms). Builds the gateway in this process on a temp store, seeds N sessions spread over `days` days
// straight into the sessions area's summary and per-model usage tables (ingesting 100k documents through
// the API would take minutes and measure ingest, not metrics), then sends `samples` sequential requests per
// scenario over HTTP (a real socket, the whole guard/serialization path) and prints latency percentiles.
//
// Requests are sequential on purpose: this measures what one dashboard load costs, not throughput. The
// org's observability-read bucket (1000/min on paid plans) bounds samples × scenarios per minute; the
// default (150 × 6 = 900) stays under it.
//
// Not a scenario set of bench/run.ts (it exports no `scenarios`): run.ts skips it. Export: runMetricsBench.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/server/config.js';
import { mintCredential } from '../src/server/auth/mint.js';
import { PERMISSIONS } from '../src/server/permissions.js';
import type { Db } from '../src/db/connection.js';
import type { SessionsTable, SessionModelUsageTable } from '../src/areas/sessions/store.js';

export interface MetricsBenchOptions {
  sessions: number;
  samples: number;
  days: number;
  databaseUrl: string | null;
}

export interface MetricsBenchRow {
  scenario: string;
  samples: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
}

export interface MetricsBenchResult {
  sessions: number;
  seedSeconds: number;
  dialect: string;
  rows: MetricsBenchRow[];
}

const DAY_MS = 86_400_000;
const MODELS = ['claude-sonnet-4-5', 'claude-opus-4-1', 'gpt-5', 'claude-haiku-4-5'];
const BRANCHES = ['main', 'fix/a', 'feat/b', 'chore/c', 'release'];
const AGENTS = ['claude-code', 'codex', 'cursor'];
const WORKERS = [null, 'seat', 'cloud', 'ci'];

/** A deterministic pseudo-random sequence, so runs seed the same data. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * N sessions over `days` days straight into the summary and usage tables, plus one merged pull request per
 * repository and branch (merged at a random time in the window) and named PR links for a fifth of the sessions,
 * so the PR spend tiles join real rows.
 */
export async function seed(db: Db, orgId: string, appId: string, n: number, days: number, now: number): Promise<void> {
  const rand = rng(42);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const sessionBatch: SessionsTable[] = [];
  const usageBatch: SessionModelUsageTable[] = [];
  const refBatch: { app_id: string; session_id: string; repository: string; number: number }[] = [];
  const flush = async () => {
    for (const row of sessionBatch) {
      const refs = JSON.parse(row.pr_refs) as { prNumber: number }[];
      for (const r of refs)
        refBatch.push({ app_id: appId, session_id: row.id, repository: row.repo, number: r.prNumber });
    }
    if (sessionBatch.length) await db.insertInto('sessions').values(sessionBatch.splice(0)).execute();
    if (refBatch.length) await db.insertInto('session_pr_refs').values(refBatch.splice(0)).execute();
    if (usageBatch.length) await db.insertInto('session_model_usage').values(usageBatch.splice(0)).execute();
  };
  for (let i = 0; i < n; i++) {
    const id = crypto.randomUUID();
    const startedAt = now - Math.floor(rand() * days * DAY_MS);
    const repo = pick(['acme/api', 'acme/web', 'acme/infra', '']);
    const actor = `actor-${Math.floor(rand() * 40)}`;
    const prRef = repo !== '' && rand() < 0.2 ? 1 + Math.floor(rand() * 400) : null;
    const agent = pick(AGENTS);
    const toolCalls = Math.floor(rand() * 60);
    const toolErrors = Math.floor(toolCalls * rand() * 0.2);
    const rejected = rand() < 0.1 ? 1 : 0;
    const models = rand() < 0.3 ? [pick(MODELS), pick(MODELS)] : [pick(MODELS)];
    const uniqueModels = [...new Set(models)];
    let input = 0,
      output = 0,
      cacheRead = 0,
      cacheWrite = 0,
      cost = 0,
      turns = 0;
    for (const model of uniqueModels) {
      const u = {
        turns: 1 + Math.floor(rand() * 40),
        input: Math.floor(rand() * 50_000),
        output: Math.floor(rand() * 20_000),
        cacheRead: Math.floor(rand() * 500_000),
        cacheWrite: Math.floor(rand() * 50_000),
      };
      const costMicros = Math.floor(rand() * 3_000_000);
      input += u.input;
      output += u.output;
      cacheRead += u.cacheRead;
      cacheWrite += u.cacheWrite;
      cost += costMicros;
      turns += u.turns;
      usageBatch.push({
        session_id: id,
        org_id: orgId,
        app_id: appId,
        model,
        started_at: startedAt,
        repo,
        actor_id: actor,
        agent_type: agent,
        is_subagent: 0,
        turn_count: u.turns,
        unpriced_turn_count: 0,
        input_tokens: u.input,
        output_tokens: u.output,
        cache_read_tokens: u.cacheRead,
        cache_write_tokens: u.cacheWrite,
        cache_write_1h_tokens: 0,
        cost_micros: costMicros,
      });
    }
    sessionBatch.push({
      id,
      org_id: orgId,
      app_id: appId,
      session_key: id,
      session_id: id,
      parent_session_id: null,
      subagent_id: null,
      is_subagent: 0,
      actor_id: actor,
      actor_name: actor,
      credential_id: 'bench',
      agent_type: agent,
      agent_version: '1.0.0',
      origin: pick(['interactive', 'agent', 'worker']),
      worker_kind: pick(WORKERS),
      repo,
      branch: pick(BRANCHES),
      project: repo.split('/')[1] ?? '',
      commit_sha: null,
      title: null,
      capture_tier: 'metrics',
      started_at: startedAt,
      ended_at: startedAt + 600_000,
      duration_ms: 600_000,
      turn_count: turns * 2,
      user_turn_count: turns,
      steering_count: rand() < 0.3 ? 1 + Math.floor(rand() * 3) : 0,
      event_count: 0,
      tool_call_count: toolCalls,
      tool_error_count: toolErrors,
      rejected_tool_call_count: rejected,
      api_error_count: rand() < 0.05 ? 1 : 0,
      error_count: toolErrors,
      tool_error_rate_ppm: toolCalls ? Math.round((toolErrors * 1e6) / toolCalls) : 0,
      input_tokens: input,
      output_tokens: output,
      cache_read_tokens: cacheRead,
      cache_write_tokens: cacheWrite,
      cache_write_1h_tokens: 0,
      cost_micros: cost,
      cost_status: 'complete',
      unpriced_models: '[]',
      models: JSON.stringify(uniqueModels),
      pr_refs: prRef === null ? '[]' : JSON.stringify([{ prNumber: prRef }]),
      chunk_of: null,
      chunk_parts: '[]',
      created_at: startedAt,
      updated_at: startedAt,
    });
    // Batches stay under the bound-parameter limits of both drivers (48 columns × 400 rows).
    if (sessionBatch.length >= 400) await flush();
  }
  await flush();
  // Pull requests: numbers 1..400 per repository (the named links above point at them), the first five on
  // the branches sessions run on; 70% merged at a random time of the window, the rest open.
  const prs = [];
  for (const repository of ['acme/api', 'acme/web', 'acme/infra']) {
    for (let number = 1; number <= 400; number++) {
      const merged = rand() < 0.7;
      const at = now - Math.floor(rand() * days * DAY_MS);
      prs.push({
        id: crypto.randomUUID(),
        org_id: orgId,
        app_id: appId,
        repository,
        number,
        url: `https://github.com/${repository}/pull/${number}`,
        title: `PR ${number}`,
        author: 'bench',
        head_branch: number <= BRANCHES.length ? BRANCHES[number - 1]! : `topic/${number}`,
        head_sha: 'a'.repeat(40),
        base_branch: 'main',
        state: merged ? ('merged' as const) : ('open' as const),
        merged: merged ? 1 : 0,
        opened_at: at - DAY_MS,
        closed_at: merged ? at : null,
        merged_at: merged ? at : null,
        source_updated_at: at,
        updated_at: at,
        state_source: 'app' as const,
      });
    }
  }
  for (let i = 0; i < prs.length; i += 200)
    await db
      .insertInto('pull_requests')
      .values(prs.slice(i, i + 200))
      .execute();
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function runMetricsBench(opts: Partial<MetricsBenchOptions> = {}): Promise<MetricsBenchResult> {
  const o: MetricsBenchOptions = {
    sessions: 100_000,
    samples: 150,
    days: 90,
    databaseUrl: process.env.DATABASE_URL ?? null,
    ...opts,
  };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'attest-bench-metrics-'));
  const config = loadConfig({
    ATTEST_DATA_DIR: dataDir,
    ATTEST_KEY_PEPPER: crypto.randomBytes(16).toString('hex'),
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
    ...(o.databaseUrl
      ? { DATABASE_URL: o.databaseUrl, ATTEST_DATABASE_SCHEMA: `bench_${crypto.randomBytes(4).toString('hex')}` }
      : {}),
  });
  if (config.databaseUrl && config.databaseSchema) {
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: config.databaseUrl });
    await client.connect();
    await client.query(`create schema ${config.databaseSchema}`);
    await client.end();
  }
  const app = await buildApp({ config });
  try {
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const gw = app.attest;
    const boot = gw.bootstrap;
    const now = gw.clock.now();
    const key = await mintCredential(gw.db, gw.pepper, now, {
      kind: 'factory_key',
      name: 'bench-metrics',
      orgId: boot.orgId,
      appId: boot.appId,
      createdBy: boot.userId,
      permissions: [...PERMISSIONS],
    });
    const t0 = performance.now();
    // One transaction: the store's per-commit fsync would otherwise dominate the seeding time.
    await gw.db.transaction().execute((trx) => seed(trx, boot.orgId, boot.appId, o.sessions, o.days, now));
    const seedSeconds = (performance.now() - t0) / 1000;
    const headers = { authorization: `Bearer ${key.plaintext}`, 'x-outerlayer-app-id': boot.appId };

    const date = (n: number) => new Date(now - n * DAY_MS).toISOString().slice(0, 10);
    const instant = (n: number) => encodeURIComponent(new Date(now - n * DAY_MS).toISOString());
    const scenarios: [string, string][] = [
      ['GET /v1/metrics/overview (default: 30 days + prior 30)', '/v1/metrics/overview'],
      ['GET /v1/metrics/models (default: 30 days)', '/v1/metrics/models'],
      [`GET /v1/metrics/overview (${o.days} days: every session)`, `/v1/metrics/overview?from=${date(o.days)}`],
      [`GET /v1/metrics/models (${o.days} days: every session)`, `/v1/metrics/models?from=${date(o.days)}`],
      [
        'GET /v1/metrics/overview (date-times: partial edge days)',
        `/v1/metrics/overview?from=${instant(30.5)}&to=${instant(0.5)}`,
      ],
      ['GET /v1/metrics/overview?repo=acme/api', '/v1/metrics/overview?repo=acme%2Fapi'],
    ];
    const rows: MetricsBenchRow[] = [];
    for (const [scenario, p] of scenarios) {
      // Warm-up: the first request of a shape compiles its serializer and fills the page cache.
      for (let i = 0; i < 3; i++) await fetch(url + p, { headers }).then((r) => r.arrayBuffer());
      const times: number[] = [];
      let non2xx = 0;
      for (let i = 0; i < o.samples; i++) {
        const start = performance.now();
        const res = await fetch(url + p, { headers });
        await res.arrayBuffer();
        times.push(performance.now() - start);
        if (res.status < 200 || res.status >= 300) non2xx++;
      }
      times.sort((a, b) => a - b);
      rows.push({
        scenario,
        samples: o.samples,
        p50Ms: percentile(times, 50),
        p90Ms: percentile(times, 90),
        p99Ms: percentile(times, 99),
        maxMs: times[times.length - 1] ?? 0,
        non2xx,
      });
    }
    return { sessions: o.sessions, seedSeconds, dialect: gw.dialect, rows };
  } finally {
    await app.close();
    if (config.databaseUrl && config.databaseSchema) {
      const pg = await import('pg');
      const client = new pg.default.Client({ connectionString: config.databaseUrl });
      await client.connect();
      await client.query(`drop schema if exists ${config.databaseSchema} cascade`);
      await client.end();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatMetricsBench(result: MetricsBenchResult, targetMs = 50): string {
  const header = ['scenario', 'samples', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', `p99 ≤ ${targetMs} ms`];
  const lines = result.rows.map((r) => [
    r.scenario,
    String(r.samples),
    r.p50Ms.toFixed(1),
    r.p90Ms.toFixed(1),
    r.p99Ms.toFixed(1),
    r.maxMs.toFixed(1),
    r.non2xx ? `FAILED: ${r.non2xx} non-2xx` : r.p99Ms <= targetMs ? 'met' : 'NOT met',
  ]);
  const all = [header, ...lines];
  const widths = header.map((_, i) => Math.max(...all.map((l) => l[i]!.length)));
  const fmt = (l: string[]) =>
    l
      .map((c, i) => (i === 0 || i === 6 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [
    `${result.sessions} sessions on ${result.dialect} (seeded in ${result.seedSeconds.toFixed(1)} s); node ${process.version}, ${os.cpus().length} CPUs; sequential requests`,
    fmt(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...lines.map(fmt),
  ].join('\n');
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const num = (name: string) => (argValue(name) === undefined ? undefined : Number(argValue(name)));
  const opts: Partial<MetricsBenchOptions> = {};
  if (num('--sessions') !== undefined) opts.sessions = num('--sessions')!;
  if (num('--samples') !== undefined) opts.samples = num('--samples')!;
  if (num('--days') !== undefined) opts.days = num('--days')!;
  const result = await runMetricsBench(opts);
  console.log(formatMetricsBench(result));
  if (result.rows.some((r) => r.non2xx > 0)) process.exitCode = 1;
}
