// SQL of the daily metric rollups: refreshed from the sessions summary rows with INSERT ... SELECT ...
// GROUP BY (the database aggregates), read by summing whole days. Scoped by factory.
import { sql } from 'kysely';
import type { Db, Dialect } from '../../db/connection.js';
import { lockForTransaction } from '../../db/locks.js';
import { DAY_COUNTERS, MODEL_COUNTERS, readCounters, TILE_COUNTERS } from './counters.js';
import { dayRowOf, modelRowOf, type DayRow, type ModelRow, type Scope, type Tiles } from './store.js';

export interface MetricsDaysTable {
  app_id: string;
  day: number;
  repo: string;
  sessions: number;
  subagent_sessions: number;
  cost_micros: number;
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
}

export interface MetricsDayModelsTable {
  app_id: string;
  day: number;
  repo: string;
  model: string;
  sessions: number;
  turns: number;
  unpriced_turns: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  cost_micros: number;
}

export interface MetricsRefreshTable {
  app_id: string;
  watermark: number;
  ties: number;
  rechecked_at: number;
}

/** Days whose rollups a deletion made stale (0035): the next refresh recomputes them. */
export interface MetricsDirtyDaysTable {
  app_id: string;
  day: number;
}

declare module '../../db/schema.js' {
  interface Database {
    metrics_dirty_days: MetricsDirtyDaysTable;
    metrics_days: MetricsDaysTable;
    metrics_day_actors: MetricsDayActorsTable;
    metrics_day_models: MetricsDayModelsTable;
    metrics_refresh: MetricsRefreshTable;
  }
}

export const DAY_MS = 86_400_000;
const DAY = sql.lit(DAY_MS);

/** Whole UTC days [first, end) (day numbers = epoch ms / 86400000). */
export interface DayRange {
  first: number;
  end: number;
}

export function refreshState(db: Db, appId: string): Promise<MetricsRefreshTable | undefined> {
  return db.selectFrom('metrics_refresh').selectAll().where('app_id', '=', appId).executeTakeFirst();
}

/** Sessions updated at or after `since`: how many, and the latest updated_at (an index range). */
export async function changedSince(
  db: Db,
  appId: string,
  since: number,
): Promise<{ count: number; latest: number | null }> {
  const row = await db
    .selectFrom('sessions')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('updated_at').as('latest')])
    .where('app_id', '=', appId)
    .where('updated_at', '>=', since)
    .executeTakeFirst();
  return {
    count: Number(row?.n ?? 0),
    latest: row?.latest === null || row?.latest === undefined ? null : Number(row.latest),
  };
}

export async function daysChangedSince(db: Db, appId: string, since: number): Promise<number[]> {
  const rows = await db
    .selectFrom('sessions')
    .select(sql<number>`started_at / ${DAY}`.as('day'))
    .distinct()
    .where('app_id', '=', appId)
    .where('updated_at', '>=', since)
    .execute();
  return rows.map((r) => Number(r.day)).sort((a, b) => a - b);
}

/** Consecutive runs of days, so each recompute is one index range over started_at. */
function runs(days: readonly number[]): DayRange[] {
  const out: DayRange[] = [];
  for (const d of days) {
    const last = out[out.length - 1];
    if (last && last.end === d) last.end = d + 1;
    else out.push({ first: d, end: d + 1 });
  }
  return out;
}

/**
 * Recompute the rollup rows of these days from the sessions, in one transaction per run of days.
 * Concurrent recomputes of one factory serialize: on PostgreSQL two readers (two requests of one dashboard
 * page, two replicas) each deleted the days' rows and inserted their own, and the later one failed on the
 * other's rows or deadlocked with it; the one that failed then answered from days the other had not reached
 * yet (concurrent first reads saw 3 of 5 sessions). A transaction-scoped advisory lock on the factory makes
 * the second wait for the first and then replace its rows. SQLite runs one write transaction at a time.
 */
