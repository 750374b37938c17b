// `npm run bench [-- <scenario set>...] [--duration S] [--connections N] [--warmup S] [--log-level L] [--profile DIR]
// [--rate R] [--same-core] [--sessions N] [--stores sqlite,postgres]`
//
// Starts, in a child process, the gateway (buildApp on a temp SQLite data dir, or its own schema of the
// PostgreSQL at BENCH_DATABASE_URL with `--stores postgres`; 127.0.0.1, random port) with N sessions (default
// 100,000) seeded straight into the tables of its bootstrap factory, and a bare Fastify app with one JSON
// route; loads each with autocannon from this process, one at a time; prints req/s and p99 per scenario
// with its ratio to the bare route. Servers and load generator live in separate processes so the client's
// own cost does not flatten the differences between servers.
//
// Scenario sets: `core` (GET /health, authenticated GET /v1/api-keys) always runs, with the bare route as
// the baseline. Every other bench/<name>.ts that exports `scenarios: BenchScenario[]` is a set: with no
// argument all present sets run; `npm run bench -- sessions` runs core + bench/sessions.ts only. A set named
// on the command line that also exports `run<Name>Bench()` (e.g. runMetricsBench) gets that stand-alone
// benchmark run after the table, printed with `format<Name>Bench(result)` or `printRows(result)` if exported.
//
// The contract for a set (bench/<name>.ts), no import from this file needed:
//   export const scenarios = [{
//     name: 'GET /v1/sessions',                       // row label
//     async setup(target) { ... },                     // optional: create data through the API first
//     request(target) { return { method: 'GET', path: '/v1/sessions', headers: target.factoryHeaders }; },
//   }];
// target: { baseUrl, appId, factoryKey, loginToken, adminToken, factoryHeaders }. `request` may also
// return an array (autocannon cycles through it). Every response must be 2xx, or the row is marked FAILED.
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import Fastify from 'fastify';

export interface BenchTarget {
  baseUrl: string;
  appId: string;
  /** A full-access factory key (sk_outerlayer_) of the bootstrap factory. */
  factoryKey: string;
  /** The bootstrap login token (olu_) of admin@localhost, owner of the default org. */
  loginToken: string;
  /** The operator token (ola_). */
  adminToken: string;
  /** Authorization + X-Outerlayer-App-Id for the factory key. */
  factoryHeaders: Record<string, string>;
}

export interface BenchRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface BenchScenario {
  name: string;
  setup?(target: BenchTarget): Promise<void>;
  request(target: BenchTarget): BenchRequest | BenchRequest[];
}

interface ServerInfo {
  gatewayUrl: string;
  bareUrl: string;
  appId: string;
  loginToken: string;
  adminToken: string;
}

interface Options {
  sets: string[];
  duration: number;
  connections: number;
  warmup: number;
  logLevel: string;
  /** Directory for a V8 CPU profile of the server process (--profile DIR), to see what a request costs. */
  profileDir: string | null;
  /**
   * Requests a second for every scenario (autocannon's overallRate), or null for as fast as it goes. At one
   * rate for all, the bare route and the gateway are compared under the same load: at full speed the bare
   * route keeps the client busy and its responses wake it less often, which moves the CPU ratio.
   */
  rate: number | null;
  /** Run only the scenarios whose name contains this text (the bare route always runs). */
  only: string | null;
  /**
   * Pin this process (the load generator) and the servers' process, every thread, to CPU 0 (Linux, taskset).
   * On loopback the kernel delivers a response to the client inside the server's write, so when the client
   * sleeps on the other CPU the server's CPU time includes waking it there (an inter-processor interrupt,
   * which a virtual machine pays through its hypervisor). On one CPU that wake-up is a local one, and the
   * server's CPU figure is closer to its own work (docs/performance.md, How to measure).
   */
  sameCore: boolean;
  /** Sessions seeded into the bootstrap factory before the run (issue 46, goal 2: the list at 100k). */
  sessions: number;
  /** One run (servers, table, verdicts) per store, in this order. */
  stores: Store[];
}

