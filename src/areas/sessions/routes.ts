// Sessions: GET /v1/sessions (the filtered list with its wrapper) and GET /v1/sessions/{traceId} (the full
// transcript). Both read-only, rate limited per org.
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, DateTime, Nullable, Uuid, Limit, Offset, DateTimeQuery } from '../../server/schemas.js';
import { type CsvColumn, csvLines, exportResponse, FORMAT_QUERY, jsonArray, sendDownload } from '../../server/export.js';
import { SessionVerification } from '../../verify/index.js';
import { verificationOfSession } from '../verdict/session.js';
import { exportSessions, getSession, listSessions, SIGNALS, SORT_KEYS, type SessionWire } from './service.js';

const Score = Type.Object({ label: Type.String(), score: Type.Number() });
const Tokens = Type.Object({
  input: Type.Integer(),
  output: Type.Integer(),
  cacheRead: Type.Integer(),
  cacheWrite: Type.Integer({ description: 'every cache write, whatever its TTL' }),
  cacheWrite5m: Type.Integer({ description: 'cache writes with the five-minute TTL (priced at the five-minute rate)' }),
  cacheWrite1h: Type.Integer({ description: 'cache writes with the one-hour TTL (priced at the one-hour rate)' }),
});

const Session = Type.Object({
  actorId: Type.String(),
  agentType: Type.String(),
  branch: Type.String(),
  costStatus: Type.Union([Type.Literal('complete'), Type.Literal('partial'), Type.Literal('unpriced')]),
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
  contextSourceVerification: Type.Union([Type.Literal('verified'), Type.Literal('unverified'), Type.Literal('absent')]),
  origin: Type.Union([Type.Literal('interactive'), Type.Literal('agent'), Type.Literal('worker')]),
  prOutcomes: Type.Array(Type.Object({ prNumber: Type.Number(), prUrl: Type.String(), ciGreen: Score, merged: Score, reverted: Score })),
  // Additive fields beyond the spec's list.
  repo: Type.String(),
  agentVersion: Nullable(Type.String()),
  captureTier: Type.String(),
  tokens: Tokens,
  steeringCount: Type.Number(),
  toolErrorCount: Type.Number(),
  apiErrorCount: Type.Number(),
  toolErrorRate: Type.Number(),
  isSubagent: Type.Boolean(),
  parentSessionId: Nullable(Type.String()),
});

const SessionList = Type.Object({
  sessions: Type.Array(Session),
  total: Type.Integer(),
  repo: Type.String(),
  repoSelection: Type.Union([Type.Literal('dominant'), Type.Literal('one'), Type.Literal('none'), Type.Literal('all')]),
  repositories: Type.Array(Type.Object({ repo: Type.String(), sessions: Type.Integer() })),
  repositoriesTotal: Type.Integer(),
  hiddenRepositories: Type.Integer(),
  hiddenSessions: Type.Integer(),
  scope: Type.Union([Type.Literal('self'), Type.Literal('team')]),
  actors: Type.Array(Type.String()),
  actorNames: Type.Record(Type.String(), Type.String()),
  agentTypes: Type.Array(Type.String()),
  branches: Type.Array(Type.String()),
  models: Type.Array(Type.String()),
  workerKinds: Type.Array(Type.String()),
  originCounts: Type.Object({ agent: Type.Number(), interactive: Type.Number(), worker: Type.Number() }),
});

const AnyObject = Type.Object({}, { additionalProperties: true });

const SessionDetail = Type.Object({
  ...Session.properties,
  env: AnyObject,
  outcome: Nullable(AnyObject),
  subagent: Nullable(AnyObject),
  chunk: Type.Object({ of: Nullable(Type.Integer()), partsReceived: Type.Array(Type.Integer()) }),
  turns: Type.Array(Type.Unknown()),
  events: Type.Array(Type.Unknown()),
  warnings: Type.Array(Type.Unknown()),
  modelUsage: Type.Array(Type.Object({ model: Type.String(), turns: Type.Integer(), costUsd: Type.Number(), tokens: Tokens })),
  parentTraceId: Nullable(Type.String({ description: "the parent session's traceId, when this subagent's parent is stored in this factory" })),
  subagents: Type.Array(Type.Object({
    traceId: Type.String(), sessionId: Type.String(), subagentId: Nullable(Type.String()), title: Type.String(), agentType: Type.String(),
    startedAt: DateTime, costUsd: Type.Number(),
    costStatus: Type.Union([Type.Literal('complete'), Type.Literal('partial'), Type.Literal('unpriced')]),
  }), { description: 'this session\'s subagent sessions (up to 200, oldest first)' }),
  // What the session provably did (API.md §11); absent at the metrics tier; `runs[].command` only at the full tier.
  verification: Type.Optional(SessionVerification),
});

const Filter = (max: number) => Type.Optional(Type.String({ maxLength: max }));

const ListQuery = Type.Object({
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
  dir: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  signal: Type.Optional(Type.Union(SIGNALS.map((s) => Type.Literal(s)))),
  includeSubagents: Type.Optional(Type.String({ maxLength: 5 })),
  // Declared so that it answers 400 pr_filter_unsupported rather than a generic unknown-parameter error.
  pr: Type.Optional(Type.String({ maxLength: 200 })),
}, { additionalProperties: false });

const { limit: _limit, offset: _offset, ...exportFilters } = ListQuery.properties;
const ExportQuery = Type.Object({ ...exportFilters, format: Type.Optional(FORMAT_QUERY) }, { additionalProperties: false });

