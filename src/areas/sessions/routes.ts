// Sessions: GET /v1/sessions (the filtered list with its wrapper) and GET /v1/sessions/{traceId} (the full
// transcript). Both read-only, rate limited per org. The list and its export may read the replica
// (src/server/read-routing.ts); the one session's read never does: a sync's own session is readable at once.
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data } from '../../server/schemas.js';
import { sendJsonBody } from '../../server/json-text.js';
import { type CsvColumn, csvLines, exportResponse, jsonArray, sendDownload } from '../../server/export.js';
import { getSession } from './detail.js';
import { verificationOfSession } from '../verdict/session.js';
import { exportSessions, listAnswer } from './list.js';
import { ExportQuery, ListQuery, SessionDetail, SessionList, type SessionWire } from './schema.js';

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
  app.get(
    '/sessions/export',
    {
      config: { guard: { permission: 'sessions.read' }, rateLimit: 'observability-read', reads: 'replica' },
      schema: {
        summary: 'Download the session list (CSV or JSON), streamed',
        tags: ['sessions'],
        description:
          'Every session `GET /v1/sessions` would list for the same query (filters, repository scope, sort, dir; no ' +
          'limit/offset), ' +
          'with the same permissions, errors and actor pseudonyms. `format=csv` (default; text values a spreadsheet ' +
          'would run as a formula ' +
          "start with an apostrophe) or `format=json` (an array of the list's session objects). Streamed from the " +
          'store page by page.',
        querystring: ExportQuery,
        response: { 200: exportResponse('An array of the session objects of GET /v1/sessions.') },
      },
    },
    async (req, reply) => {
      const { format = 'csv', ...query } = req.query;
      const rows = await exportSessions(factoryContext(req.ctx), query);
      return sendDownload(
        reply,
        format,
        'sessions',
        format === 'csv' ? csvLines(SESSION_CSV_COLUMNS, rows) : jsonArray(rows),
      );
    },
  );

  app.get(
    '/sessions',
    {
      config: { guard: { permission: 'sessions.read' }, rateLimit: 'observability-read', reads: 'replica' },
      schema: {
        summary: 'List agent sessions',
        tags: ['sessions'],
        description:
          'Scoped to the dominant repo (highest total spend) unless `repo` (empty = sessions with no repository) or ' +
          '`repoScope=all` is given. ' +
          'Without sessions.read_team actors are pseudonymous (`anon-` + 16 hex, name `anonymous`) and `actor` ' +
          'answers 400 actor_filter_forbidden. ' +
          '`pr` answers 400 pr_filter_unsupported. Sort: startedAt, cost, errors, turns, steering, toolErrorRate; ' +
          'dir asc|desc; ' +
          'signal: hands-on, denied, tool-errors, provider-errors, clean; origin: comma list of interactive, agent, ' +
          'worker.',
        querystring: ListQuery,
        response: { 200: Data(SessionList) },
      },
    },
    // The answer is JSON text already (list.ts splices stored entries): sent as it is, not serialized again.
    async (req, reply) => sendJsonBody(reply, await listAnswer(factoryContext(req.ctx), req.query)),
  );

  app.get(
    '/sessions/:traceId',
    {
      config: { guard: { permission: 'sessions.read' }, rateLimit: 'session-detail' },
      schema: {
        summary: 'Read one session with its full transcript',
        tags: ['sessions'],
        description:
          'Session fields, turns with tool calls (images link to GET /v1/agents/blob/{sha256}), events, warnings and ' +
          'per-model usage.',
        params: Type.Object({
          traceId: Type.String({
            minLength: 1,
            maxLength: 200,
            description: "The trace id, or the session's own sessionId (the id its agent wrote) within the factory.",
          }),
        }),
        response: { 200: Data(SessionDetail) },
      },
    },
    async (req) => {
      const ctx = factoryContext(req.ctx);
      const session = await getSession(ctx, req.params.traceId);
      const verification = await verificationOfSession(ctx, session, () => session);
      return { data: verification === undefined ? session : { ...session, verification } };
    },
  );
};
