// Metrics: per-model token spend, fleet tiles with the prior window, two-window comparisons, breakdowns
// and daily trends. The store computes every aggregate in SQL; this module validates windows, derives
// rates from the summed counters and converts micro-dollars to dollars once, at the edge.
import type { Db } from '../../db/connection.js';
import type { FactoryContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { prSpendOfWindows, type PrSpend } from '../prs/service.js';
import { EARLIEST_INSTANT_MS, INSTANT_RANGE_MESSAGE, instantInRange } from '../../server/schemas.js';
import { addFields } from './counters.js';
import { sessionExtent } from './extent.js';
import * as rollup from './rollup.js';
import type {
  BreakdownQuery,
  CompareQuery,
  MetricsWindow,
  Model,
  ModelShare,
  TelemetryQuery,
  WindowQuery,
} from './schema.js';
import * as store from './store.js';
import * as tools from './tools-store.js';
import { telemetryFigures, telemetryReport } from '../otlp/metric-read.js';
import type { MetricFilter } from '../otlp/store.js';
import { actorView } from '../sessions/wire.js';

export const DAY_MS = 86_400_000;
export const DEFAULT_WINDOW_DAYS = 30;
export const MAX_TREND_DAYS = 366;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

function parseInstant(name: string, value: string, endOfDay: boolean): number {
  const ms = Date.parse(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value);
  // Date.parse rolls 2026-02-30 over to March; a date that does not round-trip is not a date.
  if (!Number.isFinite(ms) || (DATE_ONLY.test(value) && new Date(ms).toISOString().slice(0, 10) !== value)) {
    throw apiError('invalid_query_params', `${name} is not a date or date-time.`, {
      details: [{ path: name, message: 'must be a date (YYYY-MM-DD) or an ISO date-time' }],
    });
  }
  const instant = DATE_ONLY.test(value) && endOfDay ? ms + DAY_MS : ms;
  // Answers echo the window as date-times with four-digit years: 9999-12-31 as a `to` date would end at
  // +010000-01-01, 0000-01-01 would start the default window in year -1 (docs/security.md).
  if (!instantInRange(instant)) {
    throw apiError('invalid_query_params', `${name} is out of range: it ${INSTANT_RANGE_MESSAGE}.`, {
      details: [{ path: name, message: INSTANT_RANGE_MESSAGE }],
    });
  }
  return instant;
}

/**
 * A half-open window [from, to). A date-only `to` includes that whole (UTC) day. Absent: `to` is the end of
 * the current UTC day and `from` 30 days earlier (the last 30 calendar days, today included: whole days,
 * which the daily rollups answer alone). from after to → 400 invalid_date_range.
 */
export function windowOf(
  now: number,
  from: string | undefined,
  to: string | undefined,
  names: [string, string] = ['from', 'to'],
): store.Window {
  const end = to === undefined ? (Math.floor(now / DAY_MS) + 1) * DAY_MS : parseInstant(names[1], to, true);
  const start = from === undefined ? end - DEFAULT_WINDOW_DAYS * DAY_MS : parseInstant(names[0], from, false);
  if (start > end) {
    throw apiError(
      'invalid_date_range',
      `${names[0]} (${new Date(start).toISOString()}) is after ${names[1]} (${new Date(end).toISOString()}).`,
      {
        details: [{ path: names[0], message: `must not be after ${names[1]}` }],
      },
    );
  }
  return { from: start, to: end };
}

const usd = (micros: number) => Math.round(micros) / 1_000_000;
const ratio = (num: number, den: number) => (den > 0 ? num / den : null);
const iso = (ms: number) => new Date(ms).toISOString();

const windowWire = (w: store.Window): MetricsWindow => ({ from: iso(w.from), to: iso(w.to) });

function modelWire(m: store.ModelRow): Model {
  return { ...m, costUsd: usd(m.costMicros) };
}

function scopeOf(ctx: FactoryContext, repo: string | undefined): store.Scope {
  return repo === undefined ? { appId: ctx.appId } : { appId: ctx.appId, repo: repo.toLowerCase() };
}

export async function modelSpend(ctx: FactoryContext, q: WindowQuery) {
  const w = windowOf(ctx.clock.now(), q.from, q.to);
  const rows = await rollup.windowModels(ctx.db, scopeOf(ctx, q.repo), w);
  // A session uses several models, so sessions do not sum across them; every other counter does.
  const {
    model: _model,
    sessions: _sessions,
    ...totals
  } = rows.reduce((t, m) => addFields(t, m, store.MODEL_FIELDS), store.modelRowOf({ model: '' }));
  return { window: windowWire(w), models: rows.map(modelWire), totals: { ...totals, costUsd: usd(totals.costMicros) } };
}

export interface TileValues {
  sessions: number;
  subagentSessions: number;
  totalCostUsd: number;
  totalCostMicros: number;
  turns: number;
  toolCalls: number;
  /** Failed tool calls per tool call (top-level sessions). */
  toolErrorRate: number | null;
  /** Sessions with no tool error, no provider error and no denied tool call, per session. */
  cleanSessionRate: number | null;
  /** Sessions where a person steered (a human turn after the first), per session. */
  handsOnRate: number | null;
  /** Denied (rejected) tool calls per tool call. */
  toolDenialRate: number | null;
  activeActors: number;
  /** PRs merged in the window that have linked sessions. */
  mergedPrs: number;
  /** Cost of the sessions linked to the PRs merged in the window ÷ those PRs (null when none merged). */
  costPerMergedPrUsd: number | null;
  /** Cost of the window's sessions linked to no merged PR. */
  unshippedCostUsd: number;
  modelMix: ModelShare[];
}

function modelMix(rows: readonly store.ModelRow[]): ModelShare[] {
  const cost = rows.reduce((n, m) => n + m.costMicros, 0);
  const turns = rows.reduce((n, m) => n + m.turns, 0);
  return rows.map((m) => ({
    model: m.model,
    sessions: m.sessions,
    turns: m.turns,
    costUsd: usd(m.costMicros),
    costShare: ratio(m.costMicros, cost),
    turnShare: ratio(m.turns, turns),
  }));
}

function tileValues(t: store.Tiles, models: readonly store.ModelRow[], spend: PrSpend): TileValues {
  return {
    sessions: t.sessions,
    subagentSessions: t.subagentSessions,
    totalCostUsd: usd(t.costMicros),
    totalCostMicros: t.costMicros,
    turns: t.turns,
    toolCalls: t.toolCalls,
    toolErrorRate: ratio(t.toolErrors, t.toolCalls),
    cleanSessionRate: ratio(t.cleanSessions, t.sessions),
    handsOnRate: ratio(t.handsOnSessions, t.sessions),
    toolDenialRate: ratio(t.rejectedToolCalls, t.toolCalls),
    activeActors: t.activeActors,
    mergedPrs: spend.mergedPrs,
    costPerMergedPrUsd: spend.mergedPrs > 0 ? usd(spend.mergedCostMicros / spend.mergedPrs) : null,
    unshippedCostUsd: usd(t.topCostMicros - spend.shippedCostMicros),
    modelMix: modelMix(models),
  };
}

async function tilesOf(
  ctx: FactoryContext,
  scope: store.Scope,
  windows: readonly store.Window[],
): Promise<TileValues[]> {
  const [tiles, spend, ...models] = await Promise.all([
    rollup.windowTiles(ctx.db, scope, windows),
    prSpendOfWindows(ctx, scope.repo === undefined ? {} : { repo: scope.repo }, windows),
    ...windows.map((w) => rollup.windowModels(ctx.db, scope, w)),
  ]);
  return windows.map((_, i) => tileValues(tiles[i]!, models[i]!, spend[i]!));
}

const NUMERIC_TILES = [
  'sessions',
  'subagentSessions',
  'totalCostUsd',
  'turns',
  'toolCalls',
  'toolErrorRate',
  'cleanSessionRate',
  'handsOnRate',
  'toolDenialRate',
  'activeActors',
  'mergedPrs',
  'costPerMergedPrUsd',
  'unshippedCostUsd',
] as const;
type NumericTile = (typeof NUMERIC_TILES)[number];

export async function overview(ctx: FactoryContext, q: WindowQuery) {
  const current = windowOf(ctx.clock.now(), q.from, q.to);
  // The prior window has the current one's length, but never starts before the epoch (nothing is older, and
  // a start in a negative year is no date-time the answer can carry).
  const prior = { from: Math.max(EARLIEST_INSTANT_MS, current.from - (current.to - current.from)), to: current.from };
  const scope = scopeOf(ctx, q.repo);
  const [[now, before], allTime, telemetryNow, telemetryBefore] = await Promise.all([
    tilesOf(ctx, scope, [current, prior]),
    sessionExtent(ctx.db, scope),
    telemetryFigures(ctx.db, ctx.appId, current),
    telemetryFigures(ctx.db, ctx.appId, prior),
  ]);
  const tiles = {} as Record<NumericTile, { current: number | null; prior: number | null }> & {
    modelMix: { current: ModelShare[]; prior: ModelShare[] };
  };
  for (const k of NUMERIC_TILES) tiles[k] = { current: now![k], prior: before![k] };
  tiles.modelMix = { current: now!.modelMix, prior: before!.modelMix };
  // Agent telemetry is not per repository: the whole factory's, whatever `repo` says (the answer says so).
  const telemetry = { source: 'telemetry' as const, current: telemetryNow, prior: telemetryBefore };
  return { window: windowWire(current), priorWindow: windowWire(prior), tiles, allTime, telemetry };
}

export async function compare(ctx: FactoryContext, q: CompareQuery) {
  const now = ctx.clock.now();
  const a = windowOf(now, q.aFrom, q.aTo, ['aFrom', 'aTo']);
  const b = windowOf(now, q.bFrom, q.bTo, ['bFrom', 'bTo']);
  const [ta, tb] = await tilesOf(ctx, scopeOf(ctx, q.repo), [a, b]);
  const deltas = {} as Record<NumericTile, { absolute: number | null; relative: number | null }>;
  for (const k of NUMERIC_TILES) {
    const x = ta![k];
    const y = tb![k];
    deltas[k] =
      x === null || y === null
        ? { absolute: null, relative: null }
        : { absolute: y - x, relative: x !== 0 ? (y - x) / Math.abs(x) : null };
  }
  return { a: { window: windowWire(a), tiles: ta! }, b: { window: windowWire(b), tiles: tb! }, deltas };
}

export async function breakdown(ctx: FactoryContext, q: BreakdownQuery) {
  const w = windowOf(ctx.clock.now(), q.from, q.to);
  const scope = scopeOf(ctx, q.repo);
  const [result, totalCost] = await Promise.all([
    q.by === 'model'
      ? rollup.windowModels(ctx.db, scope, w).then((rows) => store.modelBreakdown(rows, q.limit))
      : q.by === 'tool'
        ? rollup.windowToolBreakdown(ctx.db, scope, w, q.limit)
        : rollup.windowKeyBreakdown(ctx.db, scope, w, q.by, q.limit),
    rollup.windowCost(ctx.db, scope, w),
  ]);
  return {
    window: windowWire(w),
    by: q.by,
    groups: result.groups,
    rows: result.rows.map((r) => ({
      key: r.key,
      sessions: r.sessions,
      costUsd: usd(r.costMicros),
      costMicros: r.costMicros,
      costShare: ratio(r.costMicros, totalCost),
      turns: r.turns,
      toolCalls: r.toolCalls,
      toolErrors: r.toolErrors,
      rejectedToolCalls: r.rejectedToolCalls,
      toolErrorRate: ratio(r.toolErrors, r.toolCalls),
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
    })),
  };
}

export async function trends(ctx: FactoryContext, q: WindowQuery) {
  const w = windowOf(ctx.clock.now(), q.from, q.to);
  const firstDay = Math.floor(w.from / DAY_MS);
  const lastDay = Math.ceil(w.to / DAY_MS) - 1;
  if (lastDay - firstDay + 1 > MAX_TREND_DAYS) {
    throw apiError('invalid_query_params', `A trend covers at most ${MAX_TREND_DAYS} days.`, {
      details: [{ path: 'from', message: `must be within ${MAX_TREND_DAYS} days of to` }],
    });
  }
  const rows = new Map((await rollup.windowDays(ctx.db, scopeOf(ctx, q.repo), w)).map((r) => [r.day, r]));
  const points = [];
  for (let day = firstDay; day <= lastDay && w.to > w.from; day++) {
    const r = rows.get(day);
    points.push({
      date: new Date(day * DAY_MS).toISOString().slice(0, 10),
      sessions: r?.sessions ?? 0,
      costUsd: usd(r?.costMicros ?? 0),
      costMicros: r?.costMicros ?? 0,
      turns: r?.turns ?? 0,
      toolCalls: r?.toolCalls ?? 0,
      toolErrorRate: r ? ratio(r.toolErrors, r.toolCalls) : null,
      toolDenialRate: r ? ratio(r.rejectedToolCalls, r.toolCalls) : null,
      cleanSessionRate: r ? ratio(r.cleanSessions, r.sessions) : null,
      handsOnRate: r ? ratio(r.handsOnSessions, r.sessions) : null,
      activeActors: r?.activeActors ?? 0,
    });
  }
  return { window: windowWire(w), points };
}

// ---- written at ingest ----------------------------------------------------------------------------------

export interface ToolUsageSession {
  /** The session row id (traceId). */
  id: string;
  orgId: string;
  appId: string;
  startedAt: number;
  repo: string;
  isSubagent: boolean;
}

type ToolTurns = readonly { toolCalls?: readonly { name: string; status: string }[] }[];

/**
 * Keeps the per-tool counters of sessions in step with their stored documents, for the tool breakdown.
 * The sessions ingest calls this once per sync (inside its transaction: pass the transaction as `db`)
 * with every session it stored; calling it again for the same sessions replaces their counters. `replaced`:
 * the sessions that may have counters already (all by default); a session inserted in the same transaction
 * has a new id and none, so the ingest passes only the replaced ones and skips a delete per sync.
 */
export async function recordToolUsage(
  db: Db,
  appId: string,
  sessions: readonly { session: ToolUsageSession; turns: ToolTurns }[],
  replaced: readonly string[] = sessions.map(({ session }) => session.id),
): Promise<tools.SessionToolUsageTable[]> {
  const rows = sessions.flatMap(({ session, turns }) => {
    const byTool = new Map<string, { calls: number; errors: number; rejected: number }>();
    for (const turn of turns) {
      for (const call of turn.toolCalls ?? []) {
        const c = byTool.get(call.name) ?? { calls: 0, errors: 0, rejected: 0 };
        c.calls += 1;
        if (call.status === 'error') c.errors += 1;
        else if (call.status === 'rejected') c.rejected += 1;
        byTool.set(call.name, c);
      }
    }
    return [...byTool].map(([tool, c]) => ({
      session_id: session.id,
      org_id: session.orgId,
      app_id: session.appId,
      tool,
      started_at: session.startedAt,
      repo: session.repo,
      is_subagent: session.isSubagent ? 1 : 0,
      ...c,
    }));
  });
  await tools.replaceToolUsage(db, appId, replaced, rows);
  return rows;
}

/** The counters of one session (see recordToolUsage). */
export async function recordSessionToolUsage(db: Db, session: ToolUsageSession, turns: ToolTurns): Promise<void> {
  await recordToolUsage(db, session.appId, [{ session, turns }]);
}

/**
 * GET /v1/metrics/telemetry: the agents' own figures (OTLP metrics) of a window, filtered by an actor and a
 * custom resource attribute (`team=payments`), in total and by actor, model or an attribute's values.
 * Without sessions.read_team an actor filter is refused and actors are pseudonyms, as on the session list.
 */
export async function telemetry(ctx: FactoryContext, q: TelemetryQuery) {
  const w = windowOf(ctx.clock.now(), q.from, q.to);
  const actors = actorView(ctx);
  if (q.actor !== undefined && !actors.team)
    throw apiError('actor_filter_forbidden', 'Filtering by actor needs the sessions.read_team permission.');
  const eq = q.attribute?.indexOf('=') ?? -1;
  const attribute =
    q.attribute === undefined ? undefined : { key: q.attribute.slice(0, eq), value: q.attribute.slice(eq + 1) };
  const by: MetricFilter['by'] =
    q.by === undefined
      ? undefined
      : q.by === 'actor' || q.by === 'model'
        ? { kind: q.by as 'actor' | 'model' }
        : { kind: 'attribute' as const, key: q.by.slice('attribute:'.length) };
  if (attribute && by?.kind === 'attribute' && by.key !== attribute.key)
    throw apiError('invalid_query_params', 'Invalid querystring: by an attribute, filter by a value of that one', {
      details: [{ path: 'attribute', message: `must name ${by.key}, the attribute of by` }],
    });
  const report = await telemetryReport(ctx.db, ctx.appId, w, {
    ...(q.actor === undefined ? {} : { actor: q.actor }),
    ...(attribute ? { attribute } : {}),
    ...(by ? { by } : {}),
  });
  return {
    window: windowWire(w),
    source: 'telemetry' as const,
    by: q.by ?? null,
    totals: report.totals,
    rows: report.rows.map((r) => (by?.kind === 'actor' ? { ...r, key: actors.id(r.key) } : r)),
  };
}
