// The agents area's contract: the routes validate and serialize with it, the service takes and returns its types.
import { Type, type Static } from 'typebox';
import { Nullable } from '../../server/schemas.js';

export const SyncBody = Type.Object({
  schemaVersion: Type.Literal(1),
  sessions: Type.Array(Type.Unknown(), { minItems: 1 }),
  blobs: Type.Optional(Type.Array(Type.Unknown())),
});
export type SyncBody = Static<typeof SyncBody>;

export const SyncResult = Type.Object({
  accepted: Type.Array(Type.String(), {
    description: 'ids of the sessions stored (or already stored: a re-send is idempotent)',
  }),
  rejected: Type.Array(Type.Object({ index: Type.Integer(), id: Nullable(Type.String()), reason: Type.String() })),
  blobsStored: Type.Integer({ description: 'distinct blobs of this request now held by the factory' }),
  rejectedBlobs: Type.Array(
    Type.Object({ index: Type.Integer(), sha256: Nullable(Type.String()), reason: Type.String() }),
  ),
  tenantTier: Type.String({ description: "the org's plan: free, paid or enterprise" }),
});
export type SyncResult = Static<typeof SyncResult>;
