// SQL of identity sign-in: the flows under way (state kept as a digest, PKCE verifier, nonce, the invitation
// they carry), the identities users sign in with (provider + subject → user), and the GitHub user token of
// each user's latest GitHub sign-in (sealed).
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

export interface GitHubUserTokensTable {
  user_id: string;
  subject: string;
  token_enc: string;
  created_at: number;
  expires_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    sign_in_flows: SignInFlowsTable;
    identities: IdentitiesTable;
    github_user_tokens: GitHubUserTokensTable;
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

/** Keeps the token of the user's latest GitHub sign-in (replacing an earlier one). */
export async function saveGitHubUserToken(db: Db, row: GitHubUserTokensTable): Promise<void> {
  await db
    .insertInto('github_user_tokens')
    .values(row)
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({
        subject: row.subject,
        token_enc: row.token_enc,
        created_at: row.created_at,
        expires_at: row.expires_at,
      }),
    )
    .execute();
}

export function liveGitHubUserToken(db: Db, userId: string, now: number) {
  return db
    .selectFrom('github_user_tokens')
    .selectAll()
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Deletes the tokens no longer live at `now` (expired at or before it). */
export async function deleteGitHubUserTokensExpired(db: Db, now: number): Promise<number> {
  const res = await db.deleteFrom('github_user_tokens').where('expires_at', '<=', now).executeTakeFirst();
  return Number(res.numDeletedRows);
}
