// Dashboard sign-in (issue 13): a dashboard session is a row in `credentials` (kind dashboard_session,
// stored as an HMAC digest like every credential) that remembers the login token it came from
// (`parent_id`, so deleting that token ends the session) and when it was last used (`last_used_at`, for
// the idle expiry). Sign-in links are single-use digests in their own table.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('credentials').addColumn('parent_id', 'text').execute();
  await db.schema.alterTable('credentials').addColumn('last_used_at', 'bigint').execute();

  await db.schema
    .createTable('dashboard_links')
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('login_token_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}
