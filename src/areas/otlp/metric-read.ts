// What the Overview shows of the telemetry metrics a factory received (metrics.ts): lines changed, active time
// and the share of edit suggestions accepted, summed over the UTC days a window covers.
import type { Db } from '../../db/connection.js';
import type { Static } from 'typebox';
import type { TelemetryFigures } from '../metrics/schema.js';
import { metricSums, metricTotals, type MetricFilter } from './store.js';

export type TelemetryFiguresWire = Static<typeof TelemetryFigures>;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The figures of a window [from, to) (Unix ms), by the days it touches; null when no metric was received. */
export async function telemetryFigures(
  db: Db,
  appId: string,
  w: { from: number; to: number },
): Promise<TelemetryFiguresWire | null> {
  const rows = await metricTotals(db, appId, day(w.from), day(Math.max(w.from, w.to - 1)));
  if (!rows.length) return null;
  const { costUsd: _reported, ...figures } = figuresOf(rows);
  return figures;
}

type Sum = { metric: string; variant: string; value: number };

/** The figures of a set of sums, and the cost the agent reported (claude_code.cost.usage, USD). */
function figuresOf(rows: readonly Sum[]): TelemetryFiguresWire & { costUsd: number } {
  const sum = (metric: string, variant?: string) =>
    rows
      .filter((r) => r.metric === metric && (variant === undefined || r.variant === variant))
      .reduce((n, r) => n + r.value, 0);
  const accepted = sum('code_edit_tool.decision', 'accept');
  const rejected = sum('code_edit_tool.decision', 'reject');
  return {
    linesAdded: sum('lines_of_code.count', 'added'),
    linesRemoved: sum('lines_of_code.count', 'removed'),
    activeTimeSeconds: sum('active_time.total'),
    editDecisions: accepted + rejected,
    editAcceptanceRate: accepted + rejected > 0 ? accepted / (accepted + rejected) : null,
    costUsd: Math.round(sum('cost.usage') * 1e6) / 1e6,
  };
}

/**
 * The telemetry figures of a window [from, to) (Unix ms, by the UTC days it touches), of one actor and one
 * attribute value when asked, in total and by actor, model or an attribute's value when asked (costliest first).
 */
export async function telemetryReport(
  db: Db,
  appId: string,
  w: { from: number; to: number },
  f: MetricFilter,
): Promise<{ totals: ReturnType<typeof figuresOf> | null; rows: (ReturnType<typeof figuresOf> & { key: string })[] }> {
  const from = day(w.from);
  const to = day(Math.max(w.from, w.to - 1));
  const { by, ...filter } = f;
  const all = await metricSums(db, appId, from, to, filter);
  const totals = all.length ? figuresOf(all) : null;
  if (!by) return { totals, rows: [] };
  const grouped = new Map<string, Sum[]>();
  for (const r of await metricSums(db, appId, from, to, f)) {
    const list = grouped.get(r.group ?? '') ?? [];
    list.push(r);
    grouped.set(r.group ?? '', list);
  }
  const rows = [...grouped].map(([key, list]) => ({ key, ...figuresOf(list) }));
  rows.sort((x, y) => y.costUsd - x.costUsd || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  return { totals, rows };
}
