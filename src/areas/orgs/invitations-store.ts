// SQL of invitations (single-use links to join an org, kept only as digests) and of an org's auto-join setting.
import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../../db/connection.js';
import type { Database } from '../../db/schema.js';

export interface InvitationsTable {
  id: string;
  org_id: string;
  digest: string;
  email: string | null;
  role: string;
  created_by: string | null;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  accepted_by: string | null;
  revoked_at: number | null;
}

declare module '../../db/schema.js' {
  interface Database {
    invitations: InvitationsTable;
  }
}

/** An invitation still open at `now`: not accepted, not revoked, not expired. */
const openAt = (now: number) => (eb: ExpressionBuilder<Database, 'invitations'>) =>
  eb.and([eb('accepted_at', 'is', null), eb('revoked_at', 'is', null), eb('expires_at', '>', now)]);

export function insertInvitation(db: Db, row: InvitationsTable): Promise<unknown> {
  return db.insertInto('invitations').values(row).execute();
}

/** The org's invitations still open at `now` (not accepted, revoked or expired), newest first. */
export function listOpen(db: Db, orgId: string, now: number) {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('org_id', '=', orgId)
    .where(openAt(now))
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

/** Revokes an open invitation of the org; the row when this call revoked it. */
export async function revoke(db: Db, orgId: string, id: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('invitations')
    .set({ revoked_at: now })
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where(openAt(now))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export function findByDigest(db: Db, digest: string) {
  return db.selectFrom('invitations').selectAll().where('digest', '=', digest).executeTakeFirst();
}

export function findById(db: Db, orgId: string, id: string) {
  return db.selectFrom('invitations').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}

/** Marks an open invitation accepted by `userId`; true when this call is the one that used it (single use). */
export async function markAccepted(db: Db, id: string, userId: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('invitations')
    .set({ accepted_at: now, accepted_by: userId })
    .where('id', '=', id)
    .where(openAt(now))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * Deletes at most `limit` invitations that ended one way (expired, accepted or revoked: `column`) before `before`
 * (housekeeping); how many. One way a call, each read by its own index (migration 0044): SQLite scans the table
 * for an OR of the three.
 */
export async function deleteEndedBefore(
  db: Db,
  column: 'expires_at' | 'accepted_at' | 'revoked_at',
  before: number,
  limit: number,
): Promise<number> {
  const res = await db
    .deleteFrom('invitations')
    .where('id', 'in', (sub) => sub.selectFrom('invitations').select('id').where(column, '<', before).limit(limit))
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

export function setAutoJoin(db: Db, orgId: string, autoJoin: string | null, now: number) {
  return db.updateTable('orgs').set({ auto_join: autoJoin, updated_at: now }).where('id', '=', orgId).execute();
}

/** Every org with auto-join on (few: it is an org-wide setting). */
export function orgsWithAutoJoin(db: Db) {
  return db.selectFrom('orgs').select(['id', 'name', 'auto_join']).where('auto_join', 'is not', null).execute();
}
