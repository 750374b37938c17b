// Housekeeping purges read by index (issue 42): each sweep of src/server/housekeeping.ts asks for a batch of the
// rows of one kind that ended before a time, which without these read the whole table every hour.
// - sign-in links by expiry;
// - credentials of a kind by expiry, by revocation, and (dashboard sessions) by last use: the ended dashboard
//   sessions, the expired or revoked login tokens and the revoked item keys of ended claims;
// - finished notification deliveries by age.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('dashboard_links_expires').on('dashboard_links').column('expires_at').execute();
  await db.schema.createIndex('credentials_kind_expires').on('credentials').columns(['kind', 'expires_at']).execute();
  await db.schema.createIndex('credentials_kind_revoked').on('credentials').columns(['kind', 'revoked_at']).execute();
  await sql`create index credentials_kind_last_use on credentials (kind, (coalesce(last_used_at, created_at)))`.execute(
    db,
  );
  await db.schema
    .createIndex('notification_deliveries_finished')
    .on('notification_deliveries')
    .columns(['status', 'created_at'])
    .execute();
}
