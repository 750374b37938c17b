// SQL of dashboard sign-in: single-use sign-in links (stored only as HMAC digests) and the session rows,
// which live in `credentials` (kind dashboard_session).
import type { Db } from '../../db/connection.js';
import { kindLiteral } from '../../db/literals.js';
import { deleteEndedBefore } from '../../server/auth/store.js';

export interface DashboardLinksTable {
  digest: string;
  user_id: string;
  /** The login token the link was made with; the session it opens acts as that token. */
  login_token_id: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    dashboard_links: DashboardLinksTable;
  }
}

export function insertLink(db: Db, row: DashboardLinksTable): Promise<unknown> {
  return db.insertInto('dashboard_links').values(row).execute();
}

/** Marks a live, unused link used; true when this call is the one that used it (single use under races). */
export async function useLink(db: Db, digest: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('dashboard_links')
    .set({ used_at: now })
    .where('digest', '=', digest)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export function findLink(db: Db, digest: string) {
  return db.selectFrom('dashboard_links').selectAll().where('digest', '=', digest).executeTakeFirst();
}

/**
 * Deletes at most `limit` dashboard sessions that ended before `before` (housekeeping): signed out, past their
 * absolute expiry, or idle for `idleMs` since their last use. How many. Each arm of the condition reads by an
 * index of migration 0042 (kind with revoked_at, expires_at, or the last use).
 */
export function deleteSessionsEndedBefore(db: Db, before: number, idleMs: number, limit: number): Promise<number> {
  return deleteEndedBefore(db, 'dashboard_session', before, limit, idleMs);
}

/** Deletes at most `limit` sign-in links that expired before `before` (housekeeping); how many. */
export async function deleteLinksExpiredBefore(db: Db, before: number, limit: number): Promise<number> {
  const res = await db
    .deleteFrom('dashboard_links')
    .where('digest', 'in', (sub) =>
      sub.selectFrom('dashboard_links').select('digest').where('expires_at', '<', before).limit(limit),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

export function revokeSession(db: Db, credentialId: string, now: number): Promise<unknown> {
  return db
    .updateTable('credentials')
    .set({ revoked_at: now })
    .where('id', '=', credentialId)
    .where('kind', '=', kindLiteral('dashboard_session'))
    .where('revoked_at', 'is', null)
    .execute();
}

export function findUser(db: Db, userId: string) {
  return db.selectFrom('users').select(['id', 'email', 'name']).where('id', '=', userId).executeTakeFirst();
}
