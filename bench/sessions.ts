// Session ingest and session-list benchmarks. Run directly: `npx tsx bench/sessions.ts [--sizes 1000,100000]
// [--batches 200] [--requests 300] [--clients 1,4] [--only ingest|list|resend] [--no-postgres] [--no-sqlite]`;
// it prints a table, the verdicts of goals 2 and 3 (docs/performance.md) it measured, and a machine reference.
// `runSessionsBench()` returns the rows for bench/run.ts.
//
// - Ingest: POST /v1/agents/sync with batches of 25 realistic sessions (the raw Claude Code transcripts of
//   test/fixtures converted by the capture module at the redacted tier, as the CLI sends them, each with
//   a fresh id so every session is a new insert), from 1 and from 4 concurrent clients over real HTTP
//   (keep-alive) to the gateway in a child process of its own: sockets, routing, auth, validation, pricing,
//   durable commit. CPU a session and peak RSS are the gateway process's. SQLite, and PostgreSQL when
//   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) answers.
// - Re-send (`--only resend`): the same, but each measured session is already stored with the first half of
//   its turns, so every request merges grown sessions into stored ones (what `attest sync` does as
//   transcripts grow): documents decoded and merged, rows updated, usage and counters replaced.
// - List: GET /v1/sessions p50/p99 over N stored sessions (bulk-loaded through the sessions store, not
//   HTTP), default scope, filtered and sorted. The org's rate limit (1000/min) is lifted for the run: the
//   bench measures the query, not the limiter.
//
// Also exports `scenarios` for `npm run bench` (autocannon over a real socket): the idempotent re-send of a
// stored batch, the path a retrying CLI takes.
import { fork, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { parseClaudeCodeTranscript } from '../src/capture/index.js';
import type { RateLimits } from '../src/server/ratelimit.js';
import * as sessionsStore from '../src/areas/sessions/store.js';
import * as docStore from '../src/areas/sessions/document-store.js';
import { commitCount } from '../src/db/group-commit.js';
import { v7 as uuidv7 } from 'uuid';
import { checkSession } from '../src/areas/agents/validate.js';
import { prepareSessions } from '../src/areas/sessions/ingest.js';
import { rowOf, usageRows } from '../src/areas/sessions/session-rows.js';
import type { Db, Dialect } from '../src/db/connection.js';
import { createTenant, startGateway, type TestGateway } from '../test/helpers/gateway.js';
import { startCpuProfile, type CpuProfile } from './cpu-profile.js';
import { insertRowsTogether } from '../src/db/bulk-insert.js';
import { ListCounterMoves } from '../src/areas/sessions/counter-store.js';

export interface Row {
  store: 'sqlite' | 'postgres';
  scenario: string;
  sessions: number;
  /** ingest: sessions a second */
  sessionsPerSec?: number;
  /** ingest: turns a second */
  turnsPerSec?: number;
  p50Ms?: number;
  p99Ms?: number;
  /** ingest: the highest resident set size of the gateway process seen during the run (sampled every 20 ms), MB */
  peakRssMb?: number;
  /**
   * ingest: CPU time of the gateway process (all its threads) per session, µs: steadier than sessions/s on a
   * shared machine
   */
  cpuUsPerSession?: number;
  /** ingest: CPU time of the gateway's main thread (its event loop) per session, µs (Linux only) */
  mainThreadUsPerSession?: number;
  /** ingest on SQLite: requests a commit (the group commit's shared transactions; more share fewer page writes) */
  requestsPerCommit?: number;
  /** ingest on PostgreSQL: CPU time of the database server's processes per session, µs (a local server, Linux) */
  databaseUsPerSession?: number;
  /**
   * ingest of new sessions: the floor's CPU per session, µs (issue 46, goal 3: parse, validate, summarize,
   * compress and insert the same rows through the same driver in the gateway's process, no HTTP or auth)
   */
  floorUsPerSession?: number;
  /** the 1-minute load average when the run ended */
  load1?: number;
  note?: string;
}

const FIXTURES = new URL('../test/fixtures/outerlayer-session-schema/raw/', import.meta.url);
type Doc = Record<string, unknown> & { id: string; turns: unknown[] };

function fixturePool(): Doc[] {
  return fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map(
      (f) =>
        parseClaudeCodeTranscript(fs.readFileSync(new URL(f, FIXTURES), 'utf8'), {
          tier: 'redacted',
        }) as unknown as Doc,
    );
}

/**
 * `count` fixture sessions (cycling through the transcripts), each with an id made of `prefix` and its index;
 * `topLevel` leaves out the subagent transcripts (the session list hides them by default).
 */
export function fixtureSessions(count: number, prefix: string, opts: { topLevel?: boolean } = {}): Doc[] {
  const pool = fixturePool().filter((d) => !opts.topLevel || d.subagent === undefined);
  return Array.from({ length: count }, (_, i) => ({ ...pool[i % pool.length]!, id: `${prefix}-${i}` }));
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits));

