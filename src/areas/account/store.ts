// SQL of the account: a person's own live login tokens, and when each (or a dashboard session made from it)
// was last used.
import type { Db } from '../../db/connection.js';
import { kindLiteral } from '../../db/literals.js';

export function liveLoginTokens(db: Db, userId: string, now: number) {
  return db
    .selectFrom('credentials')
    .select(['id', 'name', 'prefix', 'created_at', 'expires_at', 'last_used_at'])
    .where('user_id', '=', userId)
    .where('kind', '=', kindLiteral('login_token'))
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

/** The last use of the user's dashboard sessions, per login token they were made from (on the user's index). */
export function sessionUseByToken(db: Db, userId: string) {
  return db
    .selectFrom('credentials')
    .select((eb) => ['parent_id', eb.fn.max('last_used_at').as('last_used_at')])
    .where('user_id', '=', userId)
    .where('kind', '=', kindLiteral('dashboard_session'))
    .groupBy('parent_id')
    .execute();
}

/** Revokes one live login token of `userId`; false when the user has none with this id. */
export async function revokeOwnLoginToken(db: Db, userId: string, id: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('credentials')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('kind', '=', kindLiteral('login_token'))
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
