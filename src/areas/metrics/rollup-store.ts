// SQL of the daily metric rollups: kept current at write time (rollup-write.ts, rebuilt by rollup-rebuild.ts),
// read by summing whole days. Scoped by factory. A group whose sessions all moved away keeps a row of zeros
// until something counts in it again; reads skip such rows.
import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import type { UsageColumns } from '../../db/schema.js';
import { BREAKDOWN_COUNTERS, DAY_COUNTERS, MODEL_COUNTERS, readCounters, TILE_COUNTERS } from './counters.js';
import {
  dayRowOf,
  modelRowOf,
  type BreakdownRow,
  type DayRow,
  type ModelRow,
  type Scope,
  type SessionDimension,
  type Tiles,
} from './store.js';

export interface MetricsDaysTable {
  app_id: string;
  day: number;
  repo: string;
  sessions: number;
  subagent_sessions: number;
  cost_micros: number;
  top_cost_micros: number;
  turns: number;
  tool_calls: number;
  tool_errors: number;
  rejected: number;
  clean: number;
  hands_on: number;
}

export interface MetricsDayActorsTable {
  app_id: string;
  day: number;
  repo: string;
  actor_id: string;
  /** Top-level sessions of the actor that day (0: none any more; such rows are skipped). */
  sessions: number;
}

export interface MetricsDayKeysTable {
  app_id: string;
  dim: string;
  day: number;
  repo: string;
  null_key: number;
  key: string;
  sessions: number;
  cost_micros: number;
  turns: number;
  tool_calls: number;
  tool_errors: number;
  rejected: number;
  input_tokens: number;
  output_tokens: number;
}

export interface MetricsDayToolsTable {
  app_id: string;
  day: number;
  repo: string;
  tool: string;
  sessions: number;
  calls: number;
  errors: number;
  rejected: number;
}

export interface MetricsDayModelsTable extends UsageColumns {
  app_id: string;
  day: number;
  repo: string;
  model: string;
  sessions: number;
  turns: number;
  unpriced_turns: number;
}

declare module '../../db/schema.js' {
  interface Database {
    metrics_days: MetricsDaysTable;
    metrics_day_actors: MetricsDayActorsTable;
    metrics_day_models: MetricsDayModelsTable;
    metrics_day_keys: MetricsDayKeysTable;
    metrics_day_tools: MetricsDayToolsTable;
  }
}

export const DAY_MS = 86_400_000;

/** Whole UTC days [first, end) (day numbers = epoch ms / 86400000). */
export interface DayRange {
  first: number;
  end: number;
}

/** The tile counters of whole days, summed (distinct actors excepted: see actors()). */
export async function dayTiles(
  db: Db,
  scope: Scope,
  ranges: readonly DayRange[],
): Promise<Omit<Tiles, 'activeActors'>[]> {
  if (ranges.length === 0) return [];
  const inRange = (r: DayRange) => sql`(day >= ${r.first} and day < ${r.end})`;
  let q = db
    .selectFrom('metrics_days')
    .select(
      ranges.flatMap((r, i) =>
        TILE_COUNTERS.map((c) =>
          sql<number>`coalesce(sum(case when ${inRange(r)} then ${sql.ref(c)} else 0 end), 0)`.as(`r${i}_${c}`),
        ),
      ),
    )
    .where('app_id', '=', scope.appId)
    .where(sql<boolean>`(${sql.join(ranges.map(inRange), sql` or `)})`);
  if (scope.repo !== undefined) q = q.where('repo', '=', scope.repo);
  const row = ((await q.executeTakeFirst()) ?? {}) as Record<string, unknown>;
  return ranges.map((_, i) => readCounters(row, TILE_COUNTERS, `r${i}_`));
}

/** Distinct actors of top-level sessions: whole days from the rollup, partial edges from the sessions. */
export async function actors(
  db: Db,
  scope: Scope,
  days: DayRange | null,
  edges: readonly { from: number; to: number }[],
): Promise<number> {
  const parts = [];
  const repoOnly = scope.repo !== undefined ? sql` and repo = ${scope.repo}` : sql``;
  if (days) {
    parts.push(
      sql`select actor_id from metrics_day_actors
        where app_id = ${scope.appId} and day >= ${days.first} and day < ${days.end} and sessions > 0${repoOnly}`,
    );
  }
  for (const e of edges) {
    parts.push(
      sql`select actor_id from sessions
        where app_id = ${scope.appId} and started_at >= ${e.from} and started_at < ${e.to}
          and is_subagent = 0${repoOnly}`,
    );
  }
  if (parts.length === 0) return 0;
  if (parts.length === 1 && days) {
    // Whole days only (the common case): one covering-index range, no union.
    let q = db
      .selectFrom('metrics_day_actors')
      .select((eb) => eb.fn.count<number>('actor_id').distinct().as('n'))
      .where('app_id', '=', scope.appId)
      .where('day', '>=', days.first)
      .where('day', '<', days.end)
      .where('sessions', '>', 0);
    if (scope.repo !== undefined) q = q.where('repo', '=', scope.repo);
    return Number((await q.executeTakeFirst())?.n ?? 0);
  }
  const result = await sql<{
    n: number;
  }>`select count(distinct actor_id) as n from (${sql.join(parts, sql` union all `)}) as a`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}

