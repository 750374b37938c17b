// Metrics: GET /v1/metrics/models|overview|compare|breakdown|trends (metrics.read, observability-read bucket).
import { Type, type TSchema } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { Data, DateTime, Nullable, Ref } from '../../server/schemas.js';
import {
  BreakdownQuery,
  CompareQuery,
  MetricsWindow,
  Model,
  ModelShare,
  Rate,
  TelemetryFigures,
  TelemetryQuery,
  WindowQuery,
} from './schema.js';
import { breakdown, compare, modelSpend, overview, telemetry, trends } from './service.js';

const TelemetryReportFigures = Type.Object({
  ...TelemetryFigures.properties,
  costUsd: Type.Number({ minimum: 0, description: 'claude_code.cost.usage, as the agent reported it' }),
});

const TileFields = {
  sessions: Type.Integer(),
  subagentSessions: Type.Integer(),
  totalCostUsd: Type.Number(),
  turns: Type.Integer(),
  toolCalls: Type.Integer(),
  toolErrorRate: Rate,
  cleanSessionRate: Rate,
  handsOnRate: Rate,
  toolDenialRate: Rate,
  activeActors: Type.Integer(),
  mergedPrs: Type.Integer({ description: 'PRs merged in the window that have at least one linked top-level session.' }),
  costPerMergedPrUsd: Nullable(
    Type.Number({
      description:
        'Cost of the distinct top-level sessions linked to the PRs merged in the window ÷ mergedPrs; null when no ' +
        'such PR merged.',
    }),
  ),
  unshippedCostUsd: Type.Number({
    description:
      'Cost of the top-level sessions started in the window that link to no merged PR (by name, commit or branch).',
  }),
};
const Tiles = Type.Object({ ...TileFields, totalCostMicros: Type.Integer(), modelMix: Type.Array(Ref(ModelShare)) });

function pairOf<T extends TSchema>(schema: T) {
  return Type.Object({ current: schema, prior: schema });
}

const OverviewTiles = Type.Object({
  ...Object.fromEntries(Object.entries(TileFields).map(([k, v]) => [k, pairOf(Nullable(v))])),
  modelMix: pairOf(Type.Array(Ref(ModelShare))),
});

// Additive (issue 45): the factory's sessions whatever the window, so an empty window can say where they are.
const AllTime = Type.Object(
  {
    sessions: Type.Integer({ description: 'Top-level sessions of the scope (repo when given), every start time.' }),
    firstStartedAt: Nullable(DateTime),
    lastStartedAt: Nullable(DateTime),
  },
  {
    description:
      'The sessions of the scope whatever the window: how many, the first and the last start (null when none).',
  },
);

const Delta = Type.Object({ absolute: Nullable(Type.Number()), relative: Nullable(Type.Number()) });

const BreakdownRow = Type.Object({
  key: Nullable(Type.String()),
  sessions: Type.Integer(),
  costUsd: Type.Number(),
  costMicros: Type.Integer(),
  costShare: Rate,
  turns: Type.Integer(),
  toolCalls: Type.Integer(),
  toolErrors: Type.Integer(),
  rejectedToolCalls: Type.Integer(),
  toolErrorRate: Rate,
  inputTokens: Type.Integer(),
  outputTokens: Type.Integer(),
});

const TrendPoint = Type.Object({
  date: Type.String({ format: 'date' }),
  sessions: Type.Integer(),
  costUsd: Type.Number(),
  costMicros: Type.Integer(),
  turns: Type.Integer(),
  toolCalls: Type.Integer(),
  toolErrorRate: Rate,
  toolDenialRate: Rate,
  cleanSessionRate: Rate,
  handsOnRate: Rate,
  activeActors: Type.Integer(),
});

const optional = <T extends Record<string, unknown>>(q: T) =>
  Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };

/** Aggregates that never write: they may read the replica (src/server/read-routing.ts). */
const REPLICA = { reads: 'replica' } as const;

