// What the Overview shows of the telemetry metrics a factory received (metrics.ts): lines changed, active time
// and the share of edit suggestions accepted, summed over the UTC days a window covers.
import type { Db } from '../../db/connection.js';
import type { Static } from 'typebox';
import type { TelemetryFigures } from '../metrics/schema.js';
import { metricTotals } from './store.js';

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
  };
}