type Store = 'sqlite' | 'postgres';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** Seeded sessions start in the 90 days before this (before the fixture sessions of the core set). */
const SEED_BEFORE = Date.parse('2026-05-01T00:00:00Z');

function benchDatabaseUrl(): string {
  return process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
}
const BARE_PATH = '/bare';
const AUTHED_READ = 'GET /v1/api-keys (factory key)';
/** Issue 17: the server CPU of an authenticated read is at most this many times the bare route's. */
const CPU_RATIO_TARGET = 4;
const SESSION_LIST = 'GET /v1/sessions (default filters, 25 rows)';
/** Issue 46, goal 2: the server CPU of the session list is at most this many times the api-keys read's. */
const LIST_RATIO_TARGET = 5;

function parseArgs(argv: string[]): Options {
  const opts: Options = {
    sets: [],
    duration: 5,
    connections: 10,
    warmup: 1,
    logLevel: process.env.LOG_LEVEL ?? 'info',
    profileDir: null,
    only: null,
    rate: null,
    sameCore: false,
    sessions: 100_000,
    stores: ['sqlite'],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--duration') opts.duration = Number(value());
    else if (arg === '--connections') opts.connections = Number(value());
    else if (arg === '--warmup') opts.warmup = Number(value());
    else if (arg === '--log-level') opts.logLevel = value();
    else if (arg === '--profile') opts.profileDir = path.resolve(value());
    else if (arg === '--rate') opts.rate = Number(value());
    else if (arg === '--only') opts.only = value();
    else if (arg === '--same-core') opts.sameCore = true;
    else if (arg === '--sessions') opts.sessions = Number(value());
    else if (arg === '--stores') opts.stores = value().split(',') as Store[];
    else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}`);
    else opts.sets.push(arg);
  }
  if (!(opts.duration > 0) || !(opts.connections > 0) || !(opts.warmup >= 0))
    throw new Error('duration and connections must be positive');
  if (opts.rate !== null && !(opts.rate > 0)) throw new Error('--rate must be a positive number of requests a second');
  if (!(opts.sessions >= 0)) throw new Error('--sessions must be a number of sessions');
  if (!opts.stores.length || opts.stores.some((st) => st !== 'sqlite' && st !== 'postgres'))
    throw new Error('--stores takes sqlite, postgres or both (comma-separated)');
  return opts;
}

// ---------- the server side (child process) ----------

async function serve(logLevel: string, store: Store, sessions: number): Promise<void> {
  const { buildApp } = await import('../src/app.js');
  const { loadConfig } = await import('../src/server/config.js');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'attest-bench-'));
  const pgSchema = store === 'postgres' ? `bench_run_${crypto.randomBytes(4).toString('hex')}` : null;
  const config = loadConfig({
    ATTEST_DATA_DIR: dataDir,
    ATTEST_KEY_PEPPER: crypto.randomBytes(16).toString('hex'),
    LOG_LEVEL: logLevel,
    HOST: '127.0.0.1',
    PORT: '0',
    ...(pgSchema ? { DATABASE_URL: benchDatabaseUrl(), ATTEST_DATABASE_SCHEMA: pgSchema } : {}),
    // ATTEST_LIST_ANSWERS_MB=0 measures the session list read on every request (no answer kept; SQLite).
    ...(process.env.ATTEST_LIST_ANSWERS_MB ? { ATTEST_LIST_ANSWERS_MB: process.env.ATTEST_LIST_ANSWERS_MB } : {}),
  });
  const pgAdmin = async (q: string) => {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: benchDatabaseUrl() });
    await client.connect();
    await client.query(q);
    await client.end();
  };
  if (pgSchema) await pgAdmin(`create schema ${pgSchema}`);
  // The gateway logs as it would in production (JSON lines to stdout); the parent discards them.
  const gateway = await buildApp({ config });
  const gatewayUrl = await gateway.listen({ host: '127.0.0.1', port: 0 });

  const bare = Fastify({ logger: false });
  bare.get(BARE_PATH, async () => ({ data: { status: 'ok' } }));
  const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });

  // The per-org limits (1000 and 300 requests a minute) would answer 429 within a second of load. The limiter
  // still runs on every request (its cost is part of what a request costs); only its verdict is ignored.
  const limits = gateway.attest.rateLimits;
  const consume = limits.consume.bind(limits);
  limits.consume = async (...args) => ({ ...(await consume(...args)), allowed: true });

  const boot = gateway.attest.bootstrap;
  if (!boot.loginToken || !boot.adminToken) throw new Error('bootstrap did not create tokens on a fresh data dir');
  if (sessions > 0) {
    // Straight into the tables with the counters ingest keeps (bench/sessions.ts), started before the core
    // set's 25 fixture sessions (June 2026), so `?repoScope=all` still lists those first.
    const { bulkLoad } = await import('./sessions.js');
    const actors = Array.from({ length: 10 }, (_, i) => `bench-actor-${i}`);
    await bulkLoad(gateway.attest, { orgId: boot.orgId, appId: boot.appId }, sessions, actors, SEED_BEFORE);
  }
  const info: ServerInfo = {
    gatewayUrl,
    bareUrl,
    appId: boot.appId,
    loginToken: boot.loginToken,
    adminToken: boot.adminToken,
  };
  process.send?.({ ready: info });
  process.on('message', (msg: unknown) => {
    if ((msg as { cpu?: boolean }).cpu) {
      const used = process.cpuUsage();
      process.send?.({ cpuMicros: used.user + used.system });
    }
    if ((msg as { stop?: boolean }).stop) {
      void Promise.all([gateway.close(), bare.close()])
        .then(() => (pgSchema ? pgAdmin(`drop schema if exists ${pgSchema} cascade`) : undefined))
        .finally(() => {
          fs.rmSync(dataDir, { recursive: true, force: true });
          process.exit(0);
        });
    }
  });
}

function startServers(opts: Options, store: Store): Promise<{ child: ChildProcess; info: ServerInfo }> {
  const profileDir = opts.profileDir;
  const execArgv = [...process.execArgv, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];
  const child = fork(fileURLToPath(import.meta.url), ['--serve', opts.logLevel, store, String(opts.sessions)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv,
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`bench servers exited early (code ${code})`)));
    child.on('message', (msg: unknown) => {
      const ready = (msg as { ready?: ServerInfo }).ready;
      if (ready) resolve({ child, info: ready });
    });
  });
}

// ---------- the load side (this process) ----------

async function createFactoryKey(info: ServerInfo): Promise<string> {
  const res = await fetch(`${info.gatewayUrl}/v1/api-keys`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${info.loginToken}`,
      'x-outerlayer-app-id': info.appId,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ name: `bench-${Date.now()}`, preset: 'full-access' }),
  });
  const body = (await res.json()) as { data?: { plaintext_key?: string } };
  if (res.status !== 201 || !body.data?.plaintext_key)
    throw new Error(`POST /v1/api-keys answered ${res.status}: ${JSON.stringify(body)}`);
  return body.data.plaintext_key;
}

