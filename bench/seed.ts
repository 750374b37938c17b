// What the benches over a large factory share: a gateway built in this process on a temp store (SQLite, or its
// own PostgreSQL schema when DATABASE_URL is set), a factory key with every permission, and N sessions seeded
// straight into the sessions area's summary, per-model and per-tool usage tables (ingesting 100k documents through
// the API would take minutes and measure ingest, not the read under test), with merged PRs and named PR links, and
// every aggregate the write path would have kept (the list's counters, the metrics rollups, the PR spend sums,
// the PRs by verdict) as it would have kept them. No documents: the reads under test do not open them.
// Used by bench/metrics.ts, bench/dashboard.ts, bench/verdict.ts and bench/pr-spend.ts.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import type { SessionModelUsageTable, SessionsTable } from '../src/areas/sessions/store.js';
import { sql } from 'kysely';
import { isPostgres, type Db } from '../src/db/connection.js';
import type { SessionToolUsageTable } from '../src/areas/metrics/tools-store.js';
import { rebuildMetricRollups } from '../src/areas/metrics/rollup-rebuild.js';
import { rebuildSpend } from '../src/areas/prs/spend-aggregates.js';
import { rebuildPrOutcomes } from '../src/areas/prs/outcome-aggregates.js';
import { mintCredential } from '../src/server/auth/mint.js';
import { loadConfig } from '../src/server/config.js';
import { PERMISSIONS } from '../src/server/permissions.js';
import { insertRows, insertRowsTogether } from '../src/db/bulk-insert.js';
import { ListCounterMoves } from '../src/areas/sessions/counter-store.js';
import { listEntryText } from '../src/areas/sessions/list-entry.js';

export const DAY_MS = 86_400_000;

const MODELS = ['claude-sonnet-4-5', 'claude-opus-4-1', 'gpt-5', 'claude-haiku-4-5'];
const BRANCHES = ['main', 'fix/a', 'feat/b', 'chore/c', 'release'];
const AGENTS = ['claude-code', 'codex', 'cursor'];
const WORKERS = [null, 'seat', 'cloud', 'ci'];
const TOOLS = ['Bash', 'Read', 'Edit', 'Grep', 'Write', 'Glob', 'Task', 'WebFetch'];

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
 * so the PR spend tiles join real rows; then the aggregates, rebuilt from those rows by the code that fills them
 * for a factory a migration left owing them (so they equal what ingest keeps).
 */
