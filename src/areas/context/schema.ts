// The context area's contract: the routes serialize with it, the service returns its types.
import { Type, type Static } from 'typebox';
import { DateTime, Limit, Nullable, Offset, Literals } from '../../server/schemas.js';

const ChangeKind = Literals(['added', 'modified', 'removed']);

/** The fields every answer about a synced commit carries. */
export const ContextCommitSummary = Type.Object({
  commitSha: Type.String(),
  branch: Nullable(Type.String()),
  syncedAt: DateTime,
  previousCommitSha: Nullable(Type.String()),
  fileCount: Type.Integer(),
  totalBytes: Type.Integer(),
});
export type ContextCommitSummary = Static<typeof ContextCommitSummary>;

export const ContextSyncResult = Type.Object(
  {
    ...ContextCommitSummary.properties,
    /** False when this exact tree was already synced at this commit (the call changed nothing). */
    created: Type.Boolean(),
    /** Blobs this call had to store; unchanged files (already stored) are not counted. */
    newBlobs: Type.Integer(),
    changes: Type.Object({ added: Type.Integer(), modified: Type.Integer(), removed: Type.Integer() }),
  },
  { $id: 'ContextSyncResult' },
);
export type ContextSyncResult = Static<typeof ContextSyncResult>;

export const ContextChange = Type.Object({
  path: Type.String(),
  change: ChangeKind,
  sha256: Nullable(Type.String()),
  previousSha256: Nullable(Type.String()),
});
export type ContextChange = Static<typeof ContextChange>;

export const ContextCommit = Type.Object(
  { ...ContextCommitSummary.properties, changes: Type.Array(ContextChange) },
  { $id: 'ContextCommit' },
);
export type ContextCommit = Static<typeof ContextCommit>;

export const ContextFile = Type.Object({ path: Type.String(), sha256: Type.String(), bytes: Type.Integer() });
export type ContextFile = Static<typeof ContextFile>;

export const ContextSource = Type.Object(
  {
    commitSha: Type.String(),
    branch: Nullable(Type.String()),
    syncedAt: DateTime,
    path: Nullable(Type.String()),
    kind: Literals(['tree', 'file']),
    files: Type.Array(ContextFile),
    content: Nullable(Type.String({ description: 'The file bytes, base64, when kind is file.' })),
  },
  { $id: 'ContextSource' },
);
export type ContextSource = Static<typeof ContextSource>;

export const CommitSha = Type.String({
  pattern: '^[0-9a-fA-F]{40}(?:[0-9a-fA-F]{24})?$',
  description: 'A full git commit id (40 hex, or 64 for SHA-256 repositories).',
});

/** The body of POST /v1/context/sync: every file of the tree, base64. */
export const SyncBody = Type.Object(
  {
    commitSha: CommitSha,
    branch: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    files: Type.Array(
      Type.Object(
        { path: Type.String({ minLength: 1, maxLength: 1024 }), content: Type.String() },
        { additionalProperties: false },
      ),
      { maxItems: 2000 },
    ),
  },
  { additionalProperties: false },
);
export type SyncInput = Static<typeof SyncBody>;

/** The querystring of GET /v1/context/changes. */
export const ChangesQuery = Type.Object(
  {
    limit: Type.Optional(Limit(100, 25)),
    offset: Type.Optional(Offset({ default: 0 })),
    branch: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false },
);
/** What the service reads: `limit` and `offset` with their defaults. */
export type ChangesQuery = Static<typeof ChangesQuery> &
  Required<Pick<Static<typeof ChangesQuery>, 'limit' | 'offset'>>;
