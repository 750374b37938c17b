// The work-items area's contract: the routes serialize with it, the service returns its types.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, Uuid } from '../../server/schemas.js';

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
  state: Type.Union([Type.Literal('live'), Type.Literal('released'), Type.Literal('expired')]),
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
