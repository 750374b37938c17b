// The rest of housekeeping's purges read by index (issue 42; migration 0042 has the first ones): each asks for a
// batch of one kind's rows that ended before a time, which without these read the whole table every hour.
// - OAuth authorization codes, spent GitHub App install states, identity sign-in flows, the CLI's loopback and
//   device codes: by expiry;
// - invitations by each way one ends (expiry, acceptance, revocation), purged one way at a time;
// - notification deliveries whose bodies are still kept, by age (a partial index: once a body is dropped, the
//   row leaves it, so the hourly pass never walks the month of already dropped ones).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['oauth_codes', 'install_states_used', 'sign_in_flows', 'cli_login_codes', 'cli_device_codes'])
    await db.schema.createIndex(`${table}_expires`).on(table).column('expires_at').execute();
  for (const column of ['expires_at', 'accepted_at', 'revoked_at'])
    await db.schema
      .createIndex(`invitations_${column.replace('_at', '')}`)
      .on('invitations')
      .column(column)
      .execute();
  await sql`create index notification_deliveries_bodies on notification_deliveries (created_at)
    where status <> 'pending' and (request_body is not null or event is not null)`.execute(db);
}
