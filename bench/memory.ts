// Memory of the real server process: `npm run build && npx tsx bench/memory.ts [--sessions 100000] [--clients 4]`.
//
// Starts `node dist/main.js serve` with the node flags of `npm start` (the built gateway, as production runs
// it) on a fresh SQLite data dir, reads its resident set size from /proc 3 s after start-up and again at rest
// (60 s), then ingests N fixture sessions (25 a request, fresh ids, `--clients` concurrent clients over a real socket)
// and reads the RSS again after the ingest, with the peak (VmHWM) over the whole run. Also prints the ingest rate and
// request latency seen over the socket. Linux only (/proc). `npm run bench -- memory` runs it after the core table.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureSessions, procTicks } from './sessions.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface MemoryResult {
  /** 3 s after start-up */
  startupRssMb: number;
  /** 60 s after start-up, nothing asked of it */
  idleRssMb: number;
  sessions: number;
  clients: number;
  sessionsPerSec: number;
  turnsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  rssAfterIngestMb: number;
  peakRssMb: number;
  /** CPU time of the server process (all its threads) during the ingest, µs a session, and the kernel's part of it */
  cpuUsPerSession: number;
  kernelUsPerSession: number;
}

function status(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  if (!line) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(line.split(/\s+/)[1]) / 1024; // kB -> MB
}

/** The node flags of `npm start` (package.json), if any, so the server is measured as production starts it. */
function startNodeFlags(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const words = (pkg.scripts?.start ?? '').split(/\s+/);
  return words[0] === 'node' ? words.slice(1).filter((w) => w.startsWith('--')) : [];
}

