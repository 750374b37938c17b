// OAuth 2.1 for MCP connector clients: registered clients, single-use authorization codes, grants (one per
// consent), rotating refresh tokens, and the link from an access token (a row in `credentials`, kind
// oauth_token) to its grant. Codes and tokens are stored only as HMAC digests, like every credential.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  // The resource (MCP URL) an OAuth access token is bound to; null for every other credential kind.
  await db.schema.alterTable('credentials').addColumn('audience', 'text').execute();

  // Clients registered dynamically (RFC 7591). Clients identified by a metadata-document URL are not
  // stored: their document is fetched when they are used.
  await db.schema
    .createTable('oauth_clients')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  // What a user approved on the consent page: one client, one factory, one resource, some scopes.
  await db.schema
    .createTable('oauth_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('oauth_grants_app_user').on('oauth_grants').columns(['app_id', 'user_id']).execute();

  await db.schema
    .createTable('oauth_codes')
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('oauth_refresh_tokens')
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_refresh_tokens_grant').on('oauth_refresh_tokens').columns(['grant_id']).execute();

  await db.schema
    .createTable('oauth_access_tokens')
    .addColumn('credential_id', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_access_tokens_grant').on('oauth_access_tokens').columns(['grant_id']).execute();
}