async function withStore<T>(store: 'sqlite' | 'postgres', fn: (gw: TestGateway) => Promise<T>): Promise<T> {
  const saved = process.env.TEST_DATABASE_URL;
  if (store === 'postgres') process.env.TEST_DATABASE_URL = pgUrl();
  else delete process.env.TEST_DATABASE_URL;
  try {
    const gw = await startGateway();
    try {
      return await fn(gw);
    } finally {
      await gw.close();
    }
  } finally {
    if (saved === undefined) delete process.env.TEST_DATABASE_URL;
    else process.env.TEST_DATABASE_URL = saved;
  }
}

function pgUrl(): string {
  return process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
}

/**
 * How the gateway reaches PostgreSQL, for the table's notes: over TCP, or over a Unix socket (a host that is a
 * directory, `postgres://user@%2Fvar%2Frun%2Fpostgresql/db` or `?host=/var/run/postgresql`). On one box the
 * socket costs both sides less CPU than loopback TCP (docs/performance.md, Ingest), so say which.
 */
export function pgTransport(url: string): string {
  // Not `new URL`: `postgres://user@/db?host=...` (no host before the path) is valid for pg and not for WHATWG.
  const query = /[?&]host=([^&]*)/.exec(url)?.[1];
  const authority = /^postgres(?:ql)?:\/\/(?:[^@/]*@)?([^/?]*)/.exec(url)?.[1] ?? '';
  const [hostPart = '', port = '5432'] = authority.split(':');
  const host = decodeURIComponent(query ?? hostPart);
  return host.startsWith('/') ? `Unix socket ${host}` : `TCP ${host || 'localhost'}:${port}`;
}

/** Clock ticks of /proc/<pid>/stat's fields utime, stime, cutime, cstime (14-17 of stat(5)), or null. */
export function procTicks(pid: number): [number, number, number, number] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [Number(f[11]), Number(f[12]), Number(f[13]), Number(f[14])];
  } catch {
    return null;
  }
}

/**
 * The PostgreSQL server's CPU so far, µs, when it runs on this machine (Linux): its postmaster's own time and that of
 * the children it has reaped, plus each live child's (backends, WAL writer, checkpointer). A backend that exits
 * during a run moves from the second sum to the first, so the difference of two readings is what the server spent.
 * The postmaster is found as the parent of this connection's backend. Null for a server elsewhere.
 */
async function databaseCpuReader(): Promise<(() => number | null) | null> {
  const client = new pg.Client({ connectionString: pgUrl(), connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    const backend = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const stat = fs.readFileSync(`/proc/${backend}/stat`, 'utf8');
    const postmaster = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!/postgres|postmaster/.test(fs.readFileSync(`/proc/${postmaster}/comm`, 'utf8'))) return null;
    return () => {
      const own = procTicks(postmaster);
      if (!own) return null;
      let ticks = own[0] + own[1] + own[2] + own[3];
      for (const entry of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          const s = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
          const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
          if (Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]);
        } catch {
          // exited meanwhile: its time is in the postmaster's cutime/cstime now
        }
      }
      return (ticks * 1e6) / 100;
    };
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: pgUrl(), connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Ingest
//
// The gateway runs in a child process of its own (as bench/run.ts does) and the clients send pre-encoded
// bodies to it over real HTTP (keep-alive, one connection a client). In one process with app.inject the
// clients' work (light-my-request's fake sockets, answer parsing) took CPU from the gateway on the same event
// loop, and an injected request skips the socket's own costs (reading 400 KB off a real connection). CPU a
// session and peak RSS are the gateway process's own, measured in it.

/** What the gateway child tells the bench (IPC). */
interface IngestServerInfo {
  url: string;
  headers: Record<string, string>;
}

type ChildMessage =
  | { ready: IngestServerInfo }
  | { floor: { cpuMicros: number; sessions: number } }
  | { measured: { cpuMicros: number; mainThreadMicros: number | null; peakRss: number; commits: number } }
  | { profiled: true }
  | { failed: string };

/**
 * CPU time (user + system) of this process's main thread alone, µs, from /proc (Linux; null elsewhere): the
 * event loop is what bounds throughput, while the process's figure also counts libuv's pool (compression)
 * and V8's helper threads, which run on the other cores. Clock ticks, so only a run of seconds is precise.
 */
function mainThreadMicros(): number | null {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat(5) (utime, stime), counted from the state field (3).
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return null;
  }
}

/**
 * Issue 46, goal 3: the floor of an ingest, in the gateway's process and on its store, without HTTP, auth or the
 * rest of the gateway: for `batches` bodies of 25 fresh fixture sessions (as the measured run sends), JSON.parse
 * of the body, the validation of each session, the summary and compressed document of each (the rows hold them),
 * and the insert of the same rows (summary, per-model usage, document) through the same driver, one
 * transaction a body. CPU of the process, after a warm-up of 8 bodies.
 */
