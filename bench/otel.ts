// `npm run bench -- otel`: OTLP logs ingest (issue 41). A gateway on a temp store (SQLite, or PostgreSQL when
// DATABASE_URL is set) takes batches of 512 Claude Code events (protobuf, as Claude Code's http/protobuf
// exporter sends them; every record new; each batch continues one of 8 developers' sessions) from 4 concurrent
// clients over its socket: log records a second, the p50/p99 of a request, and this process's CPU a record
// (gateway and client; steadier than records/s on a shared machine) with the load average. Then the time from
// one exported `api_request` to its session being readable through GET /v1/sessions. Goals (issue 41): 20,000
// records/s, p99 100 ms, readable within 2,000 ms. OTEL_BENCH_WINDOW=1 prints the timed part's bounds (µs of the
// monotonic clock, as a --cpu-prof profile's timestamps) on stderr.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/server/config.js';
import { mintCredential } from '../src/server/auth/mint.js';
import { PERMISSIONS } from '../src/server/permissions.js';
import { REQUEST_TYPES } from '../src/areas/otlp/proto.js';

const BATCH = 512;
const CLIENTS = 4;
const BATCHES = Number(process.env.OTEL_BENCH_BATCHES ?? 80);
/** Sessions the batches spread over (a batch is one developer's 5 s of events in real life: a few sessions). */
const SESSIONS_PER_BATCH = 4;
/**
 * Developers sending: batch n continues developer n % DEVELOPERS's sessions, later in time, as an exporter does
 * all day; each session grows by 128 events a batch (to 1,280 at 80 batches).
 */
const DEVELOPERS = 8;

export interface OtelBenchResult {
  store: string;
  records: number;
  seconds: number;
  recordsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  readableMs: number;
  /** CPU of this process (the gateway and the in-process client) over the timed run, µs a record. */
  cpuUsPerRecord: number;
  /** The machine's 1-minute load average at the end of the timed run (the machine may be shared). */
  load: number;
}

