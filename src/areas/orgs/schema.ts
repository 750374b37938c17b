// The orgs area's contract (also the operator routes' answers about orgs, users and members): the routes
// serialize with it, the service returns its types.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, Uuid } from '../../server/schemas.js';

export const Org = Type.Object(
  { id: Uuid, name: Type.String(), plan: Type.String(), created_at: DateTime, updated_at: DateTime },
  { $id: 'Org' },
);
export type Org = Static<typeof Org>;

/** The org the credential acts on, with the caller's role there and what the caller may do in it. */
export const OrgSelf = Type.Object(
  {
    ...Org.properties,
    /** The caller's role in the org (null for a management key, which holds a permission list instead). */
    role: Nullable(Type.String()),
    /** What the caller may do here: the dashboard shows only the controls these allow. */
    permissions: Type.Array(Type.String()),
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

export const AuditVerify = Type.Object(
  {
    intact: Type.Boolean(),
    checked: Type.Integer(),
    firstBadRow: Nullable(Type.Object({ id: Uuid, seq: Type.Integer() })),
  },
  { $id: 'AuditVerify' },
);
export type AuditVerify = Static<typeof AuditVerify>;
