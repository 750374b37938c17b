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

/** Insert the events not stored yet; answers how many were new. */
export async function insertEvents(db: Db, rows: TelemetryEventsTable[]): Promise<number> {
  let inserted = 0;
  for (let i = 0; i < rows.length; i += 500) {
    const res = await insertRows<{ event_key: string }>(
      db,
      'telemetry_events',
      rows.slice(i, i + 500),
      'on conflict ("app_id", "event_key") do nothing returning "event_key"',
    );
    inserted += res.length;
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
