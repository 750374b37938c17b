// The verdict of a pull request: GET /v1/prs/{owner}/{repo}/{number}/verdict (API.md §11), with the PR read's
// credentials, permission and 404.
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, PrNumber } from '../../server/schemas.js';
import { VerdictOverviewSchema, VerdictSchema } from './schema.js';
import { verdictOverview } from './overview.js';
import { pullRequestVerdict } from './service.js';

const PrParams = Type.Object({
  owner: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' }),
  repo: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' }),
  number: PrNumber(),
});

/** A date (a whole UTC day) or a date-time with its offset, as the other metrics routes take. */
const Instant = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$',
  maxLength: 40,
  description: 'YYYY-MM-DD (a date-only `to` includes that whole UTC day) or an ISO date-time with Z or an offset.',
});

export const verdictRoutes: AreaRoutes = (app) => {
  app.get(
    '/v1/prs/:owner/:repo/:number/verdict',
    {
      config: { guard: { credentials: ['factory_key', 'login_token'], permission: 'prs.read' } },
      schema: {
        summary: 'The verdict of a pull request: clean, review, unverifiable, waiting or none, with its rows',
        tags: ['prs'],
        description:
          "Evaluated from the linked sessions' verification facts, CI at the head commit, the work item's criteria, " +
          "findings, the PR's commits " +
          "and changed files (read through the GitHub App) and the repository's `.attest/policy.yaml` and " +
          "`.attest/validators/*.yaml` at the PR's " +
          "base commit. Each evaluation that differs from the PR's latest is stored; `evaluatedAt` is when this one " +
          'was first made. ' +
          '404 pull_request_not_found as GET /v1/prs/{owner}/{repo}/{number}.',
        params: PrParams,
        response: { 200: Data(VerdictSchema) },
      },
    },
    async (req) => ({
      data: (
        await pullRequestVerdict(factoryContext(req.ctx), req.params.owner, req.params.repo, req.params.number, {
          fetch: true,
        })
      ).wire,
    }),
  );

  app.get(
    '/v1/metrics/verdicts',
    {
      config: {
        guard: { credentials: ['factory_key', 'login_token'], permission: 'metrics.read' },
        rateLimit: 'observability-read',
      },
      schema: {
        summary: 'Pull requests by verdict in a window: how many, merged, reverted, CI failures',
        tags: ['metrics'],
        description:
          "The Overview's comparison of verdicts: a PR counts in the window its opening falls in (its first linked " +
          'session when the opening ' +
          "is unknown), with its latest evaluation's verdict. Every verdict is listed, in the order clean, review, " +
          'unverifiable, waiting, none. ' +
          'Window as the other metrics routes: [from, to), by default the last 30 UTC days; 400 invalid_date_range ' +
          'when from is after to.',
        querystring: Type.Object(
          {
            from: Type.Optional(Instant),
            to: Type.Optional(Instant),
            repo: Type.Optional(
              Type.String({ maxLength: 500, description: 'owner/repo; absent for all repositories.' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Data(VerdictOverviewSchema),
        },
      },
    },
    async (req) => ({ data: await verdictOverview(factoryContext(req.ctx), req.query) }),
  );
};
