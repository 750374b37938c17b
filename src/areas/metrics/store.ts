// SQL of the metrics: every number is an aggregate computed by the database (GROUP BY, conditional sums)
// over the sessions area's summary rows (`sessions`) and per-model usage rows (`session_model_usage`).
// Nothing here loads sessions into memory; each query is scoped by factory and time window.
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/connection.js';
import type { Database } from '../../db/schema.js';
import {
  BREAKDOWN_COUNTERS,
  type Counters,
  DAY_COUNTERS,
  fieldsOf,
  MODEL_COUNTERS,
  readCounters,
  TILE_COUNTERS,
} from './counters.js';

/** Half-open window [from, to) in epoch ms. */
export interface Window {
  from: number;
  to: number;
}

export interface Scope {
  appId: string;
  /** undefined: every repository; '' sessions without a repository. */
  repo?: string;
}

type SessionsEb = ExpressionBuilder<Database, 'sessions'>;
type UsageEb = ExpressionBuilder<Database, 'session_model_usage'>;

function inWindow(col: string, w: Window) {
  return sql<SqlBool>`(${sql.ref(col)} >= ${w.from} and ${sql.ref(col)} < ${w.to})`;
}

function anyWindow(col: string, windows: readonly Window[]): Expression<SqlBool> {
  return sql<SqlBool>`(${sql.join(
    windows.map((w) => inWindow(col, w)),
    sql` or `,
  )})`;
}

/** Sum of `value` over the rows of window w (0 when none): one column of a conditional aggregate. */
function sumIn(w: Window, value: ReturnType<typeof sql>, col = 'started_at') {
  return sql<number>`coalesce(sum(case when ${inWindow(col, w)} then ${value} else 0 end), 0)`;
}

export type Tiles = Counters<(typeof TILE_COUNTERS)[number]> & { activeActors: number };

/**
 * The overview tiles of each window in one pass over the factory's sessions. Session counts and rates are
 * over top-level sessions; cost includes subagent transcripts (they are spent money of their own).
 */
export async function tiles(db: Db, scope: Scope, windows: readonly Window[]): Promise<Tiles[]> {
  const top = sql`case when is_subagent = 0 then 1 else 0 end`;
  const topOf = (expr: ReturnType<typeof sql>) => sql`case when is_subagent = 0 then ${expr} else 0 end`;
  const clean = sql`case when is_subagent = 0 and tool_error_count = 0 and api_error_count = 0
    and rejected_tool_call_count = 0 then 1 else 0 end`;
  const handsOn = sql`case when is_subagent = 0 and steering_count > 0 then 1 else 0 end`;
  const columns = windows.flatMap((w, i) => [
    sumIn(w, top).as(`w${i}_sessions`),
    sumIn(w, sql`is_subagent`).as(`w${i}_subagent_sessions`),
    sumIn(w, sql`cost_micros`).as(`w${i}_cost_micros`),
    sumIn(w, topOf(sql`cost_micros`)).as(`w${i}_top_cost_micros`),
    sumIn(w, topOf(sql`tool_call_count`)).as(`w${i}_tool_calls`),
    sumIn(w, topOf(sql`tool_error_count`)).as(`w${i}_tool_errors`),
    sumIn(w, topOf(sql`rejected_tool_call_count`)).as(`w${i}_rejected`),
    sumIn(w, clean).as(`w${i}_clean`),
    sumIn(w, handsOn).as(`w${i}_hands_on`),
    sumIn(w, topOf(sql`turn_count`)).as(`w${i}_turns`),
    sql<number>`count(distinct case when is_subagent = 0 and ${inWindow('started_at', w)} then actor_id end)`.as(
      `w${i}_actors`,
    ),
  ]);
  let q = db
    .selectFrom('sessions')
    .select(columns)
    .where('app_id', '=', scope.appId)
    .where(anyWindow('started_at', windows));
  if (scope.repo !== undefined) q = q.where('repo', '=', scope.repo);
  const row = ((await q.executeTakeFirst()) ?? {}) as Record<string, unknown>;
  return windows.map((_, i) => ({
    ...readCounters(row, TILE_COUNTERS, `w${i}_`),
    activeActors: Number(row[`w${i}_actors`] ?? 0),
  }));
}