/** 25 fixture sessions stored once through POST /v1/agents/sync, for the two session reads of the core set. */
let storedTraceIds: string[] | null = null;

async function storeSessions(target: BenchTarget): Promise<string[]> {
  if (storedTraceIds) return storedTraceIds;
  const { fixtureSessions } = await import('./sessions.js');
  const sessions = fixtureSessions(25, 'bench-core', { topLevel: true });
  const res = await fetch(`${target.baseUrl}/v1/agents/sync`, {
    method: 'POST',
    headers: { ...target.factoryHeaders, 'content-type': 'application/json' },
    body: JSON.stringify({ schemaVersion: 1, sessions }),
  });
  const body = (await res.json()) as { data?: { accepted?: string[] } };
  if (res.status !== 200 || body.data?.accepted?.length !== 25)
    throw new Error(`POST /v1/agents/sync answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  const list = await fetch(`${target.baseUrl}/v1/sessions?repoScope=all`, { headers: target.factoryHeaders });
  const listed = (await list.json()) as { data?: { sessions?: { traceId: string }[] } };
  const ids = listed.data?.sessions?.map((s) => s.traceId) ?? [];
  if (ids.length !== 25) throw new Error(`GET /v1/sessions?repoScope=all listed ${ids.length} sessions, not 25`);
  storedTraceIds = ids;
  return ids;
}

const coreScenarios: BenchScenario[] = [
  { name: 'GET /health', request: () => ({ path: '/health' }) },
  { name: AUTHED_READ, request: (t) => ({ path: '/v1/api-keys', headers: t.factoryHeaders }) },
  // Other authenticated reads through the same guard, context, log line and serializer (empty lists on a
  // fresh factory): the fixed per-request cost must hold for every route, not only the verdict's.
  {
    name: 'GET /v1/work-items (factory key, empty)',
    request: (t) => ({ path: '/v1/work-items', headers: t.factoryHeaders }),
  },
  {
    name: 'GET /v1/artifacts?repository&prNumber (factory key, empty)',
    request: (t) => ({ path: '/v1/artifacts?repository=acme%2Fapi&prNumber=1', headers: t.factoryHeaders }),
  },
  { name: 'GET /v1/hosts (factory key, empty)', request: (t) => ({ path: '/v1/hosts', headers: t.factoryHeaders }) },
  // Issue 46, goal 2: the page people open most, at the store's size (--sessions), against AUTHED_READ.
  { name: SESSION_LIST, request: (t) => ({ path: '/v1/sessions', headers: t.factoryHeaders }) },
  {
    name: 'GET /v1/sessions?repoScope=all (25 rows)',
    setup: async (t) => void (await storeSessions(t)),
    request: (t) => ({ path: '/v1/sessions?repoScope=all', headers: t.factoryHeaders }),
  },
  {
    name: 'GET /v1/sessions/{traceId} (the 25, in turn)',
    setup: async (t) => void (await storeSessions(t)),
    request: (t) => (storedTraceIds ?? []).map((id) => ({ path: `/v1/sessions/${id}`, headers: t.factoryHeaders })),
  },
];

interface ScenarioSet {
  name: string;
  scenarios: BenchScenario[];
  /** A set's own stand-alone benchmark (`run<Name>Bench`), run only when the set is named on the command line. */
  standalone?: () => Promise<string>;
}

type Exports = Record<string, unknown>;

/** `run<Name>Bench` and how to print its result (`format<Name>Bench`, or `printRows`, or JSON). */
function standaloneOf(name: string, mod: Exports): (() => Promise<string>) | undefined {
  const cap = name.replace(/(^|[-_])(\w)/g, (_, __, c: string) => c.toUpperCase());
  const run = mod[`run${cap}Bench`];
  if (typeof run !== 'function') return undefined;
  const format = mod[`format${cap}Bench`];
  const printRows = mod.printRows;
  return async () => {
    const result: unknown = await (run as () => Promise<unknown>)();
    if (typeof format === 'function') return String((format as (r: unknown) => unknown)(result));
    if (typeof printRows === 'function') {
      (printRows as (r: unknown) => void)(result);
      return '';
    }
    return JSON.stringify(result, null, 2);
  };
}

async function loadSets(wanted: string[]): Promise<ScenarioSet[]> {
  const sets: ScenarioSet[] = [];
  const available = fs
    .readdirSync(HERE)
    .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.endsWith('.d.ts'))
    .map((f) => f.slice(0, -3));
  for (const name of wanted) {
    if (name !== 'core' && !available.includes(name)) {
      throw new Error(`no scenario set "${name}" (have: core${available.length ? `, ${available.join(', ')}` : ''})`);
    }
  }
  const chosen = wanted.length === 0 ? available : wanted.filter((n) => n !== 'core');
  for (const name of chosen) {
    const mod = (await import(pathToFileURL(path.join(HERE, `${name}.ts`)).href)) as Exports;
    const named = wanted.includes(name);
    const standalone = named ? standaloneOf(name, mod) : undefined;
    const scenarios = Array.isArray(mod.scenarios) ? (mod.scenarios as BenchScenario[]) : [];
    if (scenarios.length === 0 && !standalone) {
      if (named)
        throw new Error(
          `bench/${name}.ts exports neither a scenarios array nor run${name[0]!.toUpperCase()}${name.slice(1)}Bench`,
        );
      continue; // a helper module, or a set with only a stand-alone run: skipped unless named
    }
    sets.push({ name, scenarios, ...(standalone ? { standalone } : {}) });
  }
  return sets;
}

interface Measured {
  name: string;
  reqPerSec: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** Server CPU (user + system) per request: what a request costs, independent of other load on the machine. */
  cpuMicrosPerRequest: number;
}

async function load(url: string, requests: BenchRequest[], opts: Options, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections: opts.connections,
    duration: seconds,
    ...(opts.rate !== null ? { overallRate: opts.rate } : {}),
    requests: requests.map((r) => ({
      method: r.method ?? 'GET',
      path: r.path,
      ...(r.headers ? { headers: r.headers } : {}),
      ...(r.body !== undefined ? { body: r.body } : {}),
    })),
  });
}

function serverCpu(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (msg: unknown) => {
      const micros = (msg as { cpuMicros?: number }).cpuMicros;
      if (typeof micros === 'number') {
        child.off('message', onMessage);
        resolve(micros);
      }
    };
    child.on('message', onMessage);
    child.send({ cpu: true });
  });
}

async function measure(
  child: ChildProcess,
  name: string,
  url: string,
  requests: BenchRequest[],
  opts: Options,
): Promise<Measured> {
  if (opts.warmup > 0) await load(url, requests, opts, opts.warmup); // JIT and caches warm, not counted
  const before = await serverCpu(child);
  const r = await load(url, requests, opts, opts.duration);
  const cpu = (await serverCpu(child)) - before;
  return {
    name,
    reqPerSec: r.requests.average,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    cpuMicrosPerRequest: r.requests.total > 0 ? cpu / r.requests.total : 0,
  };
}

function table(rows: Measured[], bare: Measured): string {
  const header = ['scenario', 'req/s', 'p99 ms', 'req/s to bare', 'server CPU µs/req', 'CPU to bare', 'note'];
  const lines = rows.map((r) => [
    r.name,
    r.reqPerSec.toFixed(0),
    r.p99Ms.toFixed(1),
    `${(r.reqPerSec / bare.reqPerSec).toFixed(2)}x`,
    r.cpuMicrosPerRequest.toFixed(r.cpuMicrosPerRequest < 100 ? 1 : 0),
    `${(r.cpuMicrosPerRequest / bare.cpuMicrosPerRequest).toFixed(1)}x`,
    r.non2xx > 0 || r.errors > 0 ? `FAILED: ${r.non2xx} non-2xx, ${r.errors} errors` : '',
  ]);
  const all = [header, ...lines];
  const widths = header.map((_, i) => Math.max(...all.map((l) => l[i]!.length)));
  const fmt = (l: string[]) =>
    l
      .map((c, i) => (i === 0 || i === 6 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(fmt)].join('\n');
}

/** Pins every thread of this process to CPU 0; children forked afterwards (the servers) inherit it. */
function pinToCpu0(): void {
  const pinned = spawnSync('taskset', ['-a', '-cp', '0', String(process.pid)], { encoding: 'utf8' });
  if (pinned.error || pinned.status !== 0) {
    throw new Error(`--same-core needs Linux's taskset (util-linux): ${pinned.error?.message ?? pinned.stderr.trim()}`);
  }
}

