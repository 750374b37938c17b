// Budgets and outbound notifications (issue 44):
// - notification_channels: a factory's webhook or Slack target, the events it takes, its (encrypted) signing
//   secret, and the failure count that disables a dead one;
// - notification_deliveries: one durable row per event and channel, claimed with a lease by one replica at
//   a time, retried with backoff; the request and response bodies are kept 7 days (housekeeping);
// - budgets, and budget_notices whose unique key (budget, period, kind, threshold) is what makes a crossing
//   notify once, whichever replica or re-sync sees it first;
// - budget_evaluations: per factory, the sessions' updated_at up to which its budgets were evaluated.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('notification_channels')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // 'webhook' | 'slack'
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    // JSON array of event types
    .addColumn('events', 'text', (c) => c.notNull())
    // webhook only: the signing secret, AES-256-GCM under a key derived from the pepper
    .addColumn('secret_enc', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('notification_channels_app')
    .on('notification_channels')
    .columns(['app_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('notification_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text', (c) => c.notNull().references('notification_channels.id').onDelete('cascade'))
    // the idempotency key the receiver sees (X-Attest-Event-Id); one delivery per event and channel
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    // JSON of the event; null once past keeping
    .addColumn('event', 'text')
    // 'pending' | 'succeeded' | 'failed'
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'bigint')
    .addColumn('response_code', 'integer')
    .addColumn('latency_ms', 'integer')
    .addColumn('error', 'text')
    // the body last sent and the answer's first bytes; null once past keeping
    .addColumn('request_body', 'text')
    .addColumn('response_body', 'text')
    .addColumn('last_attempt_at', 'bigint')
    .addColumn('delivered_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('notification_deliveries_event', ['channel_id', 'event_id'])
    .execute();
  await db.schema
    .createIndex('notification_deliveries_due')
    .on('notification_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('notification_deliveries_channel')
    .on('notification_deliveries')
    .columns(['app_id', 'channel_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('budgets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // 'factory' | 'actor' | 'repository'
    .addColumn('scope_kind', 'text', (c) => c.notNull())
    // the actor id or the normalized owner/repo; '' for the factory
    .addColumn('scope_value', 'text', (c) => c.notNull())
    .addColumn('amount_micros', 'bigint', (c) => c.notNull())
    // 'day' | 'week' | 'month'
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    // JSON array of percentages, ascending
    .addColumn('thresholds', 'text', (c) => c.notNull())
    // JSON array of channel ids
    .addColumn('notify', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('budgets_app').on('budgets').columns(['app_id', 'created_at']).execute();

  await db.schema
    .createTable('budget_notices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('budget_id', 'text', (c) => c.notNull().references('budgets.id').onDelete('cascade'))
    // the period's first local day, e.g. 2026-11-02
    .addColumn('period_key', 'text', (c) => c.notNull())
    // 'threshold' | 'forecast'
    .addColumn('kind', 'text', (c) => c.notNull())
    // the percentage crossed; 100 for the forecast
    .addColumn('threshold', 'integer', (c) => c.notNull())
    .addColumn('spend_micros', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('budget_notices_once', ['budget_id', 'period_key', 'kind', 'threshold'])
    .execute();

  await db.schema
    .createTable('budget_evaluations')
    .addColumn('app_id', 'text', (c) => c.primaryKey())
    .addColumn('watermark', 'bigint', (c) => c.notNull())
    // how many of the factory's sessions had updated_at >= watermark then (a change within the same ms shows)
    .addColumn('ties', 'integer', (c) => c.notNull())
    .addColumn('evaluated_at', 'bigint', (c) => c.notNull())
    .execute();
}