/** The CSV columns of a session export (the JSON export has the list's objects). */
export const SESSION_CSV_COLUMNS: CsvColumn<SessionWire>[] = [
  { name: 'traceId', value: (s) => s.traceId },
  { name: 'sessionId', value: (s) => s.sessionId },
  { name: 'startedAt', value: (s) => s.startedAt },
  { name: 'endedAt', value: (s) => s.endedAt },
  { name: 'durationMs', value: (s) => s.durationMs },
  { name: 'actorId', value: (s) => s.actorId },
  { name: 'actorName', value: (s) => s.actorName },
  { name: 'agentType', value: (s) => s.agentType },
  { name: 'agentVersion', value: (s) => s.agentVersion },
  { name: 'origin', value: (s) => s.origin },
  { name: 'workerKind', value: (s) => s.workerKind },
  { name: 'repo', value: (s) => s.repo },
  { name: 'branch', value: (s) => s.branch },
  { name: 'title', value: (s) => s.title },
  { name: 'models', value: (s) => s.models.join(' ') },
  { name: 'costUsd', value: (s) => s.costUsd },
  { name: 'costStatus', value: (s) => s.costStatus },
  { name: 'inputTokens', value: (s) => s.tokens.input },
  { name: 'outputTokens', value: (s) => s.tokens.output },
  { name: 'cacheReadTokens', value: (s) => s.tokens.cacheRead },
  { name: 'cacheWriteTokens', value: (s) => s.tokens.cacheWrite },
  { name: 'turnCount', value: (s) => s.turnCount },
  { name: 'userTurnCount', value: (s) => s.userTurnCount },
  { name: 'steeringCount', value: (s) => s.steeringCount },
  { name: 'toolCallCount', value: (s) => s.toolCallCount },
  { name: 'toolErrorCount', value: (s) => s.toolErrorCount },
  { name: 'rejectedToolCallCount', value: (s) => s.rejectedToolCallCount },
  { name: 'apiErrorCount', value: (s) => s.apiErrorCount },
  { name: 'errorCount', value: (s) => s.errorCount },
  { name: 'isSubagent', value: (s) => s.isSubagent },
  { name: 'parentSessionId', value: (s) => s.parentSessionId },
  { name: 'contextSourceVerification', value: (s) => s.contextSourceVerification },
  { name: 'prs', value: (s) => s.prOutcomes.map((p) => p.prUrl).join(' ') },
];

export const sessionsRoutes: AreaRoutes = (app) => {
  app.get('/v1/sessions/export', {
    config: { guard: { credentials: ['factory_key', 'login_token'], permission: 'sessions.read' }, rateLimit: 'observability-read' },
    schema: {
      summary: 'Download the session list (CSV or JSON), streamed',
      tags: ['sessions'],
      description:
        'Every session `GET /v1/sessions` would list for the same query (filters, repository scope, sort, dir; no limit/offset), ' +
        'with the same permissions, errors and actor pseudonyms. `format=csv` (default; text values a spreadsheet would run as a formula ' +
        'start with an apostrophe) or `format=json` (an array of the list\'s session objects). Streamed from the store page by page.',
      querystring: ExportQuery,
      response: { 200: exportResponse('An array of the session objects of GET /v1/sessions.') },
    },
  }, async (req, reply) => {
    const { format = 'csv', ...query } = req.query;
    const rows = await exportSessions(factoryContext(req.ctx), query);
    return sendDownload(reply, format, 'sessions', format === 'csv' ? csvLines(SESSION_CSV_COLUMNS, rows) : jsonArray(rows));
  });

  app.get('/v1/sessions', {
    config: { guard: { credentials: ['factory_key', 'login_token'], permission: 'sessions.read' }, rateLimit: 'observability-read' },
    schema: {
      summary: 'List agent sessions',
      tags: ['sessions'],
      description:
        'Scoped to the dominant repo (highest total spend) unless `repo` (empty = sessions with no repository) or `repoScope=all` is given. ' +
        'Without sessions.read_team actors are pseudonymous (`anon-` + 16 hex, name `anonymous`) and `actor` answers 400 actor_filter_forbidden. ' +
        '`pr` answers 400 pr_filter_unsupported. Sort: startedAt, cost, errors, turns, steering, toolErrorRate; dir asc|desc; ' +
        'signal: hands-on, denied, tool-errors, provider-errors, clean; origin: comma list of interactive, agent, worker.',
      querystring: ListQuery,
      response: { 200: Data(SessionList) },
    },
  }, async (req) => ({ data: await listSessions(factoryContext(req.ctx), req.query) }));

  app.get('/v1/sessions/:traceId', {
    config: { guard: { credentials: ['factory_key', 'login_token'], permission: 'sessions.read' }, rateLimit: 'session-detail' },
    schema: {
      summary: 'Read one session with its full transcript',
      tags: ['sessions'],
      description: 'Session fields, turns with tool calls (images link to GET /v1/agents/blob/{sha256}), events, warnings and per-model usage.',
      params: Type.Object({ traceId: Type.String({ minLength: 1, maxLength: 200, description: "The trace id, or the session's own sessionId (the id its agent wrote) within the factory." }) }),
      response: { 200: Data(SessionDetail) },
    },
  }, async (req) => {
    const ctx = factoryContext(req.ctx);
    const session = await getSession(ctx, req.params.traceId);
    const verification = await verificationOfSession(ctx, session, () => session);
    return { data: verification === undefined ? session : { ...session, verification } };
  });
};
