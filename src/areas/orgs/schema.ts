// The orgs area's contract (also the operator routes' answers about orgs, users and members): the routes
// serialize with it, the service returns its types.
import { Type, type Static } from 'typebox';
import { DateTime, Limit, Nullable, Page, Ref, Uuid, Literals } from '../../server/schemas.js';

export const Org = Type.Object(
  { id: Uuid, name: Type.String(), plan: Type.String(), created_at: DateTime, updated_at: DateTime },
  { $id: 'Org' },
);
export type Org = Static<typeof Org>;

/** Who joins the org by themselves on first sign-in: a verified email in one of `domains`, at `role`. */
const autoJoinFields = {
  domains: Type.Array(
    Type.String({
      minLength: 3,
      maxLength: 253,
      pattern: '^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$',
    }),
    { minItems: 1, maxItems: 20 },
  ),
  /** Never above `write`: a stranger with a company address does not become an admin by signing in. */
  role: Literals(['write', 'read']),
};
export const AutoJoin = Type.Object(autoJoinFields, { additionalProperties: false, $id: 'AutoJoin' });
/** The same, inline (a request body's validator sees only the route's own schema, no `$ref`). */
export const AutoJoinBody = Type.Object(autoJoinFields, { additionalProperties: false });
export type AutoJoin = Static<typeof AutoJoin>;

/** The org the credential acts on, with the caller's role there and what the caller may do in it. */
export const OrgSelf = Type.Object(
  {
    ...Org.properties,
    /** The caller's role in the org (null for a management key, which holds a permission list instead). */
    role: Nullable(Type.String()),
    /** What the caller may do here: the dashboard shows only the controls these allow. */
    permissions: Type.Array(Type.String()),
    /** Auto-join by verified email domain, or null when off. */
    autoJoin: Nullable(Ref(AutoJoin)),
  },
  { $id: 'OrgSelf' },
);
export type OrgSelf = Static<typeof OrgSelf>;

export const User = Type.Object(
  { id: Uuid, email: Type.String(), name: Type.String(), created_at: DateTime },
  { $id: 'User' },
);
export type User = Static<typeof User>;

export const Member = Type.Object(
  { userId: Uuid, email: Type.String(), name: Type.String(), role: Type.String(), joined_at: DateTime },
  { $id: 'Member' },
);
export type Member = Static<typeof Member>;

export const AuditEntry = Type.Object(
  {
    id: Uuid,
    action_type: Type.String(),
    actor_id: Type.String(),
    actor_type: Type.String(),
    actor_name: Type.String(),
    actor_email: Type.String(),
    actor_label: Type.String(),
    target_id: Type.String(),
    target_type: Type.String(),
    target_identifier: Type.String(),
    details_preview: Type.String(),
    created_at: DateTime,
  },
  { $id: 'AuditEntry' },
);
export type AuditEntry = Static<typeof AuditEntry>;

export const AUDIT_DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?Z?)?$';
const AuditDate = Type.String({
  pattern: AUDIT_DATE_PATTERN,
  description:
    'YYYY-MM-DD, optionally THH:MM:SS with optional .f–.fff and optional Z; read as UTC. A bare endDate covers its ' +
    'whole day.',
});

/** The querystring of GET /v1/orgs/{orgName}/audit-log. */
export const AuditLogQuery = Type.Object(
  {
    page: Type.Optional(Page()),
    pageSize: Type.Optional(Limit(100, 25)),
    actionType: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    targetType: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    startDate: Type.Optional(AuditDate),
    endDate: Type.Optional(AuditDate),
  },
  { additionalProperties: false },
);
export type AuditLogQuery = Static<typeof AuditLogQuery>;

export const AuditVerify = Type.Object(
  {
    intact: Type.Boolean(),
    checked: Type.Integer(),
    firstBadRow: Nullable(Type.Object({ id: Uuid, seq: Type.Integer() })),
  },
  { $id: 'AuditVerify' },
);
export type AuditVerify = Static<typeof AuditVerify>;

/** An open invitation to join the org (its link is shown once, at creation). */
export const Invitation = Type.Object(
  {
    id: Uuid,
    /** Only this verified email may accept it; null = whoever opens the link. */
    email: Nullable(Type.String()),
    role: Type.String(),
    expiresAt: DateTime,
    createdAt: DateTime,
  },
  { $id: 'Invitation' },
);
export type Invitation = Static<typeof Invitation>;

/** An invitation just made: the single-use link to send, valid 7 days. */
export const NewInvitation = Type.Object({ ...Invitation.properties, url: Type.String() }, { $id: 'NewInvitation' });
export type NewInvitation = Static<typeof NewInvitation>;

/** The membership an accepted invitation gave. */
export const JoinedOrg = Type.Object(
  { org: Type.Object({ id: Uuid, name: Type.String() }), role: Type.String() },
  { $id: 'JoinedOrg' },
);
export type JoinedOrg = Static<typeof JoinedOrg>;

/**
 * What erasing a person did (issue 42). `subject` is an opaque reference to the person (a keyed hash, the same
 * for the same person in this org, never their email); the counts say what was touched across every factory.
 */
/** Who to erase: exactly one of the two (the body's schema refuses neither and both). */
export const ErasureBody = Type.Object(
  {
    email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
    actorId: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
  },
  { additionalProperties: false, minProperties: 1, maxProperties: 1 },
);

export const Erasure = Type.Object(
  {
    subject: Type.String(),
    factories: Type.Integer(),
    sessions: Type.Integer({ description: 'Sessions cut to metrics and no longer naming the person.' }),
    telemetryEvents: Type.Integer({ description: 'OpenTelemetry events deleted.' }),
    rollupRows: Type.Integer({ description: 'Per-actor rollup rows moved to the pseudonym (totals unchanged).' }),
    blobsRemoved: Type.Integer({ description: 'Image blobs no factory holds any more, removed from the store.' }),
    credentialsDeleted: Type.Integer({ description: "The person's login tokens and dashboard sessions." }),
    credentialsRenamed: Type.Integer({ description: 'Keys whose name named the person, renamed.' }),
    invitations: Type.Integer(),
    membership: Type.Boolean({ description: 'Whether a membership of this org was removed.' }),
    account: Type.Boolean({ description: 'Whether the account was deleted (it belonged to no other org).' }),
    auditIdentities: Type.Integer({ description: 'Audit pseudonyms whose mapping to the person was deleted.' }),
    notificationDeliveries: Type.Integer({ description: 'Notification bodies that named the person, scrubbed.' }),
    budgets: Type.Integer({ description: 'Budgets scoped to the person, moved to the pseudonym.' }),
    erasedAt: DateTime,
  },
  { $id: 'Erasure' },
);
export type Erasure = Static<typeof Erasure>;