/** The verdict lines of one run: issue 17's authenticated read to the bare route, issue 46's list to that read. */
function verdicts(rows: Measured[], bare: Measured, opts: Options, store: Store): string[] {
  const lines: string[] = [];
  const authed = rows.find((r) => r.name === AUTHED_READ);
  if (!authed) return lines;
  // The verdicts are CPU ratios: req/s swings with how much of the machine the load generator leaves.
  const ratio = authed.cpuMicrosPerRequest / bare.cpuMicrosPerRequest;
  lines.push(
    `verdict${opts.sameCore ? ' (same core)' : ''}: server CPU of ${AUTHED_READ} / bare route = ` +
      `${ratio.toFixed(2)}x ` +
      `(${authed.cpuMicrosPerRequest.toFixed(1)} / ${bare.cpuMicrosPerRequest.toFixed(1)} µs; target <= ` +
      `${CPU_RATIO_TARGET}x): ${ratio <= CPU_RATIO_TARGET ? 'met' : 'NOT met'}`,
  );
  const list = rows.find((r) => r.name === SESSION_LIST);
  if (list) {
    const listRatio = list.cpuMicrosPerRequest / authed.cpuMicrosPerRequest;
    lines.push(
      `verdict (${store}, ${opts.sessions} sessions): server CPU of ${SESSION_LIST} / ${AUTHED_READ} = ` +
        `${listRatio.toFixed(2)}x (${list.cpuMicrosPerRequest.toFixed(0)} / ${authed.cpuMicrosPerRequest.toFixed(1)} ` +
        `µs; target <= ${LIST_RATIO_TARGET}x): ${listRatio <= LIST_RATIO_TARGET ? 'met' : 'NOT met'}`,
    );
  }
  return lines;
}

