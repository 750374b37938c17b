// OTLP's events (0034) keyed by their session: the primary key becomes (app_id, agent, session_id, event_key)
// and the separate session index goes. An event key starts with the event's time (otlp/events.ts), so one
// structure does what three did: it finds a record sent again (the same record is always the same session), it
// reads a session's events in time order, and it takes new events near its end. On SQLite the table is rebuilt
// WITHOUT ROWID (the rows live in that key's B-tree, not in a rowid table beside two indexes): storing an
// export's events wrote three B-trees a row.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'sqlite') {
    await sql`alter table telemetry_events drop constraint telemetry_events_pk`.execute(db);
    await sql`alter table telemetry_events
      add constraint telemetry_events_pk primary key (app_id, agent, session_id, event_key)`.execute(db);
    await sql`drop index telemetry_events_session`.execute(db);
    return;
  }
  await sql`create table telemetry_events_0051 (
    app_id text not null,
    event_key text not null,
    org_id text not null,
    agent text not null,
    session_id text not null,
    name text not null,
    ts bigint not null,
    seq bigint not null,
    data text not null,
    received_at bigint not null,
    constraint telemetry_events_pk primary key (app_id, agent, session_id, event_key)
  ) without rowid`.execute(db);
  const columns = sql.raw('app_id, event_key, org_id, agent, session_id, name, ts, seq, data, received_at');
  await sql`insert into telemetry_events_0051 select ${columns} from telemetry_events`.execute(db);
  await sql`drop table telemetry_events`.execute(db);
  await sql`alter table telemetry_events_0051 rename to telemetry_events`.execute(db);
}