async function ingestFloor(
  gw: TestGateway,
  t: { orgId: string; appId: string },
  batches: number,
): Promise<{ cpuMicros: number; sessions: number }> {
  const pool = fixturePool();
  let cursor = 0;
  const body = () =>
    JSON.stringify({
      schemaVersion: 1,
      sessions: Array.from({ length: 25 }, () => ({ ...pool[cursor++ % pool.length]!, id: crypto.randomUUID() })),
    });
  const warm = Array.from({ length: 8 }, body);
  const bodies = Array.from({ length: batches }, body);
  const db = gw.app.attest.db;
  const actor = { actorId: 'floor', actorName: 'floor', credentialId: 'floor' };
  const one = async (text: string) => {
    const docs = (JSON.parse(text) as { sessions: unknown[] }).sessions.map((value) => {
      const checked = checkSession(value);
      if (!checked.ok) throw new Error(`floor: a fixture session is invalid: ${checked.reason}`);
      return checked.session;
    });
    const prepared = prepareSessions(docs);
    const now = Date.now();
    const summaries = docs.map((d) => ({ ...prepared.get(d)!.summary, chunkParts: [], chunkOf: d.chunk?.of ?? null }));
    const rows = summaries.map((s) => rowOf(t, uuidv7(), s, actor, now, now, 'transcript'));
    const usage = rows.flatMap((r, i) => usageRows(r, summaries[i]!));
    const documents = rows.map((r, i) => {
      const encoded = prepared.get(docs[i]!)!.encoded;
      return {
        session_id: r.id,
        app_id: t.appId,
        encoding: encoded.encoding,
        raw_bytes: encoded.rawBytes,
        body: encoded.body,
      };
    });
    await db.transaction().execute(async (trx) => {
      await sessionsStore.insertBulk(trx, rows, usage);
      await docStore.putDocuments(trx, documents);
    });
  };
  for (const text of warm) await one(text);
  const start = process.cpuUsage();
  for (const text of bodies) await one(text);
  const used = process.cpuUsage(start);
  return { cpuMicros: used.user + used.system, sessions: batches * 25 };
}

/** The gateway side: started by `ingest()` as `bench/sessions.ts --serve-ingest <store>`. */
async function serveIngest(store: 'sqlite' | 'postgres'): Promise<void> {
  if (store === 'postgres') process.env.TEST_DATABASE_URL = pgUrl();
  else delete process.env.TEST_DATABASE_URL;
  const gw = await startGateway();
  const t = await createTenant(gw, { plan: 'paid' });
  const url = await gw.app.listen({ host: '127.0.0.1', port: 0 });
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 20);
  sampler.unref();
  let cpuStart = process.cpuUsage();
  let mainStart = mainThreadMicros();
  let commitsStart = commitCount(gw.app.attest.db);
  let profiler: CpuProfile | null = null;
  const send = (msg: ChildMessage) => process.send?.(msg);
  process.on('message', (raw: unknown) => {
    const msg = raw as { start?: boolean; stop?: boolean; profile?: string; end?: string; floor?: number };
    void (async () => {
      if (msg.floor !== undefined) {
        send({ floor: await ingestFloor(gw, t, msg.floor) });
      } else if (msg.start) {
        // The measured part starts here: peak and CPU from now on, and the profiler when asked for.
        peakRss = process.memoryUsage.rss();
        // BENCH_CPU_PROFILE=<dir>: <dir>/ingest-<store>-<clients>c.cpuprofile, the measured part only.
        profiler = await startCpuProfile(process.env.BENCH_CPU_PROFILE);
        cpuStart = process.cpuUsage();
        mainStart = mainThreadMicros();
        commitsStart = commitCount(gw.app.attest.db);
        send({ profiled: true });
      } else if (msg.end !== undefined) {
        const cpu = process.cpuUsage(cpuStart);
        const main = mainThreadMicros();
        peakRss = Math.max(peakRss, process.memoryUsage.rss());
        await profiler?.stop(msg.end);
        profiler = null;
        send({
          measured: {
            cpuMicros: cpu.user + cpu.system,
            mainThreadMicros: main !== null && mainStart !== null ? main - mainStart : null,
            peakRss,
            commits: commitCount(gw.app.attest.db) - commitsStart,
          },
        });
      } else if (msg.stop) {
        clearInterval(sampler);
        await gw.close();
        process.exit(0);
      }
    })().catch((err: unknown) => send({ failed: String(err) }));
  });
  send({
    ready: {
      url,
      headers: {
        authorization: `Bearer ${t.factoryKey}`,
        'x-outerlayer-app-id': t.appId,
        'content-type': 'application/json',
      },
    },
  });
}

function forkGateway(
  store: 'sqlite' | 'postgres',
): Promise<{ child: ChildProcess; info: IngestServerInfo; next(): Promise<ChildMessage> }> {
  const child = fork(fileURLToPath(import.meta.url), ['--serve-ingest', store], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: process.execArgv,
  });
  const inbox: ChildMessage[] = [];
  const waiting: ((m: ChildMessage) => void)[] = [];
  child.on('message', (m: unknown) => {
    const w = waiting.shift();
    if (w) w(m as ChildMessage);
    else inbox.push(m as ChildMessage);
  });
  const next = () =>
    new Promise<ChildMessage>((resolve, reject) => {
      const m = inbox.shift();
      if (m) return resolve(m);
      const onExit = (code: number | null) => reject(new Error(`the bench gateway exited (code ${code})`));
      child.once('exit', onExit);
      waiting.push((msg) => {
        child.off('exit', onExit);
        if ('failed' in msg) reject(new Error(msg.failed));
        else resolve(msg);
      });
    });
  return next().then((m) => {
    if (!('ready' in m)) throw new Error(`unexpected message from the bench gateway: ${JSON.stringify(m)}`);
    return { child, info: m.ready, next };
  });
}

