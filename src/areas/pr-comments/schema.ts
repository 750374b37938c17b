// What the PR comment worker reports: the App read carries a factory's latest problem (apps/schema.ts).
import { Type, type Static } from 'typebox';
import { DateTime } from '../../server/schemas.js';

/** The latest pull request whose comment could not be posted. */
export const PrCommentProblem = Type.Object({
  code: Type.String({
    description:
      'missing_permission, repository_not_connected, repository_not_in_installation, pull_request_not_found, ' +
      'repository_tokens_unavailable, github_unavailable (gave up after retries), ...',
  }),
  message: Type.String(),
  repository: Type.String(),
  number: Type.Integer(),
  at: DateTime,
});
export type PrCommentProblem = Static<typeof PrCommentProblem>;
