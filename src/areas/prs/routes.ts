// PRs: GET /v1/prs/outcomes (attributed PRs with state and cost), GET /v1/prs/{owner}/{repo}/{number}, and
// POST /v1/prs/reported (PR state the CLI read with gh, on a gateway without the GitHub App).
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, OffsetPagination, PrNumber, Ref } from '../../server/schemas.js';
import {
  GithubAppStatus,
  OutcomesQuery,
  PullRequestDetail,
  PullRequestOutcome,
  ReportedPullRequest,
} from './schema.js';
import { csvLine, exportResponse, FORMAT_QUERY, jsonArray, sendDownload, type CsvValue } from '../../server/export.js';
import { githubAppStatus, reportPullRequests } from './reported.js';
import { outcomesWithVerdicts, parseVerdictFilter, pullRequestWithVerdict } from '../verdict/outcomes.js';
import { exportPullRequest, type PrEvidenceExport } from './export.js';

const PrParams = Type.Object({
  owner: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' }),
  repo: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' }),
  number: PrNumber(),
});

export const prsRoutes: AreaRoutes = (app) => {
  app.get(
    '/prs/outcomes',
    {
      config: { guard: { permission: 'prs.read' }, rateLimit: 'observability-read' },
      schema: {
        summary: 'Pull requests with attributed sessions: state, revert, CI and cost',
        tags: ['prs'],
        description:
          'A session is attributed to a PR it names (outcome prNumber/prUrl/prs, pr_linked events) or whose head ' +
          'branch it worked on in the same repository. Most recent session first.',
        querystring: OutcomesQuery,
        response: {
          200: Type.Object({
            data: Type.Array(Ref(PullRequestOutcome)),
            pagination: OffsetPagination,
            githubApp: GithubAppStatus,
          }),
        },
      },
    },
    async (req) => {
      const { repo, state } = req.query;
      // Optional with defaults (the validator fills them in); the fallbacks only satisfy the types.
      const limit = req.query.limit ?? 25;
      const offset = req.query.offset ?? 0;
      const ctx = factoryContext(req.ctx);
      const verdict = parseVerdictFilter(req.query.verdict);
      const [page, githubApp] = await Promise.all([
        outcomesWithVerdicts(ctx, {
          limit,
          offset,
          ...(repo !== undefined ? { repo } : {}),
          ...(state !== undefined ? { state } : {}),
          ...(verdict ? { verdict } : {}),
        }),
        githubAppStatus(ctx),
      ]);
      return { data: page.data, pagination: { total: page.total, limit, offset }, githubApp };
    },
  );

  app.post(
    '/prs/reported',
    {
      config: { guard: { permission: 'sessions.write' } },
      schema: {
        summary: 'Pull-request state read by the CLI (gh pr view), for a gateway that hears no GitHub App',
        tags: ['prs'],
        description:
          'Stores each PR\'s state, merge time, head SHA and title as reported by the CLI (`stateSource: "cli"`). A ' +
          "report never replaces what the GitHub App's webhook stored " +
          'for the same PR, nor a newer report (by `updatedAt`); a webhook always replaces a report. `stored`: ' +
          'reports written; `ignored`: reports left aside for those reasons.',
        body: Type.Object(
          { pullRequests: Type.Array(ReportedPullRequest, { minItems: 1, maxItems: 100 }) },
          { additionalProperties: false },
        ),
        response: { 200: Data(Type.Object({ stored: Type.Integer(), ignored: Type.Integer() })) },
      },
    },
    async (req) => ({ data: await reportPullRequests(factoryContext(req.ctx), req.body.pullRequests) }),
  );

  app.get(
    '/prs/:owner/:repo/:number',
    {
      config: { guard: { permission: 'prs.read' } },
      schema: {
        summary: 'One pull request: state, sessions, per-PR cost, artifacts and results',
        tags: ['prs'],
        params: PrParams,
        response: { 200: Data(Ref(PullRequestDetail)) },
      },
    },
    async (req) => {
      const ctx = factoryContext(req.ctx);
      const [pr, githubApp] = await Promise.all([
        pullRequestWithVerdict(ctx, req.params.owner, req.params.repo, req.params.number),
        githubAppStatus(ctx),
      ]);
      return { data: { ...pr, githubApp } };
    },
  );

  app.get(
    '/prs/:owner/:repo/:number/export',
    {
      config: { guard: { permission: 'prs.read' }, rateLimit: 'observability-read' },
      schema: {
        summary: "Download a pull request's evidence (CSV or JSON), streamed",
        tags: ['prs'],
        description:
          'The evidence of GET /v1/prs/{owner}/{repo}/{number}: its linked sessions (oldest first, read page by ' +
          'page), artifacts and emitted results. ' +
          "`format=csv` (default): one line per item, `kind` session | artifact | result (a session's `status` is " +
          'its costStatus), the PR in the file name; text a spreadsheet would run as a formula ' +
          'starts with an apostrophe. `format=json`: `{ pullRequest, sessions, artifacts, results }` with the ' +
          'objects of the PR route. 404 pull_request_not_found as that route.',
        params: PrParams,
        querystring: Type.Object({ format: Type.Optional(FORMAT_QUERY) }, { additionalProperties: false }),
        response: { 200: exportResponse('{ pullRequest, sessions: [...], artifacts: [...], results: [...] }') },
      },
    },
    async (req, reply) => {
      const format = req.query.format ?? 'csv';
      const ev = await exportPullRequest(factoryContext(req.ctx), req.params.owner, req.params.repo, req.params.number);
      const name = `${ev.pullRequest.repository.replace(/[^A-Za-z0-9_.-]+/g, '-')}-${ev.pullRequest.number}-evidence`;
      return sendDownload(reply, format, name, format === 'csv' ? evidenceCsv(ev) : evidenceJson(ev));
    },
  );
};