/** POST a body over a kept-alive connection; resolves with the status and answer text. */
function post(
  agent: http.Agent,
  url: URL,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: '/v1/agents/sync',
        method: 'POST',
        headers: { ...headers, 'content-length': String(body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * One ingest run. `grown`: every measured session is already stored with the first half of its turns (sent
 * before the clock starts), and the measured requests send it whole, as `attest sync` re-sends a transcript
 * that grew: each one is merged into the stored one, its counters and usage replaced.
 */
async function ingest(
  store: 'sqlite' | 'postgres',
  pool: Doc[],
  batches: number,
  clients: number,
  grown = false,
): Promise<Row> {
  const { child, info, next } = await forkGateway(store);
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  try {
    const url = new URL(info.url);
    let cursor = 0;
    const nextBatch = (): Doc[] =>
      Array.from({ length: 25 }, () => ({ ...pool[cursor++ % pool.length]!, id: crypto.randomUUID() }));
    const encode = (sessions: Doc[]) => Buffer.from(JSON.stringify({ schemaVersion: 1, sessions }));
    const send = async (payload: Buffer) => {
      const res = await post(agent, url, info.headers, payload);
      if (res.status !== 200) throw new Error(`sync answered ${res.status}: ${res.text.slice(0, 300)}`);
      const body = JSON.parse(res.text) as { data: { accepted: string[]; rejected: unknown[] } };
      if (body.data.rejected.length)
        throw new Error(`sync rejected sessions: ${JSON.stringify(body.data.rejected).slice(0, 300)}`);
    };
    // Request bodies are encoded before the clock starts: the bench measures the gateway, not the client.
    const prepared = Array.from({ length: batches }, nextBatch);
    const turns = prepared.reduce((n, b) => n + b.reduce((m, s) => m + s.turns.length, 0), 0);
    const payloads = prepared.map(encode);
    const firstHalves = grown
      ? prepared.map((b) => encode(b.map((d) => ({ ...d, turns: d.turns.slice(0, Math.ceil(d.turns.length / 2)) }))))
      : [];
    prepared.length = 0;
    // Warm-up (compiled validators, price rates, prepared statements, the JIT), from every client at once.
    const warm = Array.from({ length: Math.max(8, clients * 4) }, () => encode(nextBatch()));
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (warm.length) await send(warm.pop()!);
      }),
    );
    // The stored halves of the sessions the measured part grows.
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (firstHalves.length) await send(firstHalves.pop()!);
      }),
    );
    const databaseCpu = store === 'postgres' ? await databaseCpuReader() : null;
    child.send({ start: true });
    await next();
    const databaseStart = databaseCpu?.() ?? null;
    const latencies: number[] = [];
    let i = 0;
    const client = async () => {
      while (i < payloads.length) {
        const payload = payloads[i++]!;
        const begun = performance.now();
        await send(payload);
        latencies.push(performance.now() - begun);
      }
    };
    const start = performance.now();
    await Promise.all(Array.from({ length: clients }, client));
    const seconds = (performance.now() - start) / 1000;
    const databaseEnd = databaseCpu?.() ?? null;
    child.send({ end: `ingest-${store}-${clients}c` });
    const m = await next();
    if (!('measured' in m)) throw new Error(`unexpected message from the bench gateway: ${JSON.stringify(m)}`);
    let floorUs: number | null = null;
    if (!grown) {
      child.send({ floor: batches });
      const f = await next();
      if (!('floor' in f)) throw new Error(`unexpected message from the bench gateway: ${JSON.stringify(f)}`);
      floorUs = f.floor.cpuMicros / f.floor.sessions;
    }
    latencies.sort((a, b) => a - b);
    const sessions = batches * 25;
    return {
      store,
      scenario:
        `POST /v1/agents/sync, 25 ${grown ? 'grown sessions (stored with half their turns)' : 'sessions'} a ` +
        `request, ${clients} client${clients > 1 ? 's' : ''}`,
      sessions,
      sessionsPerSec: round(sessions / seconds, 0),
      turnsPerSec: round(turns / seconds, 0),
      p50Ms: round(percentile(latencies, 50), 1),
      p99Ms: round(percentile(latencies, 99), 1),
      peakRssMb: round(m.measured.peakRss / 1048576, 0),
      cpuUsPerSession: round(m.measured.cpuMicros / sessions, 0),
      ...(floorUs !== null ? { floorUsPerSession: round(floorUs, 0) } : {}),
      ...(m.measured.mainThreadMicros !== null
        ? { mainThreadUsPerSession: round(m.measured.mainThreadMicros / sessions, 0) }
        : {}),
      ...(store === 'sqlite' && m.measured.commits > 0
        ? { requestsPerCommit: round(batches / m.measured.commits, 2) }
        : {}),
      ...(databaseStart !== null && databaseEnd !== null
        ? { databaseUsPerSession: round((databaseEnd - databaseStart) / sessions, 0) }
        : {}),
      load1: round(os.loadavg()[0]!, 1),
      note:
        `${batches} requests over HTTP, ${round(turns / sessions, 1)} turns a session, ${round(seconds, 1)} s; ` +
        `gateway in its own process (CPU, RSS are its own)` +
        `${store === 'postgres' ? `; PostgreSQL over ${pgTransport(pgUrl())}` : ''}`,
    };
  } finally {
    agent.destroy();
    child.send({ stop: true });
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
  }
}

