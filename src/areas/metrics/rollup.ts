// Daily rollups behind the window metrics. Before a read, the factory's rollups are brought up to date
// with the sessions changed since the last refresh (an index probe when nothing changed); a window is then
// its whole UTC days from the rollups plus its partial edge days aggregated from the sessions directly.
//
// Freshness: a session stored with an updated_at newer than the watermark (or more sessions at it) is seen
// by the next read. A session whose transaction commits late with an older updated_at is picked up by the
// periodic re-read of the last LAG_MS of changes, at most RECHECK_MS later.
import type { Db, Dialect } from '../../db/connection.js';
import { addFields, fieldsOf, readCounters, TILE_COUNTERS } from './counters.js';
import * as raw from './store.js';
import * as rs from './rollup-store.js';

const DAY_MS = rs.DAY_MS;
export const RECHECK_MS = 30_000;
export const LAG_MS = 5 * 60_000;
const EVERYTHING = -Number.MAX_SAFE_INTEGER;

export async function refresh(db: Db, dialect: Dialect, appId: string, now: number): Promise<void> {
  const state = await rs.refreshState(db, appId);
  const recheck = !state || now - state.rechecked_at >= RECHECK_MS;
  const watermark = state?.watermark ?? EVERYTHING;
  const changed = await rs.changedSince(db, appId, watermark);
  const nothingNew =
    state !== undefined &&
    (changed.latest === null || (changed.latest === state.watermark && changed.count === state.ties));
  // Days a deletion left stale: a deleted session has no row left to show up as changed (issue 42).
  const dirty = await rs.dirtyDays(db, appId);
  if (nothingNew && !recheck && !dirty.length) return;
  const since = state ? (recheck ? state.watermark - LAG_MS : state.watermark) : EVERYTHING;
  const days = [...new Set([...(await rs.daysChangedSince(db, appId, since)), ...dirty])].sort((a, b) => a - b);
  if (days.length) await rs.recomputeDays(db, dialect, appId, days);
  // Cleared after the recompute, so a crash in between recomputes them again rather than never.
  if (dirty.length) await rs.clearDirty(db, appId, dirty);
  const latest = Math.max(watermark, changed.latest ?? watermark, 0);
  const ties = (await rs.changedSince(db, appId, latest)).count;
  await rs.saveRefreshState(db, {
    app_id: appId,
    watermark: latest,
    ties,
    rechecked_at: recheck ? now : state!.rechecked_at,
  });
}

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
