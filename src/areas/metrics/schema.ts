// The metrics area's shared answer parts: the routes serialize with them, the service returns their types.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from '../../server/schemas.js';

/** A share or rate: null when its denominator is zero. */
export const Rate = Nullable(Type.Number({ minimum: 0 }));

export const MetricsWindow = Type.Object({ from: DateTime, to: DateTime }, { $id: 'MetricsWindow' });
export type MetricsWindow = Static<typeof MetricsWindow>;

export const Model = Type.Object(
  {
    model: Type.String(),
    sessions: Type.Integer(),
    turns: Type.Integer(),
    unpricedTurns: Type.Integer(),
    inputTokens: Type.Integer(),
    outputTokens: Type.Integer(),
    cacheReadTokens: Type.Integer(),
    cacheWriteTokens: Type.Integer({ description: 'every cache write, whatever its TTL' }),
    cacheWrite5mTokens: Type.Integer({ description: 'cache writes with the five-minute TTL' }),
    cacheWrite1hTokens: Type.Integer({
      description: 'cache writes with the one-hour TTL (priced at the one-hour rate)',
    }),
    costUsd: Type.Number(),
    costMicros: Type.Integer(),
  },
  { $id: 'Model' },
);
export type Model = Static<typeof Model>;

export const ModelShare = Type.Object(
  {
    model: Type.String(),
    sessions: Type.Integer(),
    turns: Type.Integer(),
    costUsd: Type.Number(),
    /** Share of the window's cost (null when nothing was priced). */
    costShare: Rate,
    /** Share of the window's assistant turns. */
    turnShare: Rate,
  },
  { $id: 'ModelShare' },
);
export type ModelShare = Static<typeof ModelShare>;

/** Figures only agent telemetry carries (OTLP metrics, docs/telemetry.md), of one window. */
export const TelemetryFigures = Type.Object({
  linesAdded: Type.Number({ minimum: 0 }),
  linesRemoved: Type.Number({ minimum: 0 }),
  activeTimeSeconds: Type.Number({ minimum: 0 }),
  /** Edit suggestions accepted or rejected (claude_code.code_edit_tool.decision). */
  editDecisions: Type.Number({ minimum: 0 }),
  /** Accepted / decided; null when none was decided. */
  editAcceptanceRate: Rate,
});