function batch(n: number, developer: string | number = n % DEVELOPERS): Buffer {
  const type = REQUEST_TYPES.logs;
  const t0 = Date.UTC(2026, 10, 1, 9) + n * 1000;
  const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
  const records = Array.from({ length: BATCH }, (_, i) => {
    const session = `bench-${developer}-${i % SESSIONS_PER_BATCH}`;
    const at = new Date(t0 + i).toISOString();
    const common = [
      str('session.id', session),
      str('user.email', `dev${developer}@example.com`),
      str('app.version', '2.0.14'),
      str('event.timestamp', at),
    ];
    const attrs =
      i % 4 === 0
        ? [str('event.name', 'tool_result'), str('tool_name', 'Bash'), str('success', 'true')]
        : [
            str('event.name', 'api_request'),
            str('model', 'claude-sonnet-4-5-20250929'),
            { key: 'cost_usd', value: { doubleValue: 0.0123 } },
            { key: 'input_tokens', value: { intValue: 1200 } },
            { key: 'output_tokens', value: { intValue: 300 } },
            { key: 'cache_read_tokens', value: { intValue: 5000 } },
            { key: 'duration_ms', value: { intValue: 1800 } },
          ];
    return {
      timeUnixNano: String(BigInt(t0 + i) * 1_000_000n),
      body: { stringValue: `claude_code.${i % 4 === 0 ? 'tool_result' : 'api_request'}` },
      attributes: [...common, ...attrs],
    };
  });
  const message = type.fromObject({
    resourceLogs: [
      { resource: { attributes: [str('service.name', 'claude-code')] }, scopeLogs: [{ logRecords: records }] },
    ],
  });
  return Buffer.from(type.encode(message).finish());
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

export async function runOtelBench(): Promise<OtelBenchResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attest-otel-bench-'));
  const databaseUrl = process.env.DATABASE_URL ?? null;
  const schema = `bench_${crypto.randomBytes(4).toString('hex')}`;
  const config = loadConfig({
    ATTEST_DATA_DIR: dir,
    ATTEST_KEY_PEPPER: crypto.randomBytes(16).toString('hex'),
    LOG_LEVEL: 'warn',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, ATTEST_DATABASE_SCHEMA: schema } : {}),
  });
  const pgAdmin = async (q: string) => {
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: databaseUrl! });
    await client.connect();
    await client.query(q);
    await client.end();
  };
  if (databaseUrl) await pgAdmin(`create schema ${schema}`);
  const app = await buildApp({ config });
  try {
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const gw = app.attest;
    const boot = gw.bootstrap;
    const key = await mintCredential(gw.db, gw.pepper, gw.clock.now(), {
      kind: 'factory_key',
      name: 'bench-otel',
      orgId: boot.orgId,
      appId: boot.appId,
      createdBy: boot.userId,
      permissions: [...PERMISSIONS],
    });
    const headers = {
      authorization: `Bearer ${key.plaintext}`,
      'x-outerlayer-app-id': boot.appId,
      'content-type': 'application/x-protobuf',
    };
    const bodies = Array.from({ length: BATCHES }, (_, n) => batch(n));
    const send = async (body: Buffer) => {
      const res = await fetch(`${base}/v1/logs`, { method: 'POST', headers, body: new Uint8Array(body) });
      if (res.status !== 200) throw new Error(`POST /v1/logs answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    };
    await send(batch(BATCHES + 1, 'warm')); // warm-up (and the first session's row)

    const times: number[] = [];
    let next = 0;
    const c0 = process.cpuUsage();
    if (process.env.OTEL_BENCH_WINDOW) console.error(`window start ${process.hrtime.bigint() / 1000n}`);
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++]!;
          const s = performance.now();
          await send(body);
          times.push(performance.now() - s);
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(c0);
    if (process.env.OTEL_BENCH_WINDOW) console.error(`window end ${process.hrtime.bigint() / 1000n}`);
    const load = os.loadavg()[0]!;
    times.sort((x, y) => x - y);

    // One api_request exported, then the session list polled until it shows that session.
    const probe = batch(BATCHES + 2, 'probe');
    const probeSession = 'bench-probe-1';
    const r0 = performance.now();
    await send(probe);
    let readableMs = Number.NaN;
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${base}/v1/sessions?repoScope=all&q=&limit=100&sort=startedAt`, {
        headers: { authorization: headers.authorization, 'x-outerlayer-app-id': boot.appId },
      });
      const body = (await res.json()) as { data: { sessions: { sessionId: string }[] } };
      if (body.data.sessions.some((s) => s.sessionId === probeSession)) {
        readableMs = performance.now() - r0;
        break;
      }
    }
    const records = BATCHES * BATCH;
    return {
      store: databaseUrl ? 'postgres' : 'sqlite',
      records,
      seconds,
      recordsPerSecond: records / seconds,
      p50Ms: quantile(times, 0.5),
      p99Ms: quantile(times, 0.99),
      readableMs,
      cpuUsPerRecord: (cpu.user + cpu.system) / records,
      load,
    };
  } finally {
    await app.close();
    if (databaseUrl) await pgAdmin(`drop schema ${schema} cascade`);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function formatOtelBench(r: OtelBenchResult): string {
  return [
    'store     records  batch  clients  records/s (goal 20000)  p50 ms  p99 ms (goal 100)  readable ms (goal 2000)' +
      '  cpu µs/record  load',
    `${r.store.padEnd(8)}  ${String(r.records).padStart(7)}  ${String(BATCH).padStart(5)}  ` +
      `${String(CLIENTS).padStart(7)}  ${r.recordsPerSecond.toFixed(0).padStart(22)}  ` +
      `${r.p50Ms.toFixed(1).padStart(6)}  ${r.p99Ms.toFixed(1).padStart(17)}  ${r.readableMs.toFixed(0).padStart(23)}` +
      `  ${r.cpuUsPerRecord.toFixed(1).padStart(13)}  ${r.load.toFixed(1).padStart(4)}`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(formatOtelBench(await runOtelBench()));
}
