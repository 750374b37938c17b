// SQL of identity sign-in: the flows under way (state kept as a digest, PKCE verifier, nonce, the invitation
// they carry) and the identities users sign in with (provider + subject → user).
import type { Db } from '../../db/connection.js';

export interface SignInFlowsTable {
  state_digest: string;
  provider: string;
  code_verifier: string;
  nonce: string | null;
  invitation: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface IdentitiesTable {
  provider: string;
  subject: string;
  user_id: string;
  email: string | null;
  login: string | null;
  created_at: number;
  last_sign_in_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    sign_in_flows: SignInFlowsTable;
    identities: IdentitiesTable;
  }
}

export function insertFlow(db: Db, row: SignInFlowsTable): Promise<unknown> {
  return db.insertInto('sign_in_flows').values(row).execute();
}

/** Uses a live flow of `provider` once (a replayed callback finds it used); the row when this call used it. */
export async function useFlow(db: Db, stateDigest: string, provider: string, now: number) {
  const res = await db
    .updateTable('sign_in_flows')
    .set({ used_at: now })
    .where('state_digest', '=', stateDigest)
    .where('provider', '=', provider)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return undefined;
  return db.selectFrom('sign_in_flows').selectAll().where('state_digest', '=', stateDigest).executeTakeFirst();
}

export async function deleteFlowsExpiredBefore(db: Db, before: number): Promise<number> {
  const res = await db.deleteFrom('sign_in_flows').where('expires_at', '<', before).executeTakeFirst();
  return Number(res.numDeletedRows);
}

export function findIdentity(db: Db, provider: string, subject: string) {
  return db
    .selectFrom('identities')
    .selectAll()
    .where('provider', '=', provider)
    .where('subject', '=', subject)
    .executeTakeFirst();
}

export function identitiesOfUser(db: Db, userId: string, provider: string) {
  return db
    .selectFrom('identities')
    .selectAll()
    .where('user_id', '=', userId)
    .where('provider', '=', provider)
    .execute();
}

export function insertIdentity(db: Db, row: IdentitiesTable): Promise<unknown> {
  return db.insertInto('identities').values(row).execute();
}

export function touchIdentity(db: Db, provider: string, subject: string, email: string | null, now: number) {
  return db
    .updateTable('identities')
    .set({ last_sign_in_at: now, email })
    .where('provider', '=', provider)
    .where('subject', '=', subject)
    .execute();
}