/** Per-model spend of whole days. */
export async function dayModels(db: Db, scope: Scope, days: DayRange): Promise<ModelRow[]> {
  let q = db
    .selectFrom('metrics_day_models')
    .select((eb) => ['model', ...MODEL_COUNTERS.map((c) => eb.fn.sum<number>(c).as(c))])
    .where('app_id', '=', scope.appId)
    .where('day', '>=', days.first)
    .where('day', '<', days.end);
  if (scope.repo !== undefined) q = q.where('repo', '=', scope.repo);
  const rows = await q
    .groupBy('model')
    .having((eb) => eb.fn.sum('sessions'), '>', 0)
    .execute();
  return rows.map(modelRowOf);
}

/** A day of the rollups has the same shape as a day aggregated from the sessions. */
export type RollupDayRow = DayRow;

/** Whole days, one row per day with sessions. */
export async function dayRows(db: Db, scope: Scope, days: DayRange): Promise<RollupDayRow[]> {
  let q = db
    .selectFrom('metrics_days')
    .select((eb) => ['day', ...DAY_COUNTERS.map((c) => eb.fn.sum<number>(c).as(c))])
    .where('app_id', '=', scope.appId)
    .where('day', '>=', days.first)
    .where('day', '<', days.end);
  if (scope.repo !== undefined) q = q.where('repo', '=', scope.repo);
  let a = db
    .selectFrom('metrics_day_actors')
    .select((eb) => ['day', eb.fn.count<number>('actor_id').distinct().as('actors')])
    .where('app_id', '=', scope.appId)
    .where('day', '>=', days.first)
    .where('day', '<', days.end)
    .where('sessions', '>', 0);
  if (scope.repo !== undefined) a = a.where('repo', '=', scope.repo);
  const [rows, actorRows] = await Promise.all([
    q
      .groupBy('day')
      .having((eb) => eb(eb.fn.sum('sessions'), '+', eb.fn.sum('subagent_sessions')), '>', 0)
      .execute(),
    a.groupBy('day').execute(),
  ]);
  const actorsByDay = new Map(actorRows.map((r) => [Number(r.day), Number(r.actors)]));
  return rows.map((r) => dayRowOf(r, actorsByDay.get(Number(r.day)) ?? 0));
}

/** Top-level sessions of whole days grouped by a session column, costliest first (breakdownBySession's rows). */
export async function dayKeyBreakdown(
  db: Db,
  scope: Scope,
  days: DayRange,
  dimension: Exclude<SessionDimension, 'actor_id'>,
  limit: number,
): Promise<{ rows: BreakdownRow[]; groups: number }> {
  const repo = scope.repo === undefined ? sql`` : sql` and repo = ${scope.repo}`;
  // The key as the sessions hold it: null sorts where each database sorts nulls, as the rows' own query does.
  const groups = sql`
    select case when null_key = 1 then null else key end as k,
      ${sql.join(BREAKDOWN_COUNTERS.map((c) => sql`sum(${sql.ref(c)}) as ${sql.ref(c)}`))}
    from metrics_day_keys
    where app_id = ${scope.appId} and dim = ${dimension} and day >= ${days.first} and day < ${days.end}${repo}
    group by null_key, key
    having sum(sessions) > 0`;
  const [rows, count] = await Promise.all([
    sql<Record<string, unknown> & { k: string | null }>`select * from (${groups}) g
      order by cost_micros desc, sessions desc, k limit ${limit}`.execute(db),
    sql<{ n: unknown }>`select count(*) as n from (${groups}) g`.execute(db),
  ]);
  return {
    groups: Number(count.rows[0]?.n ?? 0),
    rows: rows.rows.map((r) => ({ key: r.k, ...readCounters(r, BREAKDOWN_COUNTERS) })),
  };
}

/** Top-level sessions' tool calls of whole days per tool, most used first (breakdownByTool's rows). */
export async function dayToolBreakdown(
  db: Db,
  scope: Scope,
  days: DayRange,
  limit: number,
): Promise<{ rows: BreakdownRow[]; groups: number }> {
  const repo = scope.repo === undefined ? sql`` : sql` and repo = ${scope.repo}`;
  const groups = sql`
    select tool, sum(sessions) as sessions, sum(calls) as calls, sum(errors) as errors, sum(rejected) as rejected
    from metrics_day_tools
    where app_id = ${scope.appId} and day >= ${days.first} and day < ${days.end}${repo}
    group by tool
    having sum(sessions) > 0`;
  const [rows, count] = await Promise.all([
    sql<
      Record<string, unknown> & { tool: string }
    >`select * from (${groups}) g order by calls desc, tool limit ${limit}`.execute(db),
    sql<{ n: unknown }>`select count(*) as n from (${groups}) g`.execute(db),
  ]);
  return {
    groups: Number(count.rows[0]?.n ?? 0),
    rows: rows.rows.map((r) => ({
      // A tool call has no cost or tokens of its own; the breakdown reports calls, errors and denials.
      ...readCounters({}, BREAKDOWN_COUNTERS),
      key: r.tool,
      sessions: Number(r.sessions),
      toolCalls: Number(r.calls ?? 0),
      toolErrors: Number(r.errors ?? 0),
      rejectedToolCalls: Number(r.rejected ?? 0),
    })),
  };
}
