// The verdict area's contract: the routes serialize with it, the service returns its types.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from '../../server/schemas.js';
import { Verdict, VerdictRow } from '../../verify/index.js';

export const VerdictSchema = Type.Object({
  repository: Type.String(),
  number: Type.Integer(),
  headSha: Nullable(
    Type.String({ description: 'The head commit the evaluation is of; null before a pull_request webhook told it.' }),
  ),
  verdict: Verdict,
  flagged: Type.Integer({ minimum: 0, description: 'Rows at warn or block level that did not pass.' }),
  rows: Type.Array(VerdictRow, {
    description: 'Ordered as shown on the PR; a validator with nothing to say has no row.',
  }),
  policy: Type.Object({
    source: Type.String({
      description: '"default", or "<path>@<base sha>" of the policy read at the PR\'s base commit.',
    }),
    errors: Type.Array(Type.Object({ file: Type.String(), message: Type.String() })),
  }),
  evaluatedAt: DateTime,
});
export type VerdictWire = Static<typeof VerdictSchema>;

export const VerdictBucketSchema = Type.Object({
  verdict: Verdict,
  prs: Type.Integer({ minimum: 0 }),
  merged: Type.Integer({ minimum: 0 }),
  reverted: Type.Integer({ minimum: 0 }),
  ciFailures: Type.Integer({ minimum: 0, description: 'PRs whose CI failed at their head commit.' }),
});
export type VerdictBucketWire = Static<typeof VerdictBucketSchema>;

export const VerdictOverviewSchema = Type.Object({
  window: Type.Object({ from: DateTime, to: DateTime }),
  verdicts: Type.Array(VerdictBucketSchema),
});
export type VerdictOverviewWire = Static<typeof VerdictOverviewSchema>;
