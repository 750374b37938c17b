// SQL of identity sign-in: the flows under way (state kept as a digest, PKCE verifier, nonce, the invitation
// they carry), the identities users sign in with (provider + subject → user), the GitHub user token of each
// user's latest GitHub sign-in (sealed); and of `attest login` through the browser: the loopback codes and
// the device codes (digests only).
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
  next_path: string | null;
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

export interface CliLoginCodesTable {
  code_digest: string;
  user_id: string;
  code_challenge: string;
  redirect_uri: string;
  client_name: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface CliDeviceCodesTable {
  device_digest: string;
  user_code_digest: string;
  client_name: string;
  requested_ip: string;
  interval_ms: number;
  polled_at: number | null;
  user_id: string | null;
  decided_at: number | null;
  denied: number;
  used_at: number | null;
  created_at: number;
  expires_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    sign_in_flows: SignInFlowsTable;
    identities: IdentitiesTable;
    github_user_tokens: GitHubUserTokensTable;
    cli_login_codes: CliLoginCodesTable;
    cli_device_codes: CliDeviceCodesTable;
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

/**
 * Deletes at most `limit` sign-in flows, CLI loopback codes or CLI device codes (one table a call) that expired
 * before `before` (housekeeping, index 0044); how many.
 */
export async function deleteFlowsExpiredBefore(
  db: Db,
  table: 'sign_in_flows' | 'cli_login_codes' | 'cli_device_codes',
  before: number,
  limit: number,
): Promise<number> {
  const res =
    table === 'sign_in_flows'
      ? await db
          .deleteFrom(table)
          .where('state_digest', 'in', (sub) =>
            sub.selectFrom(table).select('state_digest').where('expires_at', '<', before).limit(limit),
          )
          .executeTakeFirst()
      : table === 'cli_login_codes'
        ? await db
            .deleteFrom(table)
            .where('code_digest', 'in', (sub) =>
              sub.selectFrom(table).select('code_digest').where('expires_at', '<', before).limit(limit),
            )
            .executeTakeFirst()
        : await db
            .deleteFrom(table)
            .where('device_digest', 'in', (sub) =>
              sub.selectFrom(table).select('device_digest').where('expires_at', '<', before).limit(limit),
            )
            .executeTakeFirst();
  return Number(res.numDeletedRows);
}

export function insertLoginCode(db: Db, row: CliLoginCodesTable): Promise<unknown> {
  return db.insertInto('cli_login_codes').values(row).execute();
}

/** Uses a live loopback code once; the row when this call used it (a second exchange finds it used). */
export async function useLoginCode(db: Db, codeDigest: string, now: number) {
  const res = await db
    .updateTable('cli_login_codes')
    .set({ used_at: now })
    .where('code_digest', '=', codeDigest)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return undefined;
  return db.selectFrom('cli_login_codes').selectAll().where('code_digest', '=', codeDigest).executeTakeFirst();
}

export function insertDeviceCode(db: Db, row: CliDeviceCodesTable): Promise<unknown> {
  return db.insertInto('cli_device_codes').values(row).execute();
}

export function findDeviceCode(db: Db, deviceDigest: string) {
  return db.selectFrom('cli_device_codes').selectAll().where('device_digest', '=', deviceDigest).executeTakeFirst();
}

/** A device code still waiting for a person, by its user code. */
export function findPendingUserCode(db: Db, userCodeDigest: string, now: number) {
  return db
    .selectFrom('cli_device_codes')
    .selectAll()
    .where('user_code_digest', '=', userCodeDigest)
    .where('decided_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Records a person's decision on a pending code; false when it was decided or expired meanwhile. */
export async function decideUserCode(
  db: Db,
  userCodeDigest: string,
  userId: string,
  denied: boolean,
  now: number,
): Promise<boolean> {
  const res = await db
    .updateTable('cli_device_codes')
    .set({ user_id: userId, decided_at: now, denied: denied ? 1 : 0 })
    .where('user_code_digest', '=', userCodeDigest)
    .where('decided_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export function recordDevicePoll(db: Db, deviceDigest: string, polledAt: number, intervalMs: number) {
  return db
    .updateTable('cli_device_codes')
    .set({ polled_at: polledAt, interval_ms: intervalMs })
    .where('device_digest', '=', deviceDigest)
    .execute();
}

/** Marks a confirmed device code as exchanged, once; true when this call did. */
export async function useDeviceCode(db: Db, deviceDigest: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('cli_device_codes')
    .set({ used_at: now, polled_at: now })
    .where('device_digest', '=', deviceDigest)
    .where('used_at', 'is', null)
    .where('denied', '=', 0)
    .where('decided_at', 'is not', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
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

/** Deletes at most `limit` tokens no longer live at `now` (expired at or before it; index 0040); how many. */
export async function deleteGitHubUserTokensExpired(db: Db, now: number, limit: number): Promise<number> {
  const res = await db
    .deleteFrom('github_user_tokens')
    .where('user_id', 'in', (sub) =>
      sub.selectFrom('github_user_tokens').select('user_id').where('expires_at', '<=', now).limit(limit),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
