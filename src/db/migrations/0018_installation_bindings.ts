// Which GitHub App installations a factory may connect repositories from (issue 19 item 11). A binding is
// made only through the gateway's own install link (a signed, single-use state issued to a user of the
// factory, returned by GitHub's setup URL) or by the operator's admin token. Spent install states are kept
// as digests so each works once, on every replica (the primary key decides a race).
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('installation_bindings')
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('installation_id', 'bigint', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    // The installation's account login as GitHub answered it at binding time (shown, never trusted).
    .addColumn('account', 'text')
    // 'install_link' or 'admin'
    .addColumn('bound_via', 'text', (c) => c.notNull())
    .addColumn('bound_by', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('installation_bindings_pk', ['app_id', 'installation_id'])
    .execute();

  await db.schema
    .createTable('install_states_used')
    // HMAC digest of the whole state string (keyed with the pepper, like every stored secret).
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    // When the state would have expired anyway: rows older than this can be deleted.
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint', (c) => c.notNull())
    .execute();
}