// ---------------------------------------------------------------------------------------------------------
// List

const REPOS = ['acme/api', 'acme/web', 'acme/infra', 'acme/docs', ''];
const REPO_WEIGHTS = [0.4, 0.3, 0.15, 0.1, 0.05];
const BRANCHES = Array.from({ length: 40 }, (_, i) => (i === 0 ? 'main' : `feature-${i}`));
const MODELS = ['claude-sonnet-4-6', 'claude-opus-4-8', 'claude-haiku-4-5-20251001', 'gpt-5-codex'];
const AGENTS = ['claude-code', 'codex', 'cursor'];
const ORIGINS = ['interactive', 'agent', 'worker'] as const;

/** A deterministic pseudo-random source, so 1k and 100k runs have the same shape. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

function pick<T>(r: () => number, items: readonly T[], weights?: number[]): T {
  if (!weights) return items[Math.floor(r() * items.length)]!;
  let x = r();
  for (let i = 0; i < items.length; i += 1) {
    x -= weights[i]!;
    if (x <= 0) return items[i]!;
  }
  return items[items.length - 1]!;
}

/**
 * `n` sessions of the factory `t` over the 90 days before `now`, straight into the tables with the counters
 * ingest keeps (one transaction). `gw` is the gateway's `app.attest`.
 */
export async function bulkLoad(
  gw: { db: Db; dialect: Dialect },
  t: { orgId: string; appId: string },
  n: number,
  actors: string[],
  now = Date.parse('2026-11-01T00:00:00Z'),
): Promise<void> {
  const db = gw.db;
  const r = rng(7);
  const sessions: sessionsStore.SessionRow[] = [];
  const usage: sessionsStore.ModelUsageRow[] = [];
  const counters = new ListCounterMoves();
  for (let i = 0; i < n; i += 1) {
    const id = crypto.randomUUID();
    const repo = pick(r, REPOS, REPO_WEIGHTS);
    const branch = pick(r, BRANCHES);
    const model = pick(r, MODELS);
    const agent = model === 'gpt-5-codex' ? 'codex' : pick(r, AGENTS.slice(0, 1).concat(['cursor']));
    const origin = pick(r, ORIGINS);
    const actor = pick(r, actors);
    const isSub = r() < 0.1 ? 1 : 0;
    const startedAt = now - Math.floor(r() * 90 * 86_400_000);
    const turns = 2 + Math.floor(r() * 120);
    const toolCalls = Math.floor(turns * 1.2);
    const toolErrors = r() < 0.3 ? Math.floor(r() * 5) : 0;
    const rejected = r() < 0.1 ? 1 : 0;
    const apiErrors = r() < 0.05 ? 1 : 0;
    const cost = Math.floor(r() * 5_000_000);
    const input = turns * 200;
    const output = turns * 500;
    const cacheRead = turns * 20_000;
    const cacheWrite = turns * 1500;
    sessions.push({
      id,
      org_id: t.orgId,
      app_id: t.appId,
      session_key: id,
      session_id: id,
      parent_session_id: isSub ? crypto.randomUUID() : null,
      subagent_id: isSub ? 'a1' : null,
      is_subagent: isSub,
      actor_id: actor,
      actor_name: `Actor ${actor.slice(0, 4)}`,
      credential_id: 'bench',
      agent_type: agent,
      agent_version: '2.1.0',
      origin,
      worker_kind: origin === 'worker' ? 'ci' : null,
      repo,
      branch,
      project: repo.split('/')[1] ?? '',
      commit_sha: null,
      title: `Session ${i} on ${branch}`,
      capture_tier: 'redacted',
      capture_source: 'transcript',
      started_at: startedAt,
      ended_at: startedAt + turns * 30_000,
      duration_ms: turns * 30_000,
      turn_count: turns,
      user_turn_count: Math.ceil(turns / 4),
      steering_count: Math.floor(turns / 10),
      event_count: 2,
      tool_call_count: toolCalls,
      tool_error_count: toolErrors,
      rejected_tool_call_count: rejected,
      api_error_count: apiErrors,
      error_count: toolErrors + apiErrors,
      tool_error_rate_ppm: toolCalls ? Math.round((toolErrors * 1e6) / toolCalls) : 0,
      input_tokens: input,
      output_tokens: output,
      cache_read_tokens: cacheRead,
      cache_write_tokens: cacheWrite,
      cache_write_1h_tokens: 0,
      cost_micros: cost,
      cost_status: 'complete',
      unpriced_models: '[]',
      models: JSON.stringify([model]),
      pr_refs: '[]',
      chunk_of: null,
      chunk_parts: '[]',
      created_at: now,
      updated_at: now,
    });
    usage.push({
      session_id: id,
      org_id: t.orgId,
      app_id: t.appId,
      model,
      started_at: startedAt,
      repo,
      actor_id: actor,
      agent_type: agent,
      is_subagent: isSub,
      turn_count: Math.floor(turns / 2),
      unpriced_turn_count: 0,
      input_tokens: input,
      output_tokens: output,
      cache_read_tokens: cacheRead,
      cache_write_tokens: cacheWrite,
      cache_write_1h_tokens: 0,
      cost_micros: cost,
    });
    // The same counters ingest keeps (sessions/facets.ts), so the list reads what it would in production.
    counters.add(sessions[sessions.length - 1]!, 1);
  }
  await db.transaction().execute(async (trx) => {
    await sessionsStore.insertBulk(trx, sessions, usage);
    await insertRowsTogether(trx, counters.inserts(t.appId));
  });
  if (gw.dialect === 'postgres') {
    const { sql } = await import('kysely');
    await sql`analyze`.execute(db);
  }
}