/** A model's spend; cacheWriteTokens split by TTL into cacheWrite5mTokens and cacheWrite1hTokens. */
export type ModelRow = { model: string; cacheWrite5mTokens: number } & Counters<(typeof MODEL_COUNTERS)[number]>;
/** The fields of a ModelRow that sum across windows and days. */
export const MODEL_FIELDS = [...fieldsOf(MODEL_COUNTERS), 'cacheWrite5mTokens'] as const;

function usageScope(scope: Scope) {
  return (eb: UsageEb) => {
    const parts: Expression<SqlBool>[] = [eb('session_model_usage.app_id', '=', scope.appId)];
    if (scope.repo !== undefined) parts.push(eb('session_model_usage.repo', '=', scope.repo));
    return eb.and(parts);
  };
}

/** Per-model token spend in one window (subagent transcripts included: their tokens were spent too). */
export async function models(db: Db, scope: Scope, w: Window): Promise<ModelRow[]> {
  const rows = await db
    .selectFrom('session_model_usage')
    .select((eb) => [
      'model',
      eb.fn.count<number>('session_id').distinct().as('sessions'),
      eb.fn.sum<number>('turn_count').as('turns'),
      eb.fn.sum<number>('unpriced_turn_count').as('unpriced_turns'),
      eb.fn.sum<number>('input_tokens').as('input_tokens'),
      eb.fn.sum<number>('output_tokens').as('output_tokens'),
      eb.fn.sum<number>('cache_read_tokens').as('cache_read_tokens'),
      eb.fn.sum<number>('cache_write_tokens').as('cache_write_tokens'),
      eb.fn.sum<number>('cache_write_1h_tokens').as('cache_write_1h_tokens'),
      eb.fn.sum<number>('cost_micros').as('cost_micros'),
    ])
    .where(usageScope(scope))
    .where(inWindow('started_at', w))
    .groupBy('model')
    .orderBy(sql`sum(cost_micros)`, 'desc')
    .orderBy('model')
    .execute();
  return rows.map(modelRowOf);
}

/** A per-model aggregate (from the usage rows or from the rollups) as a ModelRow. */
export function modelRowOf(r: { model: string }): ModelRow {
  const counters = readCounters(r, MODEL_COUNTERS);
  return { model: r.model, ...counters, cacheWrite5mTokens: counters.cacheWriteTokens - counters.cacheWrite1hTokens };
}

export type SessionDimension = 'branch' | 'agent_type' | 'worker_kind' | 'repo' | 'origin' | 'actor_id';

export type BreakdownRow = { key: string | null } & Counters<(typeof BREAKDOWN_COUNTERS)[number]>;

