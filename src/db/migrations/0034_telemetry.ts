// OpenTelemetry in (issue 41): every agent event a factory received over OTLP, once each (keyed by a hash of
// the record, so an exporter's retry stores nothing new), from which its session is rebuilt; and where each
// session's figures come from (`transcript`, or `telemetry` until a transcript of it is synced).
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('sessions')
    .addColumn('capture_source', 'text', (c) => c.notNull().defaultTo('transcript'))
    .execute();

  await db.schema
    .createTable('telemetry_events')
    .addColumn('app_id', 'text', (c) => c.notNull())
    // sha256 hex of the record and its resource
    .addColumn('event_key', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    // 'claude-code' | 'codex'
    .addColumn('agent', 'text', (c) => c.notNull())
    // the agent's session id (Claude Code's session.id, Codex's conversation.id)
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('ts', 'bigint', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    // JSON of the attributes kept (otlp/events.ts)
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('telemetry_events_pk', ['app_id', 'event_key'])
    .execute();
  await db.schema
    .createIndex('telemetry_events_session')
    .on('telemetry_events')
    .columns(['app_id', 'agent', 'session_id', 'ts'])
    .execute();
}
