// The insert of a logs export's events (each once, by its key), written for the rate an OTLP receiver takes:
// hundreds of events a request. The SQL is the store's (store.ts holds the table's type).
import { CompiledQuery } from 'kysely';
import { isPostgres, type Db } from '../../db/connection.js';
import type { TelemetryEventsTable } from './store.js';

/** The events of one request: the columns every one of them shares, and each event's own. */
export interface EventBatch {
  appId: string;
  orgId: string;
  receivedAt: number;
  events: Pick<TelemetryEventsTable, 'event_key' | 'agent' | 'session_id' | 'name' | 'ts' | 'seq' | 'data'>[];
}

/** The conflict target is the table's key (migration 0051): a record sent again is always the same session's. */
const CONFLICT = 'on conflict ("app_id", "agent", "session_id", "event_key") do nothing';
const RETURNING = ' returning "event_key"';

/**
 * SQLite: the events travel as one JSON parameter (an array of arrays) read by json_each, with the shared columns
 * bound once, instead of ten values bound an event: libsql's cost is per bound value, and binding 5,120 of them
 * was most of what storing a batch of 512 cost. `where true` lets SQLite parse the upsert after a select.
 */
const SQLITE_INSERT =
  'insert into "telemetry_events" ("app_id", "event_key", "org_id", "agent", "session_id", "name", "ts", "seq", ' +
  '"data", "received_at") select ?1, e.value ->> 0, ?2, e.value ->> 1, e.value ->> 2, e.value ->> 3, ' +
  `e.value ->> 4, e.value ->> 5, e.value ->> 6, ?3 from json_each(?4) as e where true ${CONFLICT}`;
const SAVEPOINT = CompiledQuery.raw('savepoint "telemetry_events_insert"');
const ROLLBACK_TO = CompiledQuery.raw('rollback to "telemetry_events_insert"');
const RELEASE = CompiledQuery.raw('release "telemetry_events_insert"');

/** PostgreSQL: the events as one JSON parameter too (as db/bulk-insert.ts writes rows), read as a recordset. */
const POSTGRES_INSERT =
  'insert into "telemetry_events" ("app_id", "event_key", "org_id", "agent", "session_id", "name", "ts", "seq", ' +
  '"data", "received_at") select $1, e.event_key, $2, e.agent, e.session_id, e.name, e.ts, e.seq, e.data, $3 ' +
  'from json_to_recordset($4::json) as e(event_key text, agent text, session_id text, name text, ts bigint, ' +
  `seq bigint, data text) ${CONFLICT}${RETURNING}`;

/** Insert the events not stored yet; answers the keys of those that were new. */
export async function insertEventBatch(db: Db, batch: EventBatch): Promise<Set<string>> {
  if (!batch.events.length) return new Set();
  const inserted = new Set<string>();
  if (isPostgres(db)) {
    const res = await db.executeQuery<{ event_key: string }>(
      CompiledQuery.raw(POSTGRES_INSERT, [batch.appId, batch.orgId, batch.receivedAt, JSON.stringify(batch.events)]),
    );
    for (const r of res.rows) inserted.add(r.event_key);
    return inserted;
  }
  // Bounded like any statement's parameter: a request holds at most 10,000 records (decode.ts).
  for (let i = 0; i < batch.events.length; i += 2000) {
    const events = batch.events.slice(i, i + 2000);
    const tuples = events.map((e) => [e.event_key, e.agent, e.session_id, e.name, e.ts, e.seq, e.data]);
    const parameters = [batch.appId, batch.orgId, batch.receivedAt, JSON.stringify(tuples)];
    // Almost always every event is new (the keys of a request are distinct): its count says so, without reading
    // a key back a row (a fifth of the insert's cost). Otherwise (a retry) it is undone and inserted again,
    // answering which keys were new.
    await db.executeQuery(SAVEPOINT);
    const counted = await db.executeQuery(CompiledQuery.raw(SQLITE_INSERT, parameters));
    if (Number(counted.numAffectedRows ?? -1) === events.length) {
      for (const e of events) inserted.add(e.event_key);
    } else {
      await db.executeQuery(ROLLBACK_TO);
      const res = await db.executeQuery<{ event_key: string }>(
        CompiledQuery.raw(SQLITE_INSERT + RETURNING, parameters),
      );
      for (const r of res.rows) inserted.add(r.event_key);
    }
    await db.executeQuery(RELEASE);
  }
  return inserted;
}
