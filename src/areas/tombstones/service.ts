// Tombstones (issue 42): a deleted session or artifact leaves its id behind, so a link to it (in a PR comment,
// a bookmark, a teammate's message) answers 410 "deleted" instead of a 404 that looks like a broken link. Low on
// purpose: any area may call it (the reads that answer 410, the lifecycle area that deletes).
import type { Db } from '../../db/connection.js';
import { apiError } from '../../server/errors.js';
import * as store from './store.js';

export type TombstoneKind = 'session' | 'artifact';
/** `request`: a person deleted it; `retention`: the factory's retention did. */
export type DeletionReason = 'request' | 'retention';

export async function recordDeletions(
  db: Db,
  appId: string,
  kind: TombstoneKind,
  ids: readonly string[],
  reason: DeletionReason,
  now: number,
): Promise<void> {
  await store.put(
    db,
    ids.map((id) => ({ app_id: appId, kind, id, reason, deleted_at: now })),
  );
}

/** Throws 410 `<kind>_deleted` (with deletedAt and reason) when this id of the factory was deleted. */
export async function assertNotDeleted(db: Db, appId: string, kind: TombstoneKind, id: string): Promise<void> {
  const row = await store.find(db, appId, kind, id);
  if (!row) return;
  const extra = { deletedAt: new Date(Number(row.deleted_at)).toISOString(), reason: row.reason };
  if (kind === 'session') throw apiError('session_deleted', 'This session was deleted.', extra);
  throw apiError('artifact_deleted', 'This artifact was deleted.', extra);
}