export async function seed(
  db: Db,
  orgId: string,
  appId: string,
  n: number,
  days: number,
  now: number,
): Promise<SeedPhases> {
  const phases: SeedPhases = {};
  let mark = performance.now();
  const phase = (name: string) => {
    const t = performance.now();
    phases[name] = (t - mark) / 1000;
    mark = t;
  };
  // Room to sort in while the indexes and aggregates are built (SQLite's own cache, PostgreSQL's index builds);
  // the gateway's setting is put back after.
  const restoreMemory = await moreMemoryToLoad(db);
  const rand = rng(42);
  // The tools' split on a sequence of its own, so the sessions stay those seeded before tools were.
  const toolRand = rng(7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const sessionBatch: SessionsTable[] = [];
  const usageBatch: SessionModelUsageTable[] = [];
  const toolBatch: SessionToolUsageTable[] = [];
  const refBatch: { app_id: string; session_id: string; repository: string; number: number }[] = [];
  // The list's counters as the write path moves them (one session at a time), summed here and added once.
  const counters = new ListCounterMoves();
  // Sortable ids (the primary key's index then grows at its end) and the tables' other indexes dropped while the
  // rows go in and built once after: a bulk load that takes minutes at 1M instead of an hour.
  const idOf = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
  const rebuildIndexes = await dropIndexes(db, [
    'sessions',
    'session_model_usage',
    'session_tool_usage',
    'session_pr_refs',
  ]);
  const perBatch = isPostgres(db) ? 4000 : 400;
  const flush = async () => {
    for (const row of sessionBatch) {
      const refs = JSON.parse(row.pr_refs) as { prNumber: number }[];
      for (const r of refs)
        refBatch.push({ app_id: appId, session_id: row.id, repository: row.repo, number: r.prNumber });
    }
    if (sessionBatch.length) await insertRows(db, 'sessions', sessionBatch.splice(0));
    if (refBatch.length) await insertRows(db, 'session_pr_refs', refBatch.splice(0));
    if (usageBatch.length) await insertRows(db, 'session_model_usage', usageBatch.splice(0));
    if (toolBatch.length) await insertRows(db, 'session_tool_usage', toolBatch.splice(0));
  };
  for (let i = 0; i < n; i++) {
    const id = idOf(i);
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
    // The calls split over one to four tools, each with at least one call; errors and rejections go to the
    // first tools that can hold them (a session whose rejection has no call to land on keeps it on its row only).
    const toolCount = toolCalls === 0 ? 0 : 1 + Math.floor(toolRand() * Math.min(4, toolCalls));
    const firstTool = Math.floor(toolRand() * TOOLS.length);
    let callsLeft = toolCalls;
    let errorsLeft = toolErrors;
    let rejectedLeft = rejected;
    for (let t = 0; t < toolCount; t++) {
      const rest = toolCount - 1 - t;
      const calls = rest === 0 ? callsLeft : 1 + Math.floor(toolRand() * (callsLeft - rest));
      const errors = Math.min(calls, errorsLeft);
      const denied = Math.min(calls, rejectedLeft);
      callsLeft -= calls;
      errorsLeft -= errors;
      rejectedLeft -= denied;
      toolBatch.push({
        session_id: id,
        org_id: orgId,
        app_id: appId,
        tool: TOOLS[(firstTool + t) % TOOLS.length]!,
        started_at: startedAt,
        repo,
        is_subagent: 0,
        calls,
        errors,
        rejected: denied,
      });
    }
    const row: SessionsTable = {
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
      capture_source: 'transcript',
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
      list_entry: null,
    };
    // As the store writes it with the row (sessions/store.ts).
    row.list_entry = listEntryText(row);
    sessionBatch.push(row);
    counters.add(row, 1);
    // SQLite's batches stay under its bound-parameter limit (48 columns × 400 rows); PostgreSQL's travel as JSON.
    if (sessionBatch.length >= perBatch) await flush();
  }
  await flush();
  await insertRowsTogether(db, counters.inserts(appId));
  // PostgreSQL raises the list version at commit (a deferred trigger, migration 0054) and builds no index on a
  // table with events pending: they run now, as part of the rows.
  if (isPostgres(db)) await sql`set constraints all immediate`.execute(db);
  phase('rows');
  await rebuildIndexes();
  phase('indexes');
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
  // Each PR's verdict as the PR job would have stored it (one evaluation each), so the Overview's comparison
  // reads stored verdicts rather than evaluating 1,200 PRs on its first read.
  const verdicts = ['clean', 'review', 'unverifiable', 'waiting'];
  const evaluations = prs.map((p) => ({
    id: crypto.randomUUID(),
    org_id: orgId,
    app_id: appId,
    repository: p.repository,
    number: p.number,
    head_sha: p.head_sha,
    verdict: pick(verdicts),
    flagged: 0,
    blocked: 0,
    rows: '[]',
    policy: '{"source":"default","errors":[]}',
    digest: 'bench',
    evaluated_at: p.opened_at,
  }));
  for (let i = 0; i < evaluations.length; i += 200)
    await db
      .insertInto('pr_evaluations')
      .values(evaluations.slice(i, i + 200))
      .execute();
  phase('prs');
  // The rows were written straight to the tables, past the write path that keeps the aggregates: build them.
  await rebuildMetricRollups(db, appId);
  phase('rollups');
  await rebuildSpend(db, appId);
  phase('spend');
  await rebuildPrOutcomes(db, appId);
  phase('outcomes');
  await restoreMemory();
  return phases;
}

/** Seconds each step of the seeding took, in order. */
export type SeedPhases = Record<string, number>;

async function moreMemoryToLoad(db: Db): Promise<() => Promise<void>> {
  if (isPostgres(db)) {
    await sql`set local maintenance_work_mem = '256MB'`.execute(db);
    return async () => {};
  }
  const was = (await sql<{ cache_size: number }>`pragma cache_size`.execute(db)).rows[0]!.cache_size;
  await sql`pragma cache_size = -262144`.execute(db);
  return async () => {
    await sql.raw(`pragma cache_size = ${Number(was)}`).execute(db);
  };
}

/**
 * The store as a gateway that wrote these rows over time would hold it.
 * PostgreSQL: statistics of every table of the schema, as autovacuum would gather them after a load this size
 * (the bench's server runs without it). SQLite keeps none unless asked, and the gateway never asks; its WAL is
 * copied into the database and emptied. One transaction of 1M sessions leaves a WAL of about 3 GB, which the
 * gateway's checkpoint thread copies while the first reads run (the Overview page's wall time about doubled
 * for those seconds, its CPU unchanged); a gateway that ingested them holds a WAL of a few tens of MB.
 */
export async function settleAfterLoad(db: Db): Promise<void> {
  if (!isPostgres(db)) {
    // The checkpoint thread may be copying already: a checkpoint that finds another running answers busy at once.
    for (;;) {
      const r = (await sql<{ busy: number }>`pragma wal_checkpoint(TRUNCATE)`.execute(db)).rows[0];
      if (!Number(r?.busy)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const tables = await sql<{ name: string }>`
    select tablename as name from pg_tables where schemaname = current_schema() order by tablename`.execute(db);
  for (const t of tables.rows) await sql`analyze ${sql.table(t.name)}`.execute(db);
}

/**
 * Drop the secondary indexes of these tables (in the caller's transaction); the function returned builds them
 * again. Constraint indexes (primary keys) stay.
 */
async function dropIndexes(db: Db, tables: readonly string[]): Promise<() => Promise<void>> {
  const rows = isPostgres(db)
    ? (
        await sql<{ name: string; def: string }>`
          select i.indexname as name, i.indexdef as def from pg_indexes i
          where i.schemaname = current_schema() and i.tablename in (${sql.join(tables)})
            and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`.execute(db)
      ).rows
    : (
        await sql<{ name: string; def: string }>`
          select name, sql as def from sqlite_master
          where type = 'index' and sql is not null and tbl_name in (${sql.join(tables)})`.execute(db)
      ).rows;
  for (const r of rows) await sql`drop index ${sql.id(r.name)}`.execute(db);
  return async () => {
    for (const r of rows) await sql.raw(r.def).execute(db);
  };
}

/** A one-turn redacted Claude Code session started at `startedAt` (a fresh id each call), as a sync sends it. */
export function oneTurnSession(startedAt: number) {
  const ts = new Date(startedAt).toISOString();
  return {
    schemaVersion: 1,
    id: crypto.randomUUID(),
    agent: { type: 'claude-code', version: '2.1.193' },
    actor: { id: 'bench' },
    captureTier: 'redacted',
    env: { gitRepo: 'github.com/acme/api' },
    startedAt: ts,
    endedAt: ts,
    models: ['claude-sonnet-4-5'],
    turns: [
      { index: 0, role: 'user', source: 'human', text: null, toolCalls: [], ts },
      {
        index: 1,
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        text: null,
        ts,
        usage: { in: 1000, out: 100, cacheRead: 0, cacheCreate: 0 },
        toolCalls: [],
      },
    ],
    events: [],
    totals: { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 0, cacheCreationTokens: 0 },
    warnings: [],
  };
}

/** The p-th percentile of ascending samples (0 when there are none). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export interface SeededGatewayOptions {
  /** Names the factory key and the temp directory. */
  name: string;
  sessions: number;
  /** Days the sessions spread over, ending now (default 90). */
  days?: number;
  /** PostgreSQL to run on (a fresh schema, dropped at close); null for SQLite. Default: DATABASE_URL. */
  databaseUrl?: string | null;
  /** Where the store lives (default: a new temp directory, removed at close). */
  dataDir?: string;
  /** Runs against the listening gateway before the sessions are seeded (warms its code, not its data). */
  beforeSeed?: (url: string, headers: Record<string, string>) => Promise<void>;
  /** Environment for the gateway's config beyond the bench's own (e.g. ATTEST_HOUSEKEEPING_MINUTES). */
  env?: Record<string, string>;
}

export interface SeededGateway {
  app: Awaited<ReturnType<typeof buildApp>>;
  gw: Awaited<ReturnType<typeof buildApp>>['attest'];
  /** The listening base URL (a real socket on 127.0.0.1, port chosen by the system). */
  url: string;
  /** The factory key's headers (every permission). */
  headers: Record<string, string>;
  now: number;
  seedSeconds: number;
  seedPhases: SeedPhases;
  close(): Promise<void>;
}

/** A listening gateway on a temp store with `sessions` seeded in one transaction; close() removes it all. */
export async function seededGateway(o: SeededGatewayOptions): Promise<SeededGateway> {
  const databaseUrl = o.databaseUrl === undefined ? (process.env.DATABASE_URL ?? null) : o.databaseUrl;
  const dataDir = o.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), `attest-bench-${o.name}-`));
  const config = loadConfig({
    ATTEST_DATA_DIR: dataDir,
    ATTEST_KEY_PEPPER: crypto.randomBytes(16).toString('hex'),
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
    ...(databaseUrl
      ? { DATABASE_URL: databaseUrl, ATTEST_DATABASE_SCHEMA: `bench_${crypto.randomBytes(4).toString('hex')}` }
      : {}),
    ...o.env,
  });
  const pgAdmin = async (q: string) => {
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: config.databaseUrl! });
    await client.connect();
    await client.query(q);
    await client.end();
  };
  if (config.databaseUrl && config.databaseSchema) await pgAdmin(`create schema ${config.databaseSchema}`);
  const app = await buildApp({ config });
  const close = async () => {
    await app.close();
    if (config.databaseUrl && config.databaseSchema)
      await pgAdmin(`drop schema if exists ${config.databaseSchema} cascade`);
    if (o.dataDir === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const gw = app.attest;
    const boot = gw.bootstrap;
    const now = gw.clock.now();
    const key = await mintCredential(gw.db, gw.pepper, now, {
      kind: 'factory_key',
      name: `bench-${o.name}`,
      orgId: boot.orgId,
      appId: boot.appId,
      createdBy: boot.userId,
      permissions: [...PERMISSIONS],
    });
    const headers = { authorization: `Bearer ${key.plaintext}`, 'x-outerlayer-app-id': boot.appId };
    await o.beforeSeed?.(url, headers);
    const t0 = performance.now();
    // One transaction: the store's per-commit fsync would otherwise dominate the seeding time.
    const seedPhases = await gw.db
      .transaction()
      .execute((trx) => seed(trx, boot.orgId, boot.appId, o.sessions, o.days ?? 90, now));
    const settling = performance.now();
    await settleAfterLoad(gw.db);
    seedPhases[isPostgres(gw.db) ? 'analyze' : 'checkpoint'] = (performance.now() - settling) / 1000;
    return { app, gw, url, headers, now, seedSeconds: (performance.now() - t0) / 1000, seedPhases, close };
  } catch (err) {
    await close();
    throw err;
  }
}