/** CPU time of a process (all its threads) so far, in µs: user and kernel (clock ticks of 10 ms, USER_HZ 100). */
function cpuMicros(pid: number): { user: number; kernel: number } {
  const ticks = procTicks(pid);
  if (!ticks) throw new Error(`no /proc/${pid}/stat`);
  return { user: ticks[0] * 10_000, kernel: ticks[1] * 10_000 };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function start(dataDir: string, port: number): Promise<ChildProcess> {
  const main = path.join(ROOT, 'dist', 'main.js');
  if (!fs.existsSync(main)) throw new Error('dist/main.js is missing: run `npm run build` first');
  const child = spawn(
    process.execPath,
    [...startNodeFlags(), main, 'serve', '--data-dir', dataDir, '--port', String(port), '--host', '127.0.0.1'],
    {
      env: {
        ...process.env,
        ATTEST_KEY_PEPPER: crypto.randomBytes(16).toString('hex'),
        LOG_LEVEL: 'info',
        DATABASE_URL: '',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  for (let i = 0; i < 300; i += 1) {
    if (fs.existsSync(path.join(dataDir, 'bootstrap.json'))) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return child;
      } catch {
        // not listening yet
      }
    }
    await sleep(100);
  }
  child.kill();
  throw new Error('the gateway did not answer /health within 30 s');
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

export async function runMemoryBench(opts: { sessions?: number; clients?: number } = {}): Promise<MemoryResult> {
  const total = opts.sessions ?? 100_000;
  const clients = opts.clients ?? 4;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'attest-memory-'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = await start(dataDir, port);
  try {
    const pid = child.pid!;
    // 3 s: start-up done (migrations, bootstrap, first GC). V8 keeps the young generation start-up grew (at most
    // 2 x 8 MB under npm start's cap) until its memory reducer runs on the idle heap, anywhere from 20 s to over a
    // minute later; the 60 s reading is the verdict's, with or without the reducer having run.
    await sleep(3000);
    const startupRssMb = status(pid, 'VmRSS');
    await sleep(57_000);
    const idleRssMb = status(pid, 'VmRSS');
    const saved = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8')) as {
      factory: { id: string };
      loginToken: string;
    };
    const boot = { appId: saved.factory.id, loginToken: saved.loginToken };
    const base = `http://127.0.0.1:${port}`;
    const keyRes = await fetch(`${base}/v1/api-keys`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${boot.loginToken}`,
        'x-outerlayer-app-id': boot.appId,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ name: 'memory-bench', preset: 'full-access' }),
    });
    const created = (await keyRes.json()) as { data?: { plaintext_key?: string } };
    const key = created.data?.plaintext_key;
    if (keyRes.status !== 201 || !key)
      throw new Error(`POST /v1/api-keys answered ${keyRes.status}: ${JSON.stringify(created).slice(0, 300)}`);
    const headers = {
      authorization: `Bearer ${key}`,
      'x-outerlayer-app-id': boot.appId,
      'content-type': 'application/json',
    };
    const pool = fixtureSessions(200, 'pool');
    const requests = Math.ceil(total / 25);
    let next = 0;
    let turns = 0;
    const latencies: number[] = [];
    const client = async () => {
      while (next < requests) {
        const n = next++;
        const sessions = Array.from({ length: 25 }, (_, i) => ({
          ...pool[(n * 25 + i) % pool.length]!,
          id: crypto.randomUUID(),
        }));
        turns += sessions.reduce((m, s) => m + s.turns.length, 0);
        const body = JSON.stringify({ schemaVersion: 1, sessions });
        const begun = performance.now();
        const res = await fetch(`${base}/v1/agents/sync`, { method: 'POST', headers, body });
        const text = await res.text();
        latencies.push(performance.now() - begun);
        if (res.status !== 200) throw new Error(`sync answered ${res.status}: ${text.slice(0, 300)}`);
      }
    };
    const cpuBefore = cpuMicros(pid);
    const begun = performance.now();
    await Promise.all(Array.from({ length: clients }, client));
    const seconds = (performance.now() - begun) / 1000;
    const cpuAfter = cpuMicros(pid);
    await sleep(3000);
    latencies.sort((a, b) => a - b);
    return {
      startupRssMb: Math.round(startupRssMb),
      idleRssMb: Math.round(idleRssMb),
      sessions: requests * 25,
      clients,
      sessionsPerSec: Math.round((requests * 25) / seconds),
      turnsPerSec: Math.round(turns / seconds),
      p50Ms: Number(percentile(latencies, 50).toFixed(1)),
      p99Ms: Number(percentile(latencies, 99).toFixed(1)),
      rssAfterIngestMb: Math.round(status(pid, 'VmRSS')),
      peakRssMb: Math.round(status(pid, 'VmHWM')),
      cpuUsPerSession: Math.round(
        (cpuAfter.user + cpuAfter.kernel - cpuBefore.user - cpuBefore.kernel) / (requests * 25),
      ),
      kernelUsPerSession: Math.round((cpuAfter.kernel - cpuBefore.kernel) / (requests * 25)),
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatMemoryBench(r: MemoryResult): string {
  return [
    `RSS 3 s after start-up (SQLite): ${r.startupRssMb} MB`,
    `idle RSS 60 s after start-up (SQLite): ${r.idleRssMb} MB (target <= 120 MB): ` +
      `${r.idleRssMb <= 120 ? 'met' : 'NOT met'}`,
    `ingest over a socket: ${r.sessions} sessions, ${r.clients} clients: ${r.sessionsPerSec} sessions/s, ` +
      `${r.turnsPerSec} turns/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms; server CPU ${r.cpuUsPerSession} µs a session (` +
      `${r.kernelUsPerSession} of it in the kernel)`,
    `RSS after the ingest: ${r.rssAfterIngestMb} MB, peak ${r.peakRssMb} MB (target <= 250 MB): ` +
      `${r.peakRssMb <= 250 ? 'met' : 'NOT met'}`,
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) {
  const args = process.argv.slice(2);
  const value = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : undefined;
  };
  const sessions = value('--sessions');
  const clients = value('--clients');
  runMemoryBench({ ...(sessions ? { sessions } : {}), ...(clients ? { clients } : {}) })
    .then((r) => console.log(formatMemoryBench(r)))
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}