/** One store: servers started, the sets measured, the table and the verdicts printed, servers stopped. */
async function runOn(store: Store, sets: ScenarioSet[], opts: Options): Promise<void> {
  storedTraceIds = null;
  const seeding = performance.now();
  const { child, info } = await startServers(opts, store);
  child.removeAllListeners('exit');
  try {
    const factoryKey = await createFactoryKey(info);
    const target: BenchTarget = {
      baseUrl: info.gatewayUrl,
      appId: info.appId,
      factoryKey,
      loginToken: info.loginToken,
      adminToken: info.adminToken,
      factoryHeaders: { authorization: `Bearer ${factoryKey}`, 'x-outerlayer-app-id': info.appId },
    };
    console.log(
      `\n== ${store}${store === 'postgres' ? ` (${benchDatabaseUrl()})` : ''}, ${opts.sessions} sessions seeded ` +
        `(start-up and seeding ${((performance.now() - seeding) / 1000).toFixed(1)} s) ==\n` +
        `node ${process.version}, ${os.cpus().length} CPUs; ${opts.connections} connections, ${opts.duration} s per ` +
        `scenario after ${opts.warmup} s warm-up; gateway log level ${opts.logLevel}` +
        `${opts.rate !== null ? `; every scenario at ${opts.rate} requests/s` : ''}` +
        `${opts.sameCore ? '; load generator and servers pinned to CPU 0 (--same-core)' : ''}`,
    );
    const bare = await measure(child, 'bare Fastify GET /bare', info.bareUrl, [{ path: BARE_PATH }], opts);
    const rows: Measured[] = [bare];
    for (const set of [{ name: 'core', scenarios: coreScenarios }, ...sets]) {
      for (const scenario of set.scenarios) {
        if (opts.only !== null && !scenario.name.includes(opts.only)) continue;
        await scenario.setup?.(target);
        const requests = [scenario.request(target)].flat();
        rows.push(
          await measure(
            child,
            set.name === 'core' ? scenario.name : `[${set.name}] ${scenario.name}`,
            info.gatewayUrl,
            requests,
            opts,
          ),
        );
      }
    }
    console.log('');
    console.log(table(rows, bare));
    console.log('');
    for (const line of verdicts(rows, bare, opts, store)) console.log(line);
    console.log(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}`,
    );
    if (rows.some((r) => r.non2xx > 0 || r.errors > 0)) process.exitCode = 1;
  } finally {
    child.send({ stop: true });
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const sets = await loadSets(opts.sets);
  if (opts.sameCore) pinToCpu0();
  for (const store of opts.stores) await runOn(store, sets, opts);
  // Stand-alone runs start their own servers; they go after ours have stopped so they do not share the CPU.
  for (const set of sets) {
    if (!set.standalone) continue;
    console.log(`\n== ${set.name} (bench/${set.name}.ts) ==`);
    const text = await set.standalone();
    if (text) console.log(text);
  }
}

if (process.argv[2] === '--serve') {
  await serve(
    process.argv[3] ?? 'info',
    process.argv[4] === 'postgres' ? 'postgres' : 'sqlite',
    Number(process.argv[5]),
  );
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main().catch((err: unknown) => {
    console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  });
}