const LIST_QUERIES: [string, string][] = [
  ['default (dominant repo, newest first)', ''],
  ['all repos, sort=cost desc', 'repoScope=all&sort=cost&dir=desc'],
  ['branch=feature-7, newest first', 'branch=feature-7'],
  ['signal=tool-errors, sort=cost', 'signal=tool-errors&sort=cost'],
  ['model=claude-opus-4-8, sort=turns asc', 'model=claude-opus-4-8&sort=turns&dir=asc'],
  ['q=on main, from/to 30 days', 'q=on%20main&from=2026-10-01T00:00:00Z&to=2026-10-31T00:00:00Z'],
  ['all repos, offset=5000', 'repoScope=all&offset=5000'],
  // A rare needle (one title of the 100k): the trigram index's few candidates, not a walk of all repos.
  ['q=session 4242 (1 title), all repos', 'repoScope=all&q=session%204242%20'],
];

async function listLatency(store: 'sqlite' | 'postgres', size: number, requests: number): Promise<Row[]> {
  return withStore(store, async (gw) => {
    // Lift the per-org rate limit for the measurement (the limiter has its own benchmark in `npm run bench`).
    const limits = gw.app.attest.rateLimits as { consume: RateLimits['consume'] };
    limits.consume = async () => ({ allowed: true, limit: 1000, remaining: 999, resetAt: null, retryAfterSeconds: 0 });
    const t = await createTenant(gw, { plan: 'paid' });
    const actors = [t.ownerId, ...Array.from({ length: 9 }, () => crypto.randomUUID())];
    const loadStart = performance.now();
    await bulkLoad(gw.app.attest, t, size, actors);
    const loadSeconds = (performance.now() - loadStart) / 1000;
    const rows: Row[] = [];
    for (const [name, query] of LIST_QUERIES) {
      const url = `/v1/sessions${query ? `?${query}` : ''}`;
      const headers = { authorization: `Bearer ${t.loginToken}`, 'x-outerlayer-app-id': t.appId };
      for (let i = 0; i < 20; i += 1) await gw.app.inject({ method: 'GET', url, headers }); // warm-up
      const times: number[] = [];
      for (let i = 0; i < requests; i += 1) {
        const start = performance.now();
        const res = await gw.app.inject({ method: 'GET', url, headers });
        times.push(performance.now() - start);
        if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
      }
      times.sort((x, y) => x - y);
      rows.push({
        store,
        scenario: `GET /v1/sessions ${name}`,
        sessions: size,
        p50Ms: round(percentile(times, 50)),
        p99Ms: round(percentile(times, 99)),
        note: `${requests} requests; load ${round(loadSeconds, 1)} s`,
      });
    }
    return rows;
  });
}

export interface SessionsBenchOptions {
  sizes?: number[];
  batches?: number;
  requests?: number;
  postgres?: boolean;
  /** false: PostgreSQL rows only (`--no-sqlite`). */
  sqlite?: boolean;
  /** 'resend': the ingest runs with grown sessions (stored with half their turns, then sent whole). */
  only?: 'ingest' | 'list' | 'resend';
  /** Concurrent ingest clients, one run each (default 1 and 4). */
  clients?: number[];
  log?: (line: string) => void;
}

