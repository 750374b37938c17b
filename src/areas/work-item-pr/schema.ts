// The work item pull request's contract: the route validates and serializes with it, the service takes and
// returns its types.
import { Type, type Static } from 'typebox';

export const PullRequestInput = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 256 }),
    body: Type.String({ maxLength: 65536 }),
  },
  { additionalProperties: false },
);
export type PullRequestInput = Static<typeof PullRequestInput>;

export const PullRequestResult = Type.Object({
  repository: Type.String(),
  number: Type.Integer(),
  url: Type.String(),
  created: Type.Boolean({
    description: 'true when this call opened the pull request, false when it edited the open one',
  }),
});
export type PullRequestResult = Static<typeof PullRequestResult>;
