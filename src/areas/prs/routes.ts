// PRs: GET /v1/prs/outcomes (attributed PRs with state and cost), GET /v1/prs/{owner}/{repo}/{number}.
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, DateTime, Nullable } from '../../server/schemas.js';
import { getPullRequest, listOutcomes } from './service.js';

const FACTORY_CREDENTIALS = ['factory_key', 'login_token'] as const;
const State = Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Literal('merged'), Type.Literal('unknown')]);

const Outcome = Type.Object({
  repository: Type.String(),
  number: Type.Integer(),
  url: Type.String(),
  title: Nullable(Type.String()),
  branch: Nullable(Type.String()),
  state: State,
  merged: Nullable(Type.Boolean()),
  reverted: Nullable(Type.Boolean()),
  ciGreen: Nullable(Type.Boolean()),
  sessions: Type.Integer(),
  costUsd: Type.Number(),
  costMicros: Type.Integer(),
  firstSessionAt: Nullable(DateTime),
  lastSessionAt: Nullable(DateTime),
  openedAt: Nullable(DateTime),
  mergedAt: Nullable(DateTime),
});

const Detail = Type.Object({
  ...Outcome.properties,
  baseBranch: Nullable(Type.String()),
  headSha: Nullable(Type.String()),
  author: Nullable(Type.String()),
  revertedBy: Nullable(Type.Integer()),
  ci: Type.Union([Type.Literal('green'), Type.Literal('red'), Type.Literal('pending'), Type.Literal('unknown')]),
  closedAt: Nullable(DateTime),
  sessionList: Type.Array(Type.Object({
    traceId: Type.String(),
    sessionId: Type.String(),
    title: Nullable(Type.String()),
    agentType: Type.String(),
    startedAt: DateTime,
    costUsd: Type.Number(),
    linkedBy: Type.Array(Type.Union([Type.Literal('session'), Type.Literal('branch')])),
  })),
  artifacts: Type.Array(Type.Object({
    id: Type.String(), kind: Type.String(), caption: Type.String(), filename: Type.String(), criterionId: Nullable(Type.String()),
    emittedAt: Type.String(), url: Type.String(),
    // Additive: what the dashboard's PR page needs to show each artifact inline and name its work item.
    mediaType: Type.String(), bytes: Type.Integer(), workItemId: Nullable(Type.String()), contentUrl: Type.String(),
    session: Nullable(Type.Object({ sessionId: Type.String(), turnIndex: Nullable(Type.Integer()) })),
  })),
  results: Type.Array(Type.Object({
    name: Type.String(), result: Type.String(), link: Type.String(), headSha: Nullable(Type.String()), emittedAt: Type.String(),
    // Additive: the earlier results of the same check, newest first (as GET /v1/emitted-results).
    history: Type.Array(Type.Object({ result: Type.String(), link: Type.String(), headSha: Nullable(Type.String()), emittedAt: Type.String() })),
  })),
});

export const prsRoutes: AreaRoutes = (app) => {
  app.get('/v1/prs/outcomes', {
    config: { guard: { credentials: FACTORY_CREDENTIALS, permission: 'prs.read' }, rateLimit: 'observability-read' },
    schema: {
      summary: 'Pull requests with attributed sessions: state, revert, CI and cost', tags: ['prs'],
      description: 'A session is attributed to a PR it names (outcome prNumber/prUrl/prs, pr_linked events) or whose head branch it worked on in the same repository. Most recent session first.',
      querystring: Type.Object({
        limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
        offset: Type.Integer({ minimum: 0, maximum: 10000, default: 0 }),
        repo: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
        state: Type.Optional(State),
      }, { additionalProperties: false }),
      response: {
        200: Type.Object({ data: Type.Array(Outcome), pagination: Type.Object({ total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }) }),
      },
    },
  }, async (req) => {
    const { limit, offset, repo, state } = req.query;
    const page = await listOutcomes(factoryContext(req.ctx), { limit, offset, ...(repo !== undefined ? { repo } : {}), ...(state !== undefined ? { state } : {}) });
    return { data: page.data, pagination: { total: page.total, limit, offset } };
  });

  app.get('/v1/prs/:owner/:repo/:number', {
    config: { guard: { credentials: FACTORY_CREDENTIALS, permission: 'prs.read' } },
    schema: {
      summary: 'One pull request: state, sessions, per-PR cost, artifacts and results', tags: ['prs'],
      params: Type.Object({
        owner: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' }),
        repo: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' }),
        number: Type.Integer({ minimum: 1, maximum: 2147483647 }),
      }),
      response: { 200: Data(Detail) },
    },
  }, async (req) => ({ data: await getPullRequest(factoryContext(req.ctx), req.params.owner, req.params.repo, req.params.number) }));
};