export async function runSessionsBench(opts: SessionsBenchOptions = {}): Promise<Row[]> {
  const log = opts.log ?? ((line: string) => console.error(line));
  const sizes = opts.sizes ?? [1000, 100_000];
  const batches = opts.batches ?? 200;
  const requests = opts.requests ?? 300;
  const stores: ('sqlite' | 'postgres')[] = opts.sqlite === false ? [] : ['sqlite'];
  if (opts.postgres !== false && (await postgresAnswers())) {
    stores.push('postgres');
    log(`PostgreSQL over ${pgTransport(pgUrl())} (BENCH_DATABASE_URL)`);
  } else log('PostgreSQL does not answer at BENCH_DATABASE_URL; PostgreSQL rows skipped');
  const pool = fixturePool();
  const rows: Row[] = [];
  for (const store of opts.only === 'list' ? [] : stores) {
    for (const clients of opts.clients ?? [1, 4]) {
      log(`${opts.only === 'resend' ? 'grown re-send' : 'ingest'} on ${store}, ${clients} client(s)...`);
      rows.push(await ingest(store, pool, batches, clients, opts.only === 'resend'));
      log(JSON.stringify(rows[rows.length - 1]));
    }
  }
  for (const store of opts.only === 'ingest' || opts.only === 'resend' ? [] : stores) {
    for (const size of sizes) {
      log(`list on ${store} with ${size} sessions...`);
      const listed = await listLatency(store, size, requests);
      for (const row of listed) log(JSON.stringify(row));
      rows.push(...listed);
    }
  }
  return rows;
}

/** Issue 17, goal 2: sessions a second from 4 clients, per store; the p99 of one request at most 100 ms. */
const INGEST_TARGET = { sqlite: 1500, postgres: 2000 } as const;
const INGEST_P99_TARGET_MS = 100;
/** Issue 46, goal 3: the gateway's CPU per ingested session at most this many times the floor's. */
const INGEST_FLOOR_RATIO_TARGET = 3;
/** Issue 17, goal 3: the title search's p50 at 100k sessions. */
const TITLE_SEARCH_TARGET_MS = 5;
const TITLE_SEARCH_SCENARIO = `GET /v1/sessions ${LIST_QUERIES.find(([name]) => name.startsWith('q=on main'))![0]}`;

/** The verdict lines of goals 2 and 3 for the rows this run measured (none for a goal it did not measure). */
export function verdicts(rows: Row[]): string[] {
  const lines: string[] = [];
  for (const r of rows) {
    // Goal 2 is about new sessions; the grown re-send (--only resend) has no target of its own.
    if (
      r.scenario.endsWith('4 clients') &&
      !r.scenario.includes('grown') &&
      r.sessionsPerSec !== undefined &&
      r.p99Ms !== undefined
    ) {
      const target = INGEST_TARGET[r.store];
      const met = r.sessionsPerSec >= target && r.p99Ms <= INGEST_P99_TARGET_MS;
      lines.push(
        `verdict (${r.store}): ingest from 4 clients ${r.sessionsPerSec} sessions/s (target >= ${target}), p99 ` +
          `${r.p99Ms} ms (target <= ${INGEST_P99_TARGET_MS}): ${met ? 'met' : 'NOT met'}`,
      );
    }
    if (r.floorUsPerSession !== undefined && r.cpuUsPerSession !== undefined) {
      const ratio = r.cpuUsPerSession / r.floorUsPerSession;
      lines.push(
        `verdict (${r.store}, ${r.scenario.replace(/^.*request, /, '')}): gateway CPU per ingested session ` +
          `${r.cpuUsPerSession} µs / floor ${r.floorUsPerSession} µs = ${ratio.toFixed(2)}x (target <= ` +
          `${INGEST_FLOOR_RATIO_TARGET}x): ${ratio <= INGEST_FLOOR_RATIO_TARGET ? 'met' : 'NOT met'}`,
      );
    }
    if (r.scenario === TITLE_SEARCH_SCENARIO && r.sessions === 100_000 && r.p50Ms !== undefined) {
      lines.push(
        `verdict (${r.store}): title search q=on main at 100k sessions p50 ${r.p50Ms} ms (target <= ` +
          `${TITLE_SEARCH_TARGET_MS}): ${r.p50Ms <= TITLE_SEARCH_TARGET_MS ? 'met' : 'NOT met'}`,
      );
    }
  }
  return lines;
}

/**
 * What the kernel charges on this machine right now, best of three rounds: a system call (`fstat` of an open
 * file through Node's synchronous fs, 20,000 calls) and a page fault on fresh memory (a 32 MiB buffer, one byte
 * written a page, the time divided by the faults the process counted; a round whose buffer the allocator
 * already held faults little and is not counted). Both move between machines of this kind far more than plain
 * computation does (with page-table isolation on, a system call can cost ten times as much and a fault more than
 * ten microseconds, where it usually costs well under one), and on such a machine a SQLite ingest spends about
 * a quarter of its CPU in the kernel.
 */
function kernelCosts(): { syscallUs: number; pageFaultUs: number } {
  const fd = fs.openSync(fileURLToPath(import.meta.url), 'r');
  let syscallUs = Number.POSITIVE_INFINITY;
  let pageFaultUs = Number.POSITIVE_INFINITY;
  try {
    for (let round = 0; round < 3; round += 1) {
      const calls = 20_000;
      let start = performance.now();
      for (let i = 0; i < calls; i += 1) fs.fstatSync(fd);
      syscallUs = Math.min(syscallUs, ((performance.now() - start) * 1000) / calls);
      const pages = (32 * 1024 * 1024) / 4096;
      const fresh = Buffer.allocUnsafeSlow(pages * 4096);
      const faultsBefore = process.resourceUsage().minorPageFault;
      start = performance.now();
      for (let page = 0; page < pages; page += 1) fresh[page * 4096] = 1;
      const elapsedUs = (performance.now() - start) * 1000;
      // After other work the allocator may hand out memory it already holds (no fault): such a round says nothing.
      const faults = process.resourceUsage().minorPageFault - faultsBefore;
      if (faults >= pages / 2) pageFaultUs = Math.min(pageFaultUs, elapsedUs / faults);
    }
  } finally {
    fs.closeSync(fd);
  }
  return { syscallUs, pageFaultUs };
}

