// The verdict of a pull request: GET /v1/prs/{owner}/{repo}/{number}/verdict (API.md §11), with the PR read's
// credentials, permission and 404.
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, DateTime, Nullable, PrNumber } from '../../server/schemas.js';
import { Verdict, VerdictRow } from '../../verify/index.js';
import { pullRequestVerdict } from './service.js';

const PrParams = Type.Object({
  owner: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' }),
  repo: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' }),
  number: PrNumber(),
});

export const VerdictSchema = Type.Object({
  repository: Type.String(),
  number: Type.Integer(),
  headSha: Nullable(Type.String({ description: 'The head commit the evaluation is of; null before a pull_request webhook told it.' })),
  verdict: Verdict,
  flagged: Type.Integer({ minimum: 0, description: 'Rows at warn or block level that did not pass.' }),
  rows: Type.Array(VerdictRow, { description: 'Ordered as shown on the PR; a validator with nothing to say has no row.' }),
  policy: Type.Object({
    source: Type.String({ description: '"default", or "<path>@<base sha>" of the policy read at the PR\'s base commit.' }),
    errors: Type.Array(Type.Object({ file: Type.String(), message: Type.String() })),
  }),
  evaluatedAt: DateTime,
});

export const verdictRoutes: AreaRoutes = (app) => {
  app.get('/v1/prs/:owner/:repo/:number/verdict', {
    config: { guard: { credentials: ['factory_key', 'login_token'], permission: 'prs.read' } },
    schema: {
      summary: 'The verdict of a pull request: clean, review, unverifiable, waiting or none, with its rows', tags: ['prs'],
      description:
        'Evaluated from the linked sessions\' verification facts, CI at the head commit, the work item\'s criteria, findings, the PR\'s commits ' +
        'and changed files (read through the GitHub App) and the repository\'s `.attest/policy.yaml` and `.attest/validators/*.yaml` at the PR\'s ' +
        'base commit. Each evaluation that differs from the PR\'s latest is stored; `evaluatedAt` is when this one was first made. ' +
        '404 pull_request_not_found as GET /v1/prs/{owner}/{repo}/{number}.',
      params: PrParams,
      response: { 200: Data(VerdictSchema) },
    },
  }, async (req) => ({ data: (await pullRequestVerdict(factoryContext(req.ctx), req.params.owner, req.params.repo, req.params.number)).wire }));
};
