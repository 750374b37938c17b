// The apps (factories) area's contract: the routes serialize with it, the service returns its types.
import { Type, type Static } from 'typebox';
import { DateTime, Limit, Nullable, Offset, Slug, Uuid, Literals } from '../../server/schemas.js';
import { PrCommentProblem } from '../pr-comments/schema.js';

export const RunnerUpdatesMode = Literals(['follow', 'pin']);
export type RunnerUpdatesMode = Static<typeof RunnerUpdatesMode>;
export const PrCommentMode = Literals(['off', 'on'], {
  description:
    'on: the GitHub App keeps exactly one comment with the evidence on each pull request of a connected repository ' +
    '(docs/github-app.md). Default off.',
});
export type PrCommentMode = Static<typeof PrCommentMode>;

const RetentionDays = Type.Union([Type.Integer({ minimum: 1, maximum: 36500 }), Type.Null()]);

export const Retention = Type.Object(
  {
    fullDays: RetentionDays,
    redactedDays: RetentionDays,
    sessionsDays: RetentionDays,
    artifactsDays: RetentionDays,
  },
  {
    additionalProperties: false,
    description:
      "How long the factory keeps detail (issue 42), in days from a session's start (an artifact's arrival); null " +
      'keeps for ever. ' +
      'After fullDays a session is cut to the redacted tier, after redactedDays to the metrics tier (the capture ' +
      "tiers' rules: " +
      'metrics and costs stay exact), after sessionsDays it is deleted; an artifact after artifactsDays. Each later ' +
      'step must ' +
      'not come before an earlier one that is set.',
  },
);
export type Retention = Static<typeof Retention>;

const DisplayName = Type.String({ minLength: 1, maxLength: 200 });

/** The querystring of GET /v1/apps. */
export const ListAppsQuery = Type.Object(
  {
    // Exact name (issue 15 §6: a client picking its factory by name must not get every factory).
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Exact factory name.' })),
    limit: Type.Optional(Limit(500)),
    offset: Type.Optional(Offset()),
  },
  { additionalProperties: false },
);
export type ListAppsQuery = Static<typeof ListAppsQuery>;

/** The body of POST /v1/apps. */
export const CreateAppBody = Type.Object(
  { name: Slug, display_name: Type.Optional(DisplayName) },
  { additionalProperties: false },
);
export type CreateAppInput = Static<typeof CreateAppBody>;

export const RunnerUpdatesBody = Type.Object(
  {
    mode: Literals(['follow', 'pin']),
    version: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
  },
  { additionalProperties: false },
);
export type RunnerUpdatesInput = Static<typeof RunnerUpdatesBody>;

/** The body of PATCH /v1/apps/{appId}: any of its fields, the others keep their value. */
export const UpdateAppBody = Type.Object(
  {
    name: Type.Optional(Slug),
    display_name: Type.Optional(DisplayName),
    runner_updates: Type.Optional(RunnerUpdatesBody),
    pr_comment: Type.Optional(Literals(['off', 'on'])),
    pr_check: Type.Optional(Literals(['off', 'on'])),
    retention: Type.Optional(Type.Partial(Retention, { additionalProperties: false, minProperties: 1 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateAppInput = Static<typeof UpdateAppBody>;

/** What every view of a factory starts with: its ids, its names, and who made and last changed it. */
export const APP_IDENTITY = {
  id: Uuid,
  tenant_id: Uuid,
  name: Type.String(),
  display_name: Type.String(),
  created_at: DateTime,
  created_by: Type.String(),
  updated_at: DateTime,
  updated_by: Type.String(),
};

export const App = Type.Object(
  {
    ...APP_IDENTITY,
    runner_updates: Type.Object({
      mode: RunnerUpdatesMode,
      version: Type.String({
        description: 'pin: the pinned version; follow: the version this gateway recommends (its own release)',
      }),
    }),
    pr_comment: PrCommentMode,
    pr_comment_problem: Nullable(
      Type.Object(PrCommentProblem.properties, {
        description:
          'The latest pull request whose comment could not be posted, until a later run posts it; null when none.',
      }),
    ),
    pr_check: Literals(['off', 'on'], {
      description:
        'on: the GitHub App keeps a check run named `Attest evidence` on the head commit of each pull request of a ' +
        'connected repository (success when clean, neutral for review, failure when a block-level row fails; ' +
        'docs/github-app.md). Default off.',
    }),
    retention: Retention,
    pr_check_problem: Nullable(
      Type.Object(
        {
          ...PrCommentProblem.properties,
          code: Type.String({
            description:
              'missing_permission (checks write), repository_not_connected, repository_not_in_installation, ' +
              'repository_tokens_unavailable, github_unavailable (gave up after retries), ...',
          }),
        },
        {
          description:
            'The latest pull request whose check run could not be written, until a later run writes it; null when ' +
            'none.',
        },
      ),
    ),
  },
  { $id: 'App' },
);
export type App = Static<typeof App>;

/** A factory a user can use, with its org and the user's role there (GET /v1/me/factories). */
export const MyFactory = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    display_name: Type.String(),
    org: Type.Object({ id: Uuid, name: Type.String() }),
    role: Type.String(),
    /** What the role may do there (the dashboard shows a control only to those allowed to use it). */
    permissions: Type.Array(Type.String()),
  },
  { $id: 'MyFactory' },
);
export type MyFactory = Static<typeof MyFactory>;
