// SQL of the telemetry events a factory received: inserted once each (by the record's hash), read back per
// session to rebuild it. Always scoped by app_id.
import type { Db } from '../../db/connection.js';
import { insertRows } from '../../db/bulk-insert.js';

export interface TelemetryEventsTable {
  app_id: string;
  event_key: string;
  org_id: string;
  agent: string;
  session_id: string;
  name: string;
  ts: number;
  seq: number;
  data: string;
  received_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    telemetry_events: TelemetryEventsTable;
  }
}

/** Insert the events not stored yet; answers the keys of those that were new. */
export async function insertEvents(db: Db, rows: TelemetryEventsTable[]): Promise<Set<string>> {
  const inserted = new Set<string>();
  for (let i = 0; i < rows.length; i += 500) {
    const res = await insertRows<{ event_key: string }>(
      db,
      'telemetry_events',
      rows.slice(i, i + 500),
      'on conflict ("app_id", "event_key") do nothing returning "event_key"',
    );
    for (const r of res) inserted.add(r.event_key);
  }
  return inserted;
}

export async function sessionEvents(
  db: Db,
  appId: string,
  agent: string,
  sessionId: string,
): Promise<Pick<TelemetryEventsTable, 'name' | 'ts' | 'seq' | 'data'>[]> {
  return db
    .selectFrom('telemetry_events')
    .select(['name', 'ts', 'seq', 'data'])
    .where('app_id', '=', appId)
    .where('agent', '=', agent)
    .where('session_id', '=', sessionId)
    .orderBy('ts')
    .orderBy('seq')
    .execute();
}

/** How many events are stored of each of these sessions (keyed by JSON of [agent, session id]). */
export async function eventCounts(
  db: Db,
  appId: string,
  sessions: readonly (readonly [agent: string, sessionId: string])[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  // One statement an agent, so each probes the (app_id, agent, session_id, ts) index by its whole prefix.
  for (const agent of new Set(sessions.map(([a]) => a))) {
    const ids = sessions.filter(([a]) => a === agent).map(([, id]) => id);
    const rows = await db
      .selectFrom('telemetry_events')
      .select(['session_id', (eb) => eb.fn.countAll<number | string>().as('n')])
      .where('app_id', '=', appId)
      .where('agent', '=', agent)
      .where('session_id', 'in', ids)
      .groupBy('session_id')
      .execute();
    for (const r of rows) out.set(JSON.stringify([agent, r.session_id]), Number(r.n));
  }
  return out;
}
