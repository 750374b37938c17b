// `attest login` through the browser (issue 43 §3): the one-time codes of the loopback redirect (PKCE S256,
// the exact redirect URI they were issued for) and the device codes of the device flow (the code a person
// confirms, kept only as digests). The sign-in flows gain the dashboard page to return to once signed in.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('cli_login_codes')
    .addColumn('code_digest', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();

  await db.schema
    .createTable('cli_device_codes')
    .addColumn('device_digest', 'text', (c) => c.primaryKey())
    .addColumn('user_code_digest', 'text', (c) => c.notNull().unique())
    .addColumn('client_name', 'text', (c) => c.notNull())
    // where the CLI asked from, shown on the confirmation page
    .addColumn('requested_ip', 'text', (c) => c.notNull())
    .addColumn('interval_ms', 'integer', (c) => c.notNull())
    .addColumn('polled_at', 'bigint')
    // the user who confirmed (or refused) the code, and when
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('decided_at', 'bigint')
    .addColumn('denied', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();

  // a dashboard path (starting with one '/') to land on after the provider's callback, or null
  await db.schema.alterTable('sign_in_flows').addColumn('next_path', 'text').execute();
}
