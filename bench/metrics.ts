// `npx tsx bench/metrics.ts [--sessions N] [--samples N] [--days N]` (DATABASE_URL=postgres://... for PostgreSQL)
//
// GET /v1/metrics/overview and GET /v1/metrics/models over a factory holding 100k sessions (target: p99
// ≤ 50 ms). Builds the gateway in this process on a temp store with N sessions spread over `days` days seeded
// straight into the tables (bench/seed.ts), then sends `samples` sequential requests per
// scenario over HTTP (a real socket, the whole guard/serialization path) and prints latency percentiles.
//
// Requests are sequential on purpose: this measures what one dashboard load costs, not throughput. The
// org's observability-read bucket (1000/min on paid plans) bounds samples × scenarios per minute; the
// default (150 × 6 = 900) stays under it.
//
// Not a scenario set of bench/run.ts (it exports no `scenarios`): run.ts skips it. Export: runMetricsBench.
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { DAY_MS, percentile, seededGateway } from './seed.js';

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

export async function runMetricsBench(opts: Partial<MetricsBenchOptions> = {}): Promise<MetricsBenchResult> {
  const o: MetricsBenchOptions = {
    sessions: 100_000,
    samples: 150,
    days: 90,
    databaseUrl: process.env.DATABASE_URL ?? null,
    ...opts,
  };
  const { gw, url, headers, now, seedSeconds, close } = await seededGateway({
    name: 'metrics',
    sessions: o.sessions,
    days: o.days,
    databaseUrl: o.databaseUrl,
  });
  try {
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
    await close();
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
    `${result.sessions} sessions on ${result.dialect} (seeded in ${result.seedSeconds.toFixed(1)} s); node ` +
      `${process.version}, ${os.cpus().length} CPUs; sequential requests`,
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
