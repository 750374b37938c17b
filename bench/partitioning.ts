// `DATABASE_URL=postgres://... npx tsx bench/partitioning.ts [--rows N]` (default 1,000,000).
//
// Whether monthly declarative partitioning of `sessions` pays on PostgreSQL (issue 46 §4, docs/scale.md). In a
// schema of its own (dropped at the end): the migrated `sessions` table, seeded straight with generate_series
// (one factory, 20 repositories, a fifth subagents, starts spread evenly over 24 months), and a twin
// `sessions_p` partitioned by month of `started_at` with the same rows and the same indexes (its unique indexes
// cannot stay unique without the partition key: the upserts by session key would lose their guarantee). Then
// each read the dashboard or an agent sends to `sessions` (warm, median of 15 runs), and the retention cut of
// the oldest month: `delete` of its rows against `drop table` of its partition.
import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../src/db/connection.js';
import { migrateToLatest } from '../src/db/migrate.js';

const MONTHS = 24;
const DAY_MS = 86_400_000;
/** The first month's start: 2024-12-01T00:00Z; the data runs to 2026-12-01. */
const BASE = Date.UTC(2024, 11, 1);
const monthStart = (m: number) => Date.UTC(2024, 11 + m, 1);

function rowsArg(): number {
  const i = process.argv.indexOf('--rows');
  return i > 0 ? Number(process.argv[i + 1]) : 1_000_000;
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const t = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

async function median(runs: number, run: () => Promise<unknown>): Promise<number> {
  await run();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) out.push(await timed(run));
  out.sort((x, y) => x - y);
  return out[Math.floor(out.length / 2)]!;
}

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL=postgres://... is required');
  const rows = rowsArg();
  const schema = `bench_part_${crypto.randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  const q = (text: string, values: unknown[] = []) => client.query(text, values);
  try {
    await q(`create schema ${schema}`);
    const handle = await openDatabase({ dataDir: '', databaseUrl: url, databaseSchema: schema });
    await migrateToLatest(handle.db as unknown as Kysely<unknown>, 'postgres', schema);
    await handle.close();

    // Indexes are built after the rows are in (one sort each instead of a million inserts into each).
    const indexes = (
      await q(
        `select indexname, indexdef from pg_indexes where schemaname = $1 and tablename = 'sessions'
               and indexname <> 'sessions_pkey'`,
        [schema],
      )
    ).rows as { indexname: string; indexdef: string }[];
    for (const ix of indexes) await q(`drop index ${ix.indexname}`);
    // Both tables load without triggers: the list version's (migration 0054) fires once a row at commit, and the
    // partitioned copy, made `like sessions`, has none.
    await q('alter table sessions disable trigger sessions_list_version');
    const span = monthStart(MONTHS) - BASE;
    const start = `(${BASE}::bigint + (i - 1)::bigint * ${span} / ${rows})`;
    const insertMs = await timed(() =>
      q(`insert into sessions (id, org_id, app_id, session_key, session_id, is_subagent, actor_id, actor_name,
           credential_id, agent_type, origin, repo, branch, project, capture_tier, started_at, ended_at, duration_ms,
           turn_count, user_turn_count, steering_count, event_count, tool_call_count, tool_error_count,
           rejected_tool_call_count, api_error_count, error_count, tool_error_rate_ppm, input_tokens, output_tokens,
           cache_read_tokens, cache_write_tokens, cost_micros, cost_status, unpriced_models, models, pr_refs,
           chunk_parts, created_at, updated_at)
         select 't' || i, 'org1', 'app1', 'k' || i, 's' || i, (i % 5 = 0)::int, 'actor' || (i % 50), 'A',
           'cred1', 'claude-code', 'interactive', 'acme/r' || (i % 20), 'b' || (i % 300), 'p', 'redacted',
           ${start}, ${start} + 60000,
           60000, 10 + i % 40, 2, 1, 20, i % 30, i % 3, 0, 0, i % 3, 0, 1000 * (i % 97), 100 * (i % 89),
           0, 0, 1000 * (i % 997), 'priced', '[]', '["claude-sonnet-4-5"]', '[]', '[]',
           ${start}, ${start}
         from generate_series(1, ${rows}) i`),
    );
    let seedIndexMs = 0;
    for (const ix of indexes) seedIndexMs += await timed(() => q(ix.indexdef));
    const seedMs = insertMs + seedIndexMs;
    const columns = (
      await q(
        `select string_agg(quote_ident(column_name), ', ' order by ordinal_position) as list
         from information_schema.columns where table_schema = $1 and table_name = 'sessions'`,
        [schema],
      )
    ).rows[0].list as string;
    await q(`create table sessions_p (like sessions including defaults) partition by range (started_at)`);
    for (let m = 0; m < MONTHS; m++) {
      await q(
        `create table sessions_p_${m} partition of sessions_p
         for values from (${monthStart(m)}) to (${monthStart(m + 1)})`,
      );
    }
    const copyMs = await timed(() => q(`insert into sessions_p (${columns}) select ${columns} from sessions`));
    // The same indexes, on the partitioned parent (one per partition); unique ones lose their uniqueness, and
    // the primary key becomes (id, started_at).
    await q('alter table sessions_p add primary key (id, started_at)');
    let indexMs = 0;
    for (const ix of indexes) {
      const def = ix.indexdef
        .replace(/^CREATE UNIQUE INDEX/, 'CREATE INDEX')
        .replace(` INDEX ${ix.indexname} ON ${schema}.sessions `, ` INDEX p_${ix.indexname} ON ${schema}.sessions_p `);
      indexMs += await timed(() => q(def));
    }
    await q('analyze sessions');
    await q('analyze sessions_p');
    const size = async (t: string) =>
      Number((await q(`select pg_total_relation_size($1::regclass) as b`, [t])).rows[0].b);
    let partBytes = 0;
    for (let m = 0; m < MONTHS; m++) partBytes += await size(`sessions_p_${m}`);

    const now = monthStart(MONTHS) - DAY_MS;
    const reads: [string, string, unknown[]][] = [
      [
        'session list, one repo (25 rows)',
        `select * from T where app_id = 'app1' and repo = 'acme/r3' and is_subagent = 0
         order by started_at desc, id desc limit 25`,
        [],
      ],
      [
        'session list, all repos (25 rows)',
        `select * from T where app_id = 'app1' and is_subagent = 0 order by started_at desc, id desc limit 25`,
        [],
      ],
      [
        'count + cost of a 30-day window',
        `select count(*), sum(cost_micros) from T where app_id = 'app1' and is_subagent = 0
         and started_at >= $1 and started_at < $2`,
        [now - 30 * DAY_MS, now],
      ],
      [
        'by repo, 90-day window',
        `select repo, count(*), sum(cost_micros) from T where app_id = 'app1' and started_at >= $1
         and started_at < $2 group by repo`,
        [now - 90 * DAY_MS, now],
      ],
      ['count of the whole history', `select count(*) from T where app_id = 'app1' and is_subagent = 0`, []],
      ['one session by trace id', `select * from T where id = $1`, [`t${Math.floor(rows / 3)}`]],
      [
        'one session by key (the sync upsert)',
        `select id from T where app_id = 'app1' and session_key = $1`,
        [`k${Math.floor(rows / 3)}`],
      ],
    ];
    const results: { read: string; flatMs: number; partMs: number }[] = [];
    for (const [name, text, values] of reads) {
      const flatMs = await median(15, () => q(text.replace(/\bT\b/, 'sessions'), values));
      const partMs = await median(15, () => q(text.replace(/\bT\b/, 'sessions_p'), values));
      results.push({ read: name, flatMs, partMs });
    }

    // Retention: the oldest month out of each table.
    const monthRows = Number(
      (await q(`select count(*) as n from sessions where started_at < $1`, [monthStart(1)])).rows[0].n,
    );
    const deleteMs = await timed(() =>
      q(`delete from sessions where app_id = 'app1' and started_at < $1`, [monthStart(1)]),
    );
    const vacuumMs = await timed(() => q('vacuum sessions'));
    const dropMs = await timed(async () => {
      await q('alter table sessions_p detach partition sessions_p_0');
      await q('drop table sessions_p_0');
    });

    const uptime = (await import('node:os'))
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    console.log(`partitioning bench: ${rows} sessions over ${MONTHS} months, PostgreSQL, load average ${uptime}`);
    console.log(
      `seed ${(seedMs / 1000).toFixed(1)} s, copy to the partitioned twin ${(copyMs / 1000).toFixed(1)} s,` +
        ` its indexes ${(indexMs / 1000).toFixed(1)} s`,
    );
    console.log(
      `size: flat ${((await size('sessions')) / 2 ** 20).toFixed(0)} MB (after the delete), partitions ` +
        `${(partBytes / 2 ** 20).toFixed(0)} MB (before the drop)`,
    );
    console.log('| read | flat p50 ms | partitioned p50 ms | ratio |');
    console.log('| - | - | - | - |');
    for (const r of results) {
      console.log(
        `| ${r.read} | ${r.flatMs.toFixed(2)} | ${r.partMs.toFixed(2)} | ${(r.partMs / r.flatMs).toFixed(2)}x |`,
      );
    }
    console.log(
      `retention of the oldest month (${monthRows} rows): delete ${deleteMs.toFixed(0)} ms + vacuum ` +
        `${vacuumMs.toFixed(0)} ms; detach + drop partition ${dropMs.toFixed(1)} ms`,
    );
  } finally {
    await q(`drop schema if exists ${schema} cascade`).catch(() => undefined);
    await client.end();
  }
}

await main();
