// The metrics area's shared answer parts: the routes serialize with them, the service returns their types.
import { Type, type Static } from 'typebox';
import { DateTime, Limit, Nullable } from '../../server/schemas.js';

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

/** A date (a whole UTC day) or a date-time with its offset. */
const Instant = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$',
  maxLength: 40,
  description: 'YYYY-MM-DD (a date-only `to` includes that whole UTC day) or an ISO date-time with Z or an offset.',
});
const Repo = Type.String({
  maxLength: 500,
  description: 'owner/repo; empty for sessions without a repository; absent for all repositories.',
});

/** The querystring of models, overview and trends: a window and a repository. */
export const WindowQuery = Type.Object(
  { from: Type.Optional(Instant), to: Type.Optional(Instant), repo: Type.Optional(Repo) },
  { additionalProperties: false },
);
export type WindowQuery = Static<typeof WindowQuery>;

export const CompareQuery = Type.Object(
  {
    aFrom: Type.Optional(Instant),
    aTo: Type.Optional(Instant),
    bFrom: Type.Optional(Instant),
    bTo: Type.Optional(Instant),
    repo: Type.Optional(Repo),
  },
  { additionalProperties: false },
);
export type CompareQuery = Static<typeof CompareQuery>;

export const DIMENSIONS = ['branch', 'agent_type', 'worker_kind', 'model', 'tool', 'repo', 'origin'] as const;

export const BreakdownQuery = Type.Object(
  {
    ...WindowQuery.properties,
    by: Type.Optional(Type.Union(DIMENSIONS.map((d) => Type.Literal(d)))),
    dimension: Type.Optional(
      Type.Union(
        DIMENSIONS.map((d) => Type.Literal(d)),
        { description: 'An alias of `by` (OuterLayer clients send it); give one of the two, or both equal.' },
      ),
    ),
    limit: Type.Optional(Limit(100, 25)),
  },
  { additionalProperties: false },
);
/** What the service reads: `by` resolved from its alias `dimension` by the route, `limit` with its default. */
export type BreakdownQuery = Omit<Static<typeof BreakdownQuery>, 'dimension'> &
  Required<Pick<Static<typeof BreakdownQuery>, 'by' | 'limit'>>;
export type Dimension = BreakdownQuery['by'];

export const TelemetryQuery = Type.Object(
  {
    from: Type.Optional(Instant),
    to: Type.Optional(Instant),
    actor: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    attribute: Type.Optional(
      Type.String({ pattern: '^[^=]{1,200}=.{1,500}$', maxLength: 701, description: 'key=value' }),
    ),
    by: Type.Optional(
      Type.String({
        pattern: '^(actor|model|attribute:.{1,200})$',
        maxLength: 210,
        description: 'actor, model or attribute:<key>',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TelemetryQuery = Static<typeof TelemetryQuery>;