const EVIDENCE_COLUMNS = [
  'kind',
  'id',
  'at',
  'name',
  'status',
  'costUsd',
  'linkedBy',
  'agentType',
  'sessionId',
  'url',
  'detail',
] as const;
type EvidenceLine = Partial<Record<(typeof EVIDENCE_COLUMNS)[number], CsvValue>>;

async function* evidenceCsv(ev: PrEvidenceExport): AsyncGenerator<string> {
  const line = (v: EvidenceLine) => csvLine(EVIDENCE_COLUMNS.map((c) => v[c]));
  yield csvLine([...EVIDENCE_COLUMNS]);
  for await (const s of ev.sessions) {
    // A session's status is its cost status; the detail names the models it had no price for.
    yield line({
      kind: 'session',
      id: s.traceId,
      at: s.startedAt,
      name: s.title,
      status: s.costStatus,
      costUsd: s.costUsd,
      linkedBy: s.linkedBy.join(' '),
      agentType: s.agentType,
      sessionId: s.sessionId,
      detail: s.unpricedModels.length ? `no price: ${s.unpricedModels.join(' ')}` : undefined,
    });
  }
  for (const a of ev.artifacts) {
    yield line({
      kind: 'artifact',
      id: a.id,
      at: a.createdAt,
      name: a.caption || a.filename,
      status: a.kind,
      sessionId: a.session?.sessionId,
      url: a.url,
      detail: `${a.mediaType} ${a.bytes} bytes sha256:${a.sha256}${a.criterionId ? ` criterion:${a.criterionId}` : ''}`,
    });
  }
  for (const r of ev.results) {
    yield line({
      kind: 'result',
      id: r.id,
      at: r.emittedAt,
      name: r.name,
      status: r.result,
      url: r.link,
      detail: r.headSha,
    });
  }
}

async function* evidenceJson(ev: PrEvidenceExport): AsyncGenerator<string> {
  yield `{"pullRequest":${JSON.stringify(ev.pullRequest)},"sessions":`;
  yield* jsonArray(ev.sessions);
  yield `,"artifacts":${JSON.stringify(ev.artifacts)},"results":${JSON.stringify(ev.results)}}\n`;
}