export async function recomputeDays(db: Db, dialect: Dialect, appId: string, days: readonly number[]): Promise<void> {
  for (const r of runs(days)) {
    const from = r.first * DAY_MS;
    const to = r.end * DAY_MS;
    await db.transaction().execute(async (trx) => {
      await lockForTransaction(trx, dialect, `metrics:${appId}`);
      for (const table of ['metrics_days', 'metrics_day_actors', 'metrics_day_models'] as const) {
        await trx
          .deleteFrom(table)
          .where('app_id', '=', appId)
          .where('day', '>=', r.first)
          .where('day', '<', r.end)
          .execute();
      }
      await sql`
        insert into metrics_days (app_id, day, repo, sessions, subagent_sessions, cost_micros, turns, tool_calls,
          tool_errors, rejected, clean, hands_on)
        select app_id, started_at / ${DAY}, repo,
          sum(case when is_subagent = 0 then 1 else 0 end),
          sum(is_subagent),
          sum(cost_micros),
          sum(case when is_subagent = 0 then turn_count else 0 end),
          sum(case when is_subagent = 0 then tool_call_count else 0 end),
          sum(case when is_subagent = 0 then tool_error_count else 0 end),
          sum(case when is_subagent = 0 then rejected_tool_call_count else 0 end),
          sum(case when is_subagent = 0 and tool_error_count = 0 and api_error_count = 0
            and rejected_tool_call_count = 0 then 1 else 0 end),
          sum(case when is_subagent = 0 and steering_count > 0 then 1 else 0 end)
        from sessions
        where app_id = ${appId} and started_at >= ${from} and started_at < ${to}
        group by app_id, started_at / ${DAY}, repo`.execute(trx);
      await sql`
        insert into metrics_day_actors (app_id, day, repo, actor_id)
        select distinct app_id, started_at / ${DAY}, repo, actor_id
        from sessions
        where app_id = ${appId} and started_at >= ${from} and started_at < ${to} and is_subagent = 0`.execute(trx);
      await sql`
        insert into metrics_day_models (app_id, day, repo, model, sessions, turns, unpriced_turns, input_tokens,
          output_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_micros)
        select app_id, started_at / ${DAY}, repo, model, count(distinct session_id), sum(turn_count),
          sum(unpriced_turn_count), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens),
          sum(cache_write_tokens), sum(cache_write_1h_tokens), sum(cost_micros)
        from session_model_usage
        where app_id = ${appId} and started_at >= ${from} and started_at < ${to}
        group by app_id, started_at / ${DAY}, repo, model`.execute(trx);
    });
  }
}

export async function saveRefreshState(db: Db, state: MetricsRefreshTable): Promise<void> {
  await db
    .insertInto('metrics_refresh')
    .values(state)
    .onConflict((oc) =>
      oc
        .column('app_id')
        .doUpdateSet({ watermark: state.watermark, ties: state.ties, rechecked_at: state.rechecked_at }),
    )
    .execute();
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
  const inRepo = scope.repo !== undefined ? sql` and repo = ${scope.repo}` : sql``;
  if (days) {
    parts.push(
      sql`select actor_id from metrics_day_actors
        where app_id = ${scope.appId} and day >= ${days.first} and day < ${days.end}${inRepo}`,
    );
  }
  for (const e of edges) {
    parts.push(
      sql`select actor_id from sessions
        where app_id = ${scope.appId} and started_at >= ${e.from} and started_at < ${e.to}
          and is_subagent = 0${inRepo}`,
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
      .where('day', '<', days.end);
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
  const rows = await q.groupBy('model').execute();
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
    .where('day', '<', days.end);
  if (scope.repo !== undefined) a = a.where('repo', '=', scope.repo);
  const [rows, actorRows] = await Promise.all([q.groupBy('day').execute(), a.groupBy('day').execute()]);
  const actorsByDay = new Map(actorRows.map((r) => [Number(r.day), Number(r.actors)]));
  return rows.map((r) => dayRowOf(r, actorsByDay.get(Number(r.day)) ?? 0));
}

/** Mark these days stale (in the caller's transaction, beside the deletion that made them so). */
export async function markDirty(db: Db, appId: string, days: readonly number[]): Promise<void> {
  const unique = [...new Set(days)];
  if (!unique.length) return;
  await db
    .insertInto('metrics_dirty_days')
    .values(unique.map((day) => ({ app_id: appId, day })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function dirtyDays(db: Db, appId: string): Promise<number[]> {
  const rows = await db.selectFrom('metrics_dirty_days').select('day').where('app_id', '=', appId).execute();
  return rows.map((r) => Number(r.day));
}

/** Forget the marks of these days (after recomputing them). */
export async function clearDirty(db: Db, appId: string, days: readonly number[]): Promise<void> {
  for (let i = 0; i < days.length; i += 300)
    await db
      .deleteFrom('metrics_dirty_days')
      .where('app_id', '=', appId)
      .where('day', 'in', days.slice(i, i + 300))
      .execute();
}