/**
 * How fast this machine runs Node right now: the median time of an in-process request to a bare Fastify
 * route (its own app, no gateway), over 2,000 requests after a warm-up. The same code measured 2–3× apart
 * on this kind of shared machine within a day, so absolute goals are read next to it (docs/performance.md).
 */
export async function machineReference(): Promise<string> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  app.get('/bare', async () => ({ data: { status: 'ok' } }));
  await app.ready();
  try {
    for (let i = 0; i < 2000; i += 1) await app.inject({ method: 'GET', url: '/bare' });
    const times: number[] = [];
    for (let i = 0; i < 2000; i += 1) {
      const start = performance.now();
      await app.inject({ method: 'GET', url: '/bare' });
      times.push(performance.now() - start);
    }
    times.sort((x, y) => x - y);
    const kernel = kernelCosts();
    const fault = Number.isFinite(kernel.pageFaultUs)
      ? `${round(kernel.pageFaultUs, 2)} µs`
      : 'not measured (no fresh memory)';
    return (
      `machine reference: an in-process GET of a bare Fastify route, p50 ${round(percentile(times, 50) * 1000, 1)} ` +
      `µs; ` +
      `a system call (fs.fstatSync) ${round(kernel.syscallUs, 2)} µs, a page fault on fresh memory ` +
      `${fault}` +
      ` (load average ${round(os.loadavg()[0]!, 1)})`
    );
  } finally {
    await app.close();
  }
}

export function printRows(rows: Row[]): void {
  console.table(
    rows.map((r) => ({
      store: r.store,
      scenario: r.scenario,
      sessions: r.sessions,
      'sessions/s': r.sessionsPerSec ?? '',
      'turns/s': r.turnsPerSec ?? '',
      'p50 ms': r.p50Ms ?? '',
      'p99 ms': r.p99Ms ?? '',
      'peak RSS MB': r.peakRssMb ?? '',
      'CPU µs/session': r.cpuUsPerSession ?? '',
      'floor µs/session': r.floorUsPerSession ?? '',
      'main thread µs/session': r.mainThreadUsPerSession ?? '',
      'requests/commit': r.requestsPerCommit ?? '',
      'database CPU µs/session': r.databaseUsPerSession ?? '',
      load: r.load1 ?? '',
      note: r.note ?? '',
    })),
  );
  for (const line of verdicts(rows)) console.log(line);
}

// ---------------------------------------------------------------------------------------------------------
// `npm run bench` set: the idempotent re-send of a stored batch of 25 (autocannon over a socket).

interface BenchTargetLike {
  baseUrl: string;
  factoryHeaders: Record<string, string>;
}

let resendBody = '';

export const scenarios = [
  {
    name: 'POST /v1/agents/sync re-send of 25 stored sessions (idempotent)',
    async setup(target: BenchTargetLike): Promise<void> {
      const sessions = fixtureSessions(25, 'bench-resend');
      resendBody = JSON.stringify({ schemaVersion: 1, sessions });
      const res = await fetch(`${target.baseUrl}/v1/agents/sync`, {
        method: 'POST',
        headers: { ...target.factoryHeaders, 'content-type': 'application/json' },
        body: resendBody,
      });
      if (res.status !== 200) throw new Error(`sync answered ${res.status}`);
    },
    request(target: BenchTargetLike) {
      return {
        method: 'POST' as const,
        path: '/v1/agents/sync',
        headers: { ...target.factoryHeaders, 'content-type': 'application/json' },
        body: resendBody,
      };
    },
  },
];

if (process.argv[2] === '--serve-ingest') {
  await serveIngest(process.argv[3] === 'postgres' ? 'postgres' : 'sqlite');
} else if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) {
  const args = process.argv.slice(2);
  const value = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const sizes = value('--sizes')?.split(',').map(Number);
  const batches = value('--batches') ? Number(value('--batches')) : undefined;
  const requests = value('--requests') ? Number(value('--requests')) : undefined;
  const only = value('--only');
  const clients = value('--clients')?.split(',').map(Number);
  runSessionsBench({
    ...(sizes ? { sizes } : {}),
    ...(batches ? { batches } : {}),
    ...(requests ? { requests } : {}),
    ...(clients ? { clients } : {}),
    ...(only === 'ingest' || only === 'list' || only === 'resend' ? { only } : {}),
    postgres: !args.includes('--no-postgres'),
    sqlite: !args.includes('--no-sqlite'),
  })
    .then(async (rows) => {
      printRows(rows);
      console.log(await machineReference());
      process.exit(0);
    })
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
