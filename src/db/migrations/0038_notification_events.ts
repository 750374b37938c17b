// The rest of issue 44's events and budgets by telemetry attribute:
// - session_attributes: the custom resource attributes (OTEL_RESOURCE_ATTRIBUTES such as team=payments) of the
//   sessions OTLP ingest builds, one row per session and key, indexed by (factory, key, value) for a budget's
//   spend query;
// - hosts.offline_noticed_at: the last_heartbeat_at of the offline spell that was announced (host.offline), so
//   a spell notifies once and the next spell (a new heartbeat, then silence) notifies again; an index on
//   last_heartbeat_at for the sweep that finds the silent hosts of every factory;
// - claims.expiry_noticed_at: when the claim's expiry was announced (work_item.claim_expired), once per claim,
//   and an index on expires_at for the sweep that finds the claims whose lease ran out.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('session_attributes')
    .addColumn('app_id', 'text', (c) => c.notNull())
    // sessions.session_key: the same session whether telemetry or a transcript stored it last
    .addColumn('session_key', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_attributes_pk', ['app_id', 'session_key', 'key'])
    .execute();
  await db.schema
    .createIndex('session_attributes_value')
    .on('session_attributes')
    .columns(['app_id', 'key', 'value', 'session_key'])
    .execute();

  await db.schema.alterTable('hosts').addColumn('offline_noticed_at', 'bigint').execute();
  await db.schema.createIndex('hosts_last_heartbeat').on('hosts').columns(['last_heartbeat_at']).execute();
  await db.schema.alterTable('claims').addColumn('expiry_noticed_at', 'bigint').execute();
  await db.schema.createIndex('claims_expires').on('claims').columns(['expires_at']).execute();
}