export const metricsRoutes: AreaRoutes = (app) => {
  app.get(
    '/metrics/models',
    {
      config: REPLICA,
      schema: {
        summary: 'Per-model token spend in a window',
        tags: ['metrics'],
        description:
          'Sessions, assistant turns, input/output/cache-read/cache-write tokens and cost per model, costliest ' +
          'first. Default window: the last 30 days. Subagent transcripts count (their tokens were spent).',
        querystring: WindowQuery,
        response: {
          200: Data(
            Type.Object({
              window: Ref(MetricsWindow),
              models: Type.Array(Ref(Model)),
              totals: Type.Object({
                ...Model.properties,
                model: Type.Optional(Type.String()),
                sessions: Type.Optional(Type.Integer()),
              }),
            }),
          ),
        },
      },
    },
    async (req) => ({ data: await modelSpend(factoryContext(req.ctx), optional(req.query)) }),
  );

  app.get(
    '/metrics/overview',
    {
      config: REPLICA,
      schema: {
        summary: 'Fleet tiles of a window beside the window of equal length before it',
        tags: ['metrics'],
        description:
          'Each tile is { current, prior }. Session counts and rates are over top-level sessions; cost includes ' +
          'subagent transcripts. Rates are null when their denominator is 0.',
        querystring: WindowQuery,
        response: {
          200: Data(
            Type.Object({
              window: Ref(MetricsWindow),
              priorWindow: Ref(MetricsWindow),
              tiles: OverviewTiles,
              allTime: AllTime,
              telemetry: Type.Object(
                {
                  source: Type.Literal('telemetry'),
                  current: Nullable(TelemetryFigures),
                  prior: Nullable(TelemetryFigures),
                },
                {
                  description:
                    "Lines changed, active time and edit acceptance from the agents' own telemetry (OTLP metrics, " +
                    'the whole factory whatever `repo` says, by the UTC days the window touches); null when none was ' +
                    'received in the window.',
                },
              ),
            }),
          ),
        },
      },
    },
    async (req) => ({ data: await overview(factoryContext(req.ctx), optional(req.query)) }),
  );

  app.get(
    '/metrics/compare',
    {
      config: REPLICA,
      schema: {
        summary: 'The tiles of two arbitrary windows side by side, with deltas (b − a)',
        tags: ['metrics'],
        querystring: CompareQuery,
        response: {
          200: Data(
            Type.Object({
              a: Type.Object({ window: Ref(MetricsWindow), tiles: Tiles }),
              b: Type.Object({ window: Ref(MetricsWindow), tiles: Tiles }),
              deltas: Type.Object(Object.fromEntries(Object.keys(TileFields).map((k) => [k, Delta]))),
            }),
          ),
        },
      },
    },
    async (req) => ({ data: await compare(factoryContext(req.ctx), optional(req.query)) }),
  );

  app.get(
    '/metrics/breakdown',
    {
      config: REPLICA,
      schema: {
        summary: 'Sessions, cost and tool behaviour grouped by one dimension',
        tags: ['metrics'],
        description:
          '`by`: branch, agent_type, worker_kind, model, tool, repo or origin. Costliest groups first (tool: most ' +
          'calls first); `groups` is the number of groups before `limit`.',
        querystring: BreakdownQuery,
        response: {
          200: Data(
            Type.Object({
              window: Ref(MetricsWindow),
              by: Type.String(),
              groups: Type.Integer(),
              rows: Type.Array(BreakdownRow),
            }),
          ),
        },
      },
    },
    async (req) => {
      const { dimension, by, ...rest } = req.query;
      if (by !== undefined && dimension !== undefined && by !== dimension) {
        throw apiError('invalid_query_params', 'Invalid querystring: dimension is an alias of by; they differ', {
          details: [{ path: 'dimension', message: 'must equal by' }],
        });
      }
      const chosen = by ?? dimension;
      if (chosen === undefined) {
        throw apiError(
          'invalid_query_params',
          "Invalid querystring: must have required property 'by' (or its alias dimension)",
          { details: [{ path: 'by', message: 'is required' }] },
        );
      }
      return {
        data: await breakdown(factoryContext(req.ctx), {
          ...optional({ ...rest, by: chosen }),
          limit: rest.limit ?? 25,
        }),
      };
    },
  );

  app.get(
    '/metrics/telemetry',
    {
      schema: {
        summary: "The agents' own figures (OTLP metrics) by actor, model or resource attribute",
        tags: ['metrics'],
        description:
          'Lines added and removed, active time, edit decisions and the share accepted, and the cost the agent ' +
          "reported, from Claude Code's usage metrics (docs/telemetry.md), by the UTC days the window touches. " +
          '`actor` (sessions.read_team, else 400 actor_filter_forbidden) and `attribute` (`key=value`, a custom ' +
          'resource attribute such as team=payments) filter; `by` (`actor`, `model` or `attribute:<key>`) adds ' +
          'a row a group, costliest first (without sessions.read_team actors are pseudonyms). By an attribute, ' +
          '`attribute` may only name a value of that one (else 400). Attribute figures count the points received ' +
          'since the gateway kept attributes (migration 0046); `totals` is null when nothing matched.',
        querystring: TelemetryQuery,
        response: {
          200: Data(
            Type.Object({
              window: Ref(MetricsWindow),
              source: Type.Literal('telemetry'),
              by: Nullable(Type.String()),
              totals: Nullable(TelemetryReportFigures),
              rows: Type.Array(Type.Object({ key: Type.String(), ...TelemetryReportFigures.properties })),
            }),
          ),
        },
      },
    },
    async (req) => ({ data: await telemetry(factoryContext(req.ctx), optional(req.query)) }),
  );

  app.get(
    '/metrics/trends',
    {
      config: REPLICA,
      schema: {
        summary: 'Daily (UTC) points of a window, at most 366 days',
        tags: ['metrics'],
        querystring: WindowQuery,
        response: { 200: Data(Type.Object({ window: Ref(MetricsWindow), points: Type.Array(TrendPoint) })) },
      },
    },
    async (req) => ({ data: await trends(factoryContext(req.ctx), optional(req.query)) }),
  );
};
