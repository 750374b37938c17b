// SQL of the OAuth authorization server: registered clients, grants, single-use codes, rotating refresh
// tokens and the access-token → grant link. Codes and tokens are looked up by their HMAC digest only.
import type { Db } from '../../db/connection.js';
import { kindLiteral } from '../../db/literals.js';

export interface OAuthClientsTable {
  client_id: string;
  /** JSON: the client's registered metadata (RFC 7591), without any secret. */
  metadata: string;
  created_at: number;
}

export interface OAuthGrantsTable {
  id: string;
  client_id: string;
  user_id: string;
  org_id: string;
  app_id: string;
  /** The resource (MCP URL) every token of this grant is bound to. */
  resource: string;
  /** JSON array of granted scopes (read permissions). */
  scopes: string;
  created_at: number;
  revoked_at: number | null;
}

export interface OAuthCodesTable {
  digest: string;
  grant_id: string;
  redirect_uri: string;
  code_challenge: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

export interface OAuthRefreshTokensTable {
  digest: string;
  grant_id: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

export interface OAuthAccessTokensTable {
  credential_id: string;
  grant_id: string;
}

declare module '../../db/schema.js' {
  interface Database {
    oauth_clients: OAuthClientsTable;
    oauth_grants: OAuthGrantsTable;
    oauth_codes: OAuthCodesTable;
    oauth_refresh_tokens: OAuthRefreshTokensTable;
    oauth_access_tokens: OAuthAccessTokensTable;
  }
}

export function insertClient(db: Db, row: OAuthClientsTable): Promise<unknown> {
  return db.insertInto('oauth_clients').values(row).execute();
}

export function findClient(db: Db, clientId: string): Promise<OAuthClientsTable | undefined> {
  return db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

export function insertGrant(db: Db, row: OAuthGrantsTable): Promise<unknown> {
  return db.insertInto('oauth_grants').values(row).execute();
}

export function findGrant(db: Db, id: string): Promise<OAuthGrantsTable | undefined> {
  return db.selectFrom('oauth_grants').selectAll().where('id', '=', id).executeTakeFirst();
}

export function insertCode(db: Db, row: OAuthCodesTable): Promise<unknown> {
  return db.insertInto('oauth_codes').values(row).execute();
}

export function findCode(db: Db, digest: string): Promise<OAuthCodesTable | undefined> {
  return db.selectFrom('oauth_codes').selectAll().where('digest', '=', digest).executeTakeFirst();
}

/** Marks a code used; false when it already was (the caller treats that as a replay). */
export async function useCode(db: Db, digest: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('oauth_codes')
    .set({ used_at: now })
    .where('digest', '=', digest)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Deletes at most `limit` authorization codes that expired before `before` (housekeeping, index 0044); how many. */
export async function deleteCodesExpiredBefore(db: Db, before: number, limit: number): Promise<number> {
  const res = await db
    .deleteFrom('oauth_codes')
    .where('digest', 'in', (sub) =>
      sub.selectFrom('oauth_codes').select('digest').where('expires_at', '<', before).limit(limit),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

export function insertRefreshToken(db: Db, row: OAuthRefreshTokensTable): Promise<unknown> {
  return db.insertInto('oauth_refresh_tokens').values(row).execute();
}

export function findRefreshToken(db: Db, digest: string): Promise<OAuthRefreshTokensTable | undefined> {
  return db.selectFrom('oauth_refresh_tokens').selectAll().where('digest', '=', digest).executeTakeFirst();
}

/** Marks a refresh token used (rotation); false when it already was (a replay). */
export async function useRefreshToken(db: Db, digest: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('oauth_refresh_tokens')
    .set({ used_at: now })
    .where('digest', '=', digest)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export function linkAccessToken(db: Db, credentialId: string, grantId: string): Promise<unknown> {
  return db.insertInto('oauth_access_tokens').values({ credential_id: credentialId, grant_id: grantId }).execute();
}

/** The OAuth access token with this digest, with its grant. */
export function findAccessToken(db: Db, digest: string) {
  return db
    .selectFrom('credentials')
    .innerJoin('oauth_access_tokens', 'oauth_access_tokens.credential_id', 'credentials.id')
    .select([
      'credentials.id as id',
      'credentials.expires_at as expiresAt',
      'credentials.revoked_at as revokedAt',
      'credentials.audience as audience',
      'credentials.permissions as permissions',
      'oauth_access_tokens.grant_id as grantId',
    ])
    .where('credentials.digest', '=', digest)
    .where('credentials.kind', '=', kindLiteral('oauth_token'))
    .executeTakeFirst();
}

export function revokeAccessToken(db: Db, credentialId: string, now: number): Promise<unknown> {
  return db
    .updateTable('credentials')
    .set({ revoked_at: now })
    .where('id', '=', credentialId)
    .where('kind', '=', kindLiteral('oauth_token'))
    .where('revoked_at', 'is', null)
    .execute();
}

/** Revokes a grant and everything issued under it: its access tokens stop and its refresh tokens are spent. */
export async function revokeGrant(db: Db, grantId: string, now: number): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx
      .updateTable('oauth_grants')
      .set({ revoked_at: now })
      .where('id', '=', grantId)
      .where('revoked_at', 'is', null)
      .execute();
    await tx
      .updateTable('oauth_refresh_tokens')
      .set({ used_at: now })
      .where('grant_id', '=', grantId)
      .where('used_at', 'is', null)
      .execute();
    await tx
      .updateTable('credentials')
      .set({ revoked_at: now })
      .where('kind', '=', kindLiteral('oauth_token'))
      .where('revoked_at', 'is', null)
      .where('id', 'in', tx.selectFrom('oauth_access_tokens').select('credential_id').where('grant_id', '=', grantId))
      .execute();
  });
}
