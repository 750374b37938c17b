// Daily rollups behind the window metrics: a window is its whole UTC days from the rollups (kept current by
// every write, rollup-write.ts) plus its partial edge days aggregated from the sessions directly.
import type { Db } from '../../db/connection.js';
import { addFields, fieldsOf, readCounters, TILE_COUNTERS } from './counters.js';
import * as raw from './store.js';
import * as rs from './rollup-store.js';
import { breakdownByTool } from './tools-store.js';

const DAY_MS = rs.DAY_MS;

interface Split {
  days: rs.DayRange | null;
  edges: raw.Window[];
}

/** Whole UTC days inside the window, and the partial days at its edges. */
export function split(w: raw.Window): Split {
  const first = Math.ceil(w.from / DAY_MS);
  const end = Math.floor(w.to / DAY_MS);
  if (first >= end) return { days: null, edges: w.to > w.from ? [w] : [] };
  const edges: raw.Window[] = [];
  if (w.from < first * DAY_MS) edges.push({ from: w.from, to: first * DAY_MS });
  if (end * DAY_MS < w.to) edges.push({ from: end * DAY_MS, to: w.to });
  return { days: { first, end }, edges };
}

const ZERO: raw.Tiles = { ...readCounters({}, TILE_COUNTERS), activeActors: 0 };
const TILE_FIELDS = fieldsOf(TILE_COUNTERS);

/** The tiles of each window (rollups must be refreshed first). */
export async function windowTiles(db: Db, scope: raw.Scope, windows: readonly raw.Window[]): Promise<raw.Tiles[]> {
  const splits = windows.map(split);
  const withDays = splits.flatMap((s, i) => (s.days ? [{ i, days: s.days }] : []));
  const allEdges = splits.flatMap((s, i) => s.edges.map((e) => ({ i, e })));
  const [dayTiles, edgeTiles, actorCounts] = await Promise.all([
    rs.dayTiles(
      db,
      scope,
      withDays.map((d) => d.days),
    ),
    // One statement per edge: a single started_at range is an index range; OR-ed ranges would scan.
    Promise.all(allEdges.map(async (x) => (await raw.tiles(db, scope, [x.e]))[0]!)),
    Promise.all(splits.map((s) => rs.actors(db, scope, s.days, s.edges))),
  ]);
  const out = windows.map((): raw.Tiles => ({ ...ZERO }));
  withDays.forEach((d, k) => {
    out[d.i] = addFields(out[d.i]!, dayTiles[k]!, TILE_FIELDS);
  });
  allEdges.forEach((x, k) => {
    out[x.i] = addFields(out[x.i]!, edgeTiles[k]!, TILE_FIELDS);
  });
  actorCounts.forEach((n, i) => {
    out[i]!.activeActors = n;
  });
  return out;
}

/** The cost of a window's sessions (subagents included), without the distinct actors the tiles count. */
export async function windowCost(db: Db, scope: raw.Scope, w: raw.Window): Promise<number> {
  const s = split(w);
  const parts = await Promise.all([
    s.days ? rs.dayTiles(db, scope, [s.days]) : Promise.resolve([]),
    ...s.edges.map((e) => raw.tiles(db, scope, [e])),
  ]);
  return parts.flat().reduce((n, t) => n + t.costMicros, 0);
}

/** Per-model spend of a window, costliest first (rollups must be refreshed first). */
export async function windowModels(db: Db, scope: raw.Scope, w: raw.Window): Promise<raw.ModelRow[]> {
  const s = split(w);
  const parts = await Promise.all([
    s.days ? rs.dayModels(db, scope, s.days) : Promise.resolve([]),
    ...s.edges.map((e) => raw.models(db, scope, e)),
  ]);
  const byModel = new Map<string, raw.ModelRow>();
  for (const m of parts.flat()) {
    const acc = byModel.get(m.model);
    byModel.set(m.model, acc ? addFields(acc, m, raw.MODEL_FIELDS) : m);
  }
  return [...byModel.values()].sort(
    (a, b) => b.costMicros - a.costMicros || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0),
  );
}

/** Daily rows of a window (rollups must be refreshed first). */
export async function windowDays(db: Db, scope: raw.Scope, w: raw.Window): Promise<raw.DayRow[]> {
  const s = split(w);
  const parts = await Promise.all([
    s.days ? rs.dayRows(db, scope, s.days) : Promise.resolve([]),
    ...s.edges.map((e) => raw.days(db, scope, e)),
  ]);
  return parts.flat().sort((a, b) => a.day - b.day);
}

/** A breakdown by a session column: whole-day windows from the rollups, others from the sessions. */
export function windowKeyBreakdown(
  db: Db,
  scope: raw.Scope,
  w: raw.Window,
  dimension: Exclude<raw.SessionDimension, 'actor_id'>,
  limit: number,
): Promise<{ rows: raw.BreakdownRow[]; groups: number }> {
  const s = split(w);
  // Ranked groups do not add across parts: a window with partial days is aggregated whole from the sessions.
  if (s.edges.length || !s.days) return raw.breakdownBySession(db, scope, w, dimension, limit);
  return rs.dayKeyBreakdown(db, scope, s.days, dimension, limit);
}

/** The tool breakdown: whole-day windows from the rollups, others from the per-session tool rows. */
export function windowToolBreakdown(
  db: Db,
  scope: raw.Scope,
  w: raw.Window,
  limit: number,
): Promise<{ rows: raw.BreakdownRow[]; groups: number }> {
  const s = split(w);
  if (s.edges.length || !s.days) return breakdownByTool(db, scope, w, limit);
  return rs.dayToolBreakdown(db, scope, s.days, limit);
}
