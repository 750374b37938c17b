// The GitHub user access token a GitHub sign-in obtained, kept (sealed) until it expires, so that binding an
// App installation can ask GitHub which installations that person reaches (GET /user/installations): the
// installation_id GitHub's setup page sends back is not signed, and the person's own token is what proves it.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('github_user_tokens')
    // one per user: the latest GitHub sign-in replaces it
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    // GitHub's numeric user id (the identity's subject)
    .addColumn('subject', 'text', (c) => c.notNull())
    // AES-256-GCM under a key derived from the pepper (v1.<iv|tag|ciphertext>)
    .addColumn('token_enc', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('github_user_tokens_expiry').on('github_user_tokens').columns(['expires_at']).execute();
}
