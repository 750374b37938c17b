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
 * SQLite: one session's events a statement, their own five columns bound as values and the session's and the
 * request's once each. Every `->>` that read a column out of one JSON parameter (json_each) cost more than
 * binding the value: an event stored about 5.7 µs of CPU that way, 3.1 µs bound. A session's events go in
 * chunks of a power of two (at most CHUNK), so seven statements of each form are prepared and kept, whatever
 * the sessions' sizes. `?1`-`?5` are the shared columns; each row's values follow.
 */
const CHUNK = 64;
const sqliteInserts = new Map<string, string>();
function sqliteInsert(rows: number, returning: boolean): string {
  const id = `${rows}${returning ? 'r' : ''}`;
  let text = sqliteInserts.get(id);
  if (!text) {
    const values = Array.from({ length: rows }, (_, r) => {
      const b = 6 + r * 5;
      return `(?1, ?${b}, ?2, ?4, ?5, ?${b + 1}, ?${b + 2}, ?${b + 3}, ?${b + 4}, ?3)`;
    });
    text =
      'insert into "telemetry_events" ("app_id", "event_key", "org_id", "agent", "session_id", "name", "ts", ' +
      `"seq", "data", "received_at") values ${values.join(', ')} ${CONFLICT}${returning ? RETURNING : ''}`;
    sqliteInserts.set(id, text);
  }
  return text;
}

/** The statements (SQL text and parameters) that insert `batch` on SQLite: by session, in chunks (sqliteInsert). */
function sqliteStatements(batch: EventBatch): { rows: number; parameters: unknown[] }[] {
  const bySession = new Map<string, EventBatch['events']>();
  for (const e of batch.events) {
    const key = `${e.agent}\u0000${e.session_id}`;
    const list = bySession.get(key);
    if (list) list.push(e);
    else bySession.set(key, [e]);
  }
  const out: { rows: number; parameters: unknown[] }[] = [];
  for (const list of bySession.values()) {
    for (let i = 0; i < list.length; ) {
      let rows = CHUNK;
      while (rows > list.length - i) rows >>= 1;
      const parameters: unknown[] = [batch.appId, batch.orgId, batch.receivedAt, list[0]!.agent, list[0]!.session_id];
      for (let r = i; r < i + rows; r++) {
        const e = list[r]!;
        parameters.push(e.event_key, e.name, e.ts, e.seq, e.data);
      }
      out.push({ rows, parameters });
      i += rows;
    }
  }
  return out;
}

const SAVEPOINT = CompiledQuery.raw('savepoint "telemetry_events_insert"');
const ROLLBACK_TO = CompiledQuery.raw('rollback to "telemetry_events_insert"');
const RELEASE = CompiledQuery.raw('release "telemetry_events_insert"');

/**
 * PostgreSQL: the events as one JSON parameter too (as db/bulk-insert.ts writes rows), read as a recordset. A
 * plain insert stores a row in about two thirds of the time `on conflict do nothing` takes (its speculative
 * insertion probes the key first): 512 events of an export, 3.4 ms of the server's CPU against 5.3. So the first
 * try of an export is plain and names no key back; a key already stored (an exporter's retry) fails it with a
 * unique violation, and the caller runs its transaction again with `mayBeStored`, which skips the stored keys.
 */
const POSTGRES_INSERT =
  'insert into "telemetry_events" ("app_id", "event_key", "org_id", "agent", "session_id", "name", "ts", "seq", ' +
  '"data", "received_at") select $1, e.event_key, $2, e.agent, e.session_id, e.name, e.ts, e.seq, e.data, $3 ' +
  'from json_to_recordset($4::json) as e(event_key text, agent text, session_id text, name text, ts bigint, ' +
  'seq bigint, data text)';

/**
 * Thrown (PostgreSQL) by a first try that met an event already stored: its transaction is aborted, and the
 * caller runs it again with `mayBeStored`.
 */
export class EventsAlreadyStored extends Error {
  constructor() {
    super('some events of this export are stored already');
  }
}

const isUniqueViolationOfKey = (err: unknown): boolean =>
  typeof err === 'object' &&
  err !== null &&
  (err as { code?: unknown }).code === '23505' &&
  (err as { constraint?: unknown }).constraint === 'telemetry_events_pk';

/**
 * Insert the events not stored yet; answers the keys of those that were new. PostgreSQL: unless `mayBeStored`,
 * throws EventsAlreadyStored when one is stored (see POSTGRES_INSERT).
 */
export async function insertEventBatch(db: Db, batch: EventBatch, mayBeStored = false): Promise<Set<string>> {
  if (!batch.events.length) return new Set();
  const inserted = new Set<string>();
  if (isPostgres(db)) {
    const parameters = [batch.appId, batch.orgId, batch.receivedAt, JSON.stringify(batch.events)];
    if (!mayBeStored) {
      try {
        await db.executeQuery(CompiledQuery.raw(POSTGRES_INSERT, parameters));
      } catch (err) {
        throw isUniqueViolationOfKey(err) ? new EventsAlreadyStored() : err;
      }
      for (const e of batch.events) inserted.add(e.event_key);
      return inserted;
    }
    const res = await db.executeQuery<{ event_key: string }>(
      CompiledQuery.raw(`${POSTGRES_INSERT} ${CONFLICT}${RETURNING}`, parameters),
    );
    for (const r of res.rows) inserted.add(r.event_key);
    return inserted;
  }
  const statements = sqliteStatements(batch);
  // Almost always every event is new (the keys of a request are distinct): the statements' counts say so,
  // without reading a key back a row (a fifth of the insert's cost). Otherwise (a retry) they are undone and run
  // again, answering which keys were new.
  await db.executeQuery(SAVEPOINT);
  let counted = 0;
  for (const { rows, parameters } of statements) {
    const res = await db.executeQuery(CompiledQuery.raw(sqliteInsert(rows, false), parameters));
    counted += res.numAffectedRows === undefined ? Number.NaN : Number(res.numAffectedRows);
  }
  if (counted === batch.events.length) {
    for (const e of batch.events) inserted.add(e.event_key);
  } else {
    await db.executeQuery(ROLLBACK_TO);
    for (const { rows, parameters } of statements) {
      const res = await db.executeQuery<{ event_key: string }>(CompiledQuery.raw(sqliteInsert(rows, true), parameters));
      for (const r of res.rows) inserted.add(r.event_key);
    }
  }
  await db.executeQuery(RELEASE);
  return inserted;
}
