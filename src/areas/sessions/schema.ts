// The sessions area's contract: the list's query, the session object the list, the export and the transcript
// share, and the transcript's extra fields. The routes validate and serialize with these; the services return
// their Static types, so the two cannot drift.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, Limit, Offset, DateTimeQuery, Literals } from '../../server/schemas.js';
import { FORMAT_QUERY } from '../../server/export.js';
import { SessionVerification } from '../../verify/index.js';

export const SORT_KEYS = ['startedAt', 'cost', 'errors', 'turns', 'steering', 'toolErrorRate'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export const SIGNALS = ['hands-on', 'denied', 'tool-errors', 'provider-errors', 'clean'] as const;
export const ORIGINS = ['interactive', 'agent', 'worker'] as const;

const Score = Type.Object({ label: Type.String(), score: Type.Number() });
export const Tokens = Type.Object({
  input: Type.Integer(),
  output: Type.Integer(),
  cacheRead: Type.Integer(),
  cacheWrite: Type.Integer({ description: 'every cache write, whatever its TTL' }),
  cacheWrite5m: Type.Integer({ description: 'cache writes with the five-minute TTL (priced at the five-minute rate)' }),
  cacheWrite1h: Type.Integer({ description: 'cache writes with the one-hour TTL (priced at the one-hour rate)' }),
});

export const Session = Type.Object({
  actorId: Type.String(),
  agentType: Type.String(),
  branch: Type.String(),
  costStatus: Literals(['complete', 'partial', 'unpriced']),
  costUsd: Type.Number(),
  durationMs: Type.Number(),
  endedAt: DateTime,
  errorCount: Type.Number(),
  models: Type.Array(Type.String()),
  project: Type.String(),
  rejectedToolCallCount: Type.Number(),
  sessionId: Type.String(),
  startedAt: DateTime,
  title: Type.String(),
  toolCallCount: Type.Number(),
  traceId: Type.String(),
  turnCount: Type.Number(),
  unpricedModels: Type.Array(Type.String()),
  updatedAt: DateTime,
  userTurnCount: Type.Number(),
  workerKind: Type.String(),
  actorName: Type.String(),
  contextSourceVerification: Literals(['verified', 'unverified', 'absent']),
  origin: Literals(['interactive', 'agent', 'worker']),
  prOutcomes: Type.Array(
    Type.Object({ prNumber: Type.Number(), prUrl: Type.String(), ciGreen: Score, merged: Score, reverted: Score }),
  ),
  // Additive fields beyond the spec's list.
  repo: Type.String(),
  agentVersion: Nullable(Type.String()),
  captureTier: Type.String(),
  captureSource: Literals(['transcript', 'telemetry'], {
    description:
      "where the figures come from: a synced transcript, or the agent's OpenTelemetry events alone (no transcript " +
      'text)',
  }),
  tokens: Tokens,
  steeringCount: Type.Number(),
  toolErrorCount: Type.Number(),
  apiErrorCount: Type.Number(),
  toolErrorRate: Type.Number(),
  isSubagent: Type.Boolean(),
  parentSessionId: Nullable(Type.String()),
});

export const SessionList = Type.Object({
  sessions: Type.Array(Session),
  total: Type.Integer(),
  repo: Type.String(),
  repoSelection: Literals(['dominant', 'one', 'none', 'all']),
  repositories: Type.Array(Type.Object({ repo: Type.String(), sessions: Type.Integer() })),
  repositoriesTotal: Type.Integer(),
  hiddenRepositories: Type.Integer(),
  hiddenSessions: Type.Integer(),
  scope: Literals(['self', 'team']),
  actors: Type.Array(Type.String()),
  actorNames: Type.Record(Type.String(), Type.String()),
  agentTypes: Type.Array(Type.String()),
  branches: Type.Array(Type.String()),
  models: Type.Array(Type.String()),
  workerKinds: Type.Array(Type.String()),
  originCounts: Type.Object({ agent: Type.Number(), interactive: Type.Number(), worker: Type.Number() }),
});

const AnyObject = Type.Object({}, { additionalProperties: true });

export const SessionDetail = Type.Object({
  ...Session.properties,
  env: AnyObject,
  outcome: Nullable(AnyObject),
  subagent: Nullable(AnyObject),
  chunk: Type.Object({ of: Nullable(Type.Integer()), partsReceived: Type.Array(Type.Integer()) }),
  turns: Type.Array(Type.Unknown()),
  events: Type.Array(Type.Unknown()),
  warnings: Type.Array(Type.Unknown()),
  modelUsage: Type.Array(
    Type.Object({ model: Type.String(), turns: Type.Integer(), costUsd: Type.Number(), tokens: Tokens }),
  ),
  parentTraceId: Nullable(
    Type.String({ description: "the parent session's traceId, when this subagent's parent is stored in this factory" }),
  ),
  subagents: Type.Array(
    Type.Object({
      traceId: Type.String(),
      sessionId: Type.String(),
      subagentId: Nullable(Type.String()),
      title: Type.String(),
      agentType: Type.String(),
      startedAt: DateTime,
      costUsd: Type.Number(),
      costStatus: Literals(['complete', 'partial', 'unpriced']),
    }),
    { description: "this session's subagent sessions (up to 200, oldest first)" },
  ),
  // What the session provably did (API.md §11); absent at the metrics tier; `runs[].command` only at the full tier.
  verification: Type.Optional(SessionVerification),
});

const Filter = (max: number) => Type.Optional(Type.String({ maxLength: max }));

export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Limit(100, 25)),
    offset: Type.Optional(Offset({ default: 0 })),
    repo: Filter(500),
    repoScope: Type.Optional(Type.Literal('all')),
    branch: Filter(500),
    agentType: Filter(500),
    model: Filter(500),
    workerKind: Filter(500),
    actor: Filter(500),
    origin: Filter(500),
    q: Filter(200),
    from: Type.Optional(DateTimeQuery()),
    to: Type.Optional(DateTimeQuery()),
    sort: Type.Optional(Type.Union(SORT_KEYS.map((k) => Type.Literal(k)))),
    dir: Type.Optional(Literals(['asc', 'desc'])),
    signal: Type.Optional(Type.Union(SIGNALS.map((s) => Type.Literal(s)))),
    includeSubagents: Type.Optional(Type.String({ maxLength: 5 })),
    // Declared so that it answers 400 pr_filter_unsupported rather than a generic unknown-parameter error.
    pr: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

const { limit: _limit, offset: _offset, ...exportFilters } = ListQuery.properties;
export const ExportQuery = Type.Object(
  { ...exportFilters, format: Type.Optional(FORMAT_QUERY) },
  { additionalProperties: false },
);

/** Tokens by kind; cache writes as a total and by TTL (`cacheWrite5m + cacheWrite1h = cacheWrite`). */
export type TokensWire = Static<typeof Tokens>;
export type SessionWire = Static<typeof Session>;
export type SessionListWire = Static<typeof SessionList>;
export type SessionDetailWire = Static<typeof SessionDetail>;
export type ListQuery = Static<typeof ListQuery>;
export type ExportQuery = Static<typeof ExportQuery>;
