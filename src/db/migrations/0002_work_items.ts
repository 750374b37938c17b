// Work items, their claims (leases), criteria, findings, pull requests declared onto them, and runner hosts.
//
// The one-live-claim rule lives in the database, not in code: `claims_one_open` is a unique index on
// work_item_id over the claims not yet ended (ended_at is null). A claim whose expires_at has passed is
// still "open" until the next claim ends it inside the same transaction that inserts the new one, so
// two racing claimers (threads, processes or replicas) can never both hold an open row: the loser's
// insert hits the index and becomes 409 work_item_claimed.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('work_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('number', 'bigint', (c) => c.notNull())
    .addColumn('tracker', 'text', (c) => c.notNull())
    .addColumn('tracker_key', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('spec_repository', 'text', (c) => c.notNull())
    .addColumn('spec_number', 'bigint', (c) => c.notNull())
    .addColumn('stage', 'text', (c) => c.notNull())
    .addColumn('section', 'text', (c) => c.notNull())
    .addColumn('block_class', 'text', (c) => c.notNull())
    .addColumn('repository', 'text')
    .addColumn('withdrawn_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('work_items_app_number', ['app_id', 'number'])
    .addUniqueConstraint('work_items_app_tracker_key', ['app_id', 'tracker', 'tracker_key'])
    .execute();

  // The last number handed out per factory. Taking a number is one upsert on this row inside the create
  // transaction, so concurrent creates queue on the row lock instead of colliding and retrying; the
  // unique (app_id, number) above stays the guarantee.
  await db.schema
    .createTable('work_item_counters')
    .addColumn('app_id', 'text', (c) => c.primaryKey())
    .addColumn('last_number', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('claims')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('work_item_id', 'text', (c) => c.notNull().references('work_items.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    // Null only for leases recorded before claims named a branch (imported, migration-era rows).
    .addColumn('branch', 'text')
    .addColumn('ttl_seconds', 'bigint', (c) => c.notNull())
    .addColumn('claimed_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    // The item key minted for this claim (credentials.id); revoked when the claim ends.
    .addColumn('credential_id', 'text')
    .addColumn('ended_at', 'bigint')
    // released | expired | (null while open)
    .addColumn('end_reason', 'text')
    .execute();
  await db.schema
    .createIndex('claims_one_open')
    .on('claims')
    .column('work_item_id')
    .unique()
    .where(sql.ref('ended_at'), 'is', null)
    .execute();
  await db.schema.createIndex('claims_item_claimed').on('claims').columns(['work_item_id', 'claimed_at']).execute();
  await db.schema.createIndex('claims_credential').on('claims').column('credential_id').execute();

  await db.schema
    .createTable('work_item_pull_requests')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('work_item_id', 'text', (c) => c.notNull().references('work_items.id').onDelete('cascade'))
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('number', 'bigint', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('linked_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('work_item_pull_requests_pk', ['work_item_id', 'repository', 'number'])
    .execute();
  await db.schema
    .createIndex('work_item_pull_requests_pr')
    .on('work_item_pull_requests')
    .columns(['app_id', 'repository', 'number'])
    .execute();

  await db.schema
    .createTable('criteria')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('work_item_id', 'text', (c) => c.notNull().references('work_items.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('criterion_id', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('proof', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('criteria_pk', ['work_item_id', 'criterion_id'])
    .execute();

  await db.schema
    .createTable('findings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('work_item_id', 'text', (c) => c.notNull().references('work_items.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('about', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text')
    .addColumn('path', 'text')
    .addColumn('line', 'bigint')
    .addColumn('rule', 'text')
    .addColumn('pr_number', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('findings_item_created').on('findings').columns(['work_item_id', 'created_at']).execute();

  await db.schema
    .createTable('hosts')
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('host_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('runner_version', 'text', (c) => c.notNull())
    .addColumn('capacity', 'integer', (c) => c.notNull())
    .addColumn('active_jobs', 'integer', (c) => c.notNull())
    .addColumn('labels', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('first_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('last_heartbeat_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('hosts_pk', ['app_id', 'host_id'])
    .execute();
}
