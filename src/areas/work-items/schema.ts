// The work-items area's contract: the routes serialize with it, the service returns its types.
import { Type, type Static } from 'typebox';
import { DateTime, Int53, Nullable, PrNumber, Uuid, Literals } from '../../server/schemas.js';

export const TRACKERS = ['github', 'linear', 'jira', 'local'] as const;
export const STAGES = ['backlog', 'ready', 'in_progress', 'in_review', 'done'] as const;
export const BLOCK_CLASSES = ['none', 'dependency', 'human', 'external'] as const;
export type Tracker = (typeof TRACKERS)[number];
export type Stage = (typeof STAGES)[number];
export type BlockClass = (typeof BLOCK_CLASSES)[number];

export const CLAIM_MAX_TTL_SECONDS = 86_400;
export const CLAIM_DEFAULT_TTL_SECONDS = 3_600;

const TrackerSchema = Type.Union(TRACKERS.map((t) => Type.Literal(t)));
const StageSchema = Type.Union(STAGES.map((s) => Type.Literal(s)));
const BlockClassSchema = Type.Union(BLOCK_CLASSES.map((b) => Type.Literal(b)));
const REPOSITORY = { minLength: 3, maxLength: 200, pattern: '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$' };
const Section = Type.String({ maxLength: 100 });
const Title = Type.String({ minLength: 1, maxLength: 500 });

/** The body of POST /v1/work-items (an upsert by tracker + trackerKey). */
export const UpsertWorkItemBody = Type.Object(
  {
    tracker: TrackerSchema,
    trackerKey: Type.String({ minLength: 1, maxLength: 200 }),
    title: Title,
    specRepository: Type.Optional(Type.String({ maxLength: 200 })),
    specNumber: Type.Optional(Int53()),
    stage: Type.Optional(StageSchema),
    section: Type.Optional(Section),
    blockClass: Type.Optional(BlockClassSchema),
    repository: Type.Optional(Nullable(Type.String(REPOSITORY))),
  },
  { additionalProperties: false },
);
export type UpsertWorkItemInput = Static<typeof UpsertWorkItemBody>;

/** The body of PATCH /v1/work-items/{id}; `repository: null` clears it. */
export const PatchWorkItemBody = Type.Object(
  {
    stage: Type.Optional(StageSchema),
    section: Type.Optional(Section),
    blockClass: Type.Optional(BlockClassSchema),
    title: Type.Optional(Title),
    repository: Type.Optional(Nullable(Type.String(REPOSITORY))),
  },
  { additionalProperties: false },
);
export type PatchWorkItemInput = Static<typeof PatchWorkItemBody>;

/** The body of POST /v1/work-items/{id}/claims; the shortest lease is the gateway's setting. */
export const ClaimBody = (minTtl: number) =>
  Type.Object(
    {
      source: Type.String({ minLength: 1, maxLength: 200 }),
      branch: Type.String({ minLength: 1, maxLength: 255 }),
      ttlSeconds: Type.Optional(Type.Integer({ minimum: minTtl, maximum: CLAIM_MAX_TTL_SECONDS })),
    },
    { additionalProperties: false },
  );
export type ClaimInput = Static<ReturnType<typeof ClaimBody>>;

/** The body of POST /v1/work-items/{id}/pull-requests. */
export const DeclarePullRequestBody = Type.Object(
  {
    repository: Type.String(REPOSITORY),
    number: PrNumber(),
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, pattern: '^https?://' })),
  },
  { additionalProperties: false },
);
export type DeclarePullRequestInput = Static<typeof DeclarePullRequestBody>;

export const ClaimSchema = Type.Object({
  id: Uuid,
  source: Type.String(),
  branch: Nullable(Type.String()),
  claimedAt: DateTime,
  expiresAt: DateTime,
});
export type ClaimWire = Static<typeof ClaimSchema>;

/**
 * A claim as the history reads it: `live`, `released` (let go before its lease ran out) or `expired`.
 * `endedAt`: when the claim ended (released, or found expired by a later claim); null while open. An open
 * claim past its lease is `expired` with endedAt null.
 */
export const ClaimHistoryEntrySchema = Type.Object({
  ...ClaimSchema.properties,
  state: Literals(['live', 'released', 'expired']),
  endedAt: Nullable(DateTime),
});
export type ClaimHistoryEntryWire = Static<typeof ClaimHistoryEntrySchema>;

const listEntryFields = {
  id: Uuid,
  number: Type.Integer(),
  tracker: Type.String(),
  trackerKey: Type.String(),
  title: Type.String(),
  specRepository: Type.String(),
  specNumber: Type.Integer(),
  stage: Type.String(),
  section: Type.String(),
  blockClass: Type.String(),
  claim: Nullable(ClaimSchema),
  startable: Type.Boolean(),
};
export const WorkItemListEntrySchema = Type.Object(listEntryFields);
export type WorkItemListEntry = Static<typeof WorkItemListEntrySchema>;

export const WorkItemSchema = Type.Object({
  ...listEntryFields,
  repository: Nullable(Type.String()),
  withdrawn: Type.Boolean(),
  withdrawnAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type WorkItemWire = Static<typeof WorkItemSchema>;