/** Top-level sessions of the window grouped by one of their columns, costliest first. */
export async function breakdownBySession(
  db: Db,
  scope: Scope,
  w: Window,
  dimension: SessionDimension,
  limit: number,
): Promise<{ rows: BreakdownRow[]; groups: number }> {
  const base = (eb: SessionsEb) => {
    const parts: Expression<SqlBool>[] = [
      eb('app_id', '=', scope.appId),
      eb('is_subagent', '=', 0),
      inWindow('started_at', w),
    ];
    if (scope.repo !== undefined) parts.push(eb('repo', '=', scope.repo));
    return eb.and(parts);
  };
  const [rows, count] = await Promise.all([
    db
      .selectFrom('sessions')
      .select((eb) => [
        sql<string | null>`${sql.ref(dimension)}`.as('key'),
        eb.fn.countAll<number>().as('sessions'),
        eb.fn.sum<number>('cost_micros').as('cost_micros'),
        eb.fn.sum<number>('turn_count').as('turns'),
        eb.fn.sum<number>('tool_call_count').as('tool_calls'),
        eb.fn.sum<number>('tool_error_count').as('tool_errors'),
        eb.fn.sum<number>('rejected_tool_call_count').as('rejected'),
        eb.fn.sum<number>('input_tokens').as('input_tokens'),
        eb.fn.sum<number>('output_tokens').as('output_tokens'),
      ])
      .where(base)
      .groupBy(sql.ref(dimension))
      .orderBy(sql`sum(cost_micros)`, 'desc')
      .orderBy(sql`count(*)`, 'desc')
      .orderBy(sql.ref(dimension))
      .limit(limit)
      .execute(),
    db
      .selectFrom('sessions')
      // count(distinct) skips null; a null group (e.g. no worker kind) is a group of its own.
      .select(
        sql<number>`count(distinct ${sql.ref(dimension)})
          + max(case when ${sql.ref(dimension)} is null then 1 else 0 end)`.as('groups'),
      )
      .where(base)
      .executeTakeFirst(),
  ]);
  return {
    groups: Number(count?.groups ?? 0),
    rows: rows.map((r) => ({ key: r.key, ...readCounters(r, BREAKDOWN_COUNTERS) })),
  };
}

/** Model breakdown rows from the per-model spend of the window (subagent transcripts included). */
export function modelBreakdown(all: readonly ModelRow[], limit: number): { rows: BreakdownRow[]; groups: number } {
  return {
    groups: all.length,
    // A model has no tool calls of its own: those counters read 0.
    rows: all.slice(0, limit).map(({ model, sessions, costMicros, turns, inputTokens, outputTokens }) => ({
      ...readCounters({}, BREAKDOWN_COUNTERS),
      key: model,
      sessions,
      costMicros,
      turns,
      inputTokens,
      outputTokens,
    })),
  };
}

export type DayRow = { day: number; activeActors: number } & Counters<(typeof DAY_COUNTERS)[number]>;

const DAY_MS = 86_400_000;

/** Daily (UTC) aggregates of the window. */
export async function days(db: Db, scope: Scope, w: Window): Promise<DayRow[]> {
  const day = sql<number>`(started_at / ${sql.lit(DAY_MS)})`;
  let q = db
    .selectFrom('sessions')
    .select([
      day.as('day'),
      sql<number>`sum(case when is_subagent = 0 then 1 else 0 end)`.as('sessions'),
      sql<number>`sum(cost_micros)`.as('cost_micros'),
      sql<number>`sum(case when is_subagent = 0 then turn_count else 0 end)`.as('turns'),
      sql<number>`sum(case when is_subagent = 0 then tool_call_count else 0 end)`.as('tool_calls'),
      sql<number>`sum(case when is_subagent = 0 then tool_error_count else 0 end)`.as('tool_errors'),
      sql<number>`sum(case when is_subagent = 0 then rejected_tool_call_count else 0 end)`.as('rejected'),
      sql<number>`sum(case when is_subagent = 0 and tool_error_count = 0 and api_error_count = 0
        and rejected_tool_call_count = 0 then 1 else 0 end)`.as('clean'),
      sql<number>`sum(case when is_subagent = 0 and steering_count > 0 then 1 else 0 end)`.as('hands_on'),
      sql<number>`count(distinct case when is_subagent = 0 then actor_id end)`.as('actors'),
    ])
    .where('app_id', '=', scope.appId)
    .where(inWindow('started_at', w));
  if (scope.repo !== undefined) q = q.where('repo', '=', scope.repo);
  const rows = await q.groupBy(day).orderBy(day).execute();
  return rows.map((r) => dayRowOf(r, Number(r.actors ?? 0)));
}

/** A day aggregate (from the sessions or from the rollups) as a DayRow. */
export function dayRowOf(r: { day: unknown }, activeActors: number): DayRow {
  return { day: Number(r.day), ...readCounters(r, DAY_COUNTERS), activeActors };
}
