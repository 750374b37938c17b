// The PRs area's contract: the routes serialize with it, the service returns its types.
import { Type, type Static } from 'typebox';
import { DateTime, DateTimeQuery, Limit, Nullable, Offset, PrNumber, Ref, Literals } from '../../server/schemas.js';
import { Verdict } from '../../verify/index.js';
import { Artifact } from '../artifacts/schema.js';
import { Check } from '../results/schema.js';

const CostStatus = Literals(['complete', 'partial', 'unpriced']);

export const PrState = Literals(['open', 'closed', 'merged', 'unknown']);
export type PrState = Static<typeof PrState>;

/** The querystring of GET /v1/prs/outcomes. */
export const OutcomesQuery = Type.Object(
  {
    limit: Type.Optional(Limit(100, 25)),
    offset: Type.Optional(Offset({ default: 0 })),
    repo: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    state: Type.Optional(PrState),
    verdict: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'Comma-separated verdicts to keep: clean, review, unverifiable, waiting, none.',
      }),
    ),
  },
  { additionalProperties: false },
);
/** What the service reads: `limit` and `offset` with their defaults; `verdict` parsed by the route. */
export type OutcomesQuery = Omit<Static<typeof OutcomesQuery>, 'verdict'> &
  Required<Pick<Static<typeof OutcomesQuery>, 'limit' | 'offset'>>;

export const PullRequestOutcome = Type.Object(
  {
    repository: Type.String(),
    number: Type.Integer(),
    url: Type.String(),
    title: Nullable(Type.String()),
    branch: Nullable(Type.String()),
    state: PrState,
    merged: Nullable(Type.Boolean()),
    reverted: Nullable(Type.Boolean()),
    ciGreen: Nullable(Type.Boolean()),
    sessions: Type.Integer(),
    costUsd: Type.Number(),
    costMicros: Type.Integer(),
    // Additive: whether the sum is whole (every session priced), as a session's costStatus says of its own.
    costStatus: CostStatus,
    unpricedModels: Type.Array(Type.String()),
    firstSessionAt: Nullable(DateTime),
    lastSessionAt: Nullable(DateTime),
    openedAt: Nullable(DateTime),
    mergedAt: Nullable(DateTime),
    // Additive (issue 45): who reported state, merge, revert and CI; null while nobody has.
    stateSource: Nullable(
      Literals(['github_app', 'cli'], {
        description:
          "github_app: the GitHub App's webhooks; cli: `gh pr view` at `attest sync`, kept until a webhook speaks " +
          'for the PR.',
      }),
    ),
    // The verdict (API.md §11): GET /v1/prs/{owner}/{repo}/{number}/verdict has its rows.
    verdict: Verdict,
    flagged: Type.Integer({ minimum: 0 }),
  },
  { $id: 'PullRequestOutcome' },
);
export type PullRequestOutcome = Static<typeof PullRequestOutcome>;

export const GithubAppStatus = Literals(['connected', 'not_bound', 'not_configured'], {
  description:
    'Whether PR state can come from the GitHub App: connected (configured and bound to this factory), not_bound ' +
    '(configured, no installation bound here), not_configured (no App on this gateway).',
});
export type GithubAppStatus = Static<typeof GithubAppStatus>;

export const PullRequestSession = Type.Object(
  {
    traceId: Type.String(),
    sessionId: Type.String(),
    title: Nullable(Type.String()),
    agentType: Type.String(),
    startedAt: DateTime,
    costUsd: Type.Number(),
    costStatus: CostStatus,
    unpricedModels: Type.Array(Type.String()),
    linkedBy: Type.Array(Literals(['session', 'branch', 'commit'])),
  },
  { $id: 'PullRequestSession' },
);
export type PullRequestSession = Static<typeof PullRequestSession>;

export const PullRequestDetail = Type.Object(
  {
    ...PullRequestOutcome.properties,
    githubApp: GithubAppStatus,
    baseBranch: Nullable(Type.String()),
    headSha: Nullable(Type.String()),
    author: Nullable(Type.String()),
    revertedBy: Nullable(Type.Integer()),
    ci: Literals(['green', 'red', 'pending', 'unknown']),
    closedAt: Nullable(DateTime),
    sessionList: Type.Array(Ref(PullRequestSession)),
    artifacts: Type.Array(
      Type.Object({
        id: Type.String(),
        kind: Type.String(),
        caption: Type.String(),
        filename: Type.String(),
        criterionId: Nullable(Type.String()),
        emittedAt: Type.String(),
        url: Type.String(),
        // Additive: what the dashboard's PR page needs to show each artifact inline and name its work item.
        mediaType: Type.String(),
        bytes: Type.Integer(),
        workItemId: Nullable(Type.String()),
        contentUrl: Type.String(),
        session: Nullable(Type.Object({ sessionId: Type.String(), turnIndex: Nullable(Type.Integer()) })),
      }),
    ),
    results: Type.Array(
      Type.Object({
        name: Type.String(),
        result: Type.String(),
        link: Type.String(),
        headSha: Nullable(Type.String()),
        emittedAt: Type.String(),
        // Additive: the earlier results of the same check, newest first (as GET /v1/emitted-results).
        history: Type.Array(
          Type.Object({
            result: Type.String(),
            link: Type.String(),
            headSha: Nullable(Type.String()),
            emittedAt: Type.String(),
          }),
        ),
      }),
    ),
  },
  { $id: 'PullRequestDetail' },
);
export type PullRequestDetail = Static<typeof PullRequestDetail>;

/** A PR's own fields in its evidence download: its webhook state, or only its key when known from sessions alone. */
export const PrEvidenceHeader = Type.Pick(PullRequestDetail, [
  'repository',
  'number',
  'url',
  'state',
  'title',
  'branch',
  'baseBranch',
  'headSha',
  'author',
  'merged',
  'reverted',
  'revertedBy',
  'ci',
  'openedAt',
  'closedAt',
  'mergedAt',
]);
export type PrEvidenceHeader = Static<typeof PrEvidenceHeader>;

/** A PR's evidence as GET /v1/prs/{owner}/{repo}/{number}/export?format=json writes it (sessions oldest first). */
export const PrEvidence = Type.Object({
  pullRequest: PrEvidenceHeader,
  sessions: Type.Array(PullRequestSession),
  artifacts: Type.Array(Artifact),
  results: Type.Array(Check),
});
export type PrEvidence = Static<typeof PrEvidence>;

/** One pull request of POST /v1/prs/reported, as the CLI read it with `gh pr view`. */
export const ReportedPullRequest = Type.Object(
  {
    repository: Type.String({
      minLength: 3,
      maxLength: 201,
      pattern: '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$',
      description: 'owner/repo on GitHub',
    }),
    number: PrNumber(),
    url: Type.String({ maxLength: 2000, pattern: '^https?://' }),
    title: Type.String({ maxLength: 1024 }),
    state: Literals(['open', 'closed', 'merged']),
    author: Nullable(Type.String({ maxLength: 256 })),
    branch: Type.String({ maxLength: 1024 }),
    baseBranch: Type.String({ maxLength: 1024 }),
    headSha: Type.String({ pattern: '^[0-9a-fA-F]{40}([0-9a-fA-F]{24})?$' }),
    openedAt: DateTimeQuery(),
    updatedAt: DateTimeQuery(),
    closedAt: Nullable(DateTimeQuery()),
    mergedAt: Nullable(DateTimeQuery()),
  },
  { additionalProperties: false },
);
export type ReportedPullRequest = Static<typeof ReportedPullRequest>;
