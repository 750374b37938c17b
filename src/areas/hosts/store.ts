// SQL for runner hosts, keyed by (factory, hostId); always scoped by factory.
import type { Db } from '../../db/connection.js';
import { preparedQuery } from '../../db/prepared.js';

export interface HostsTable {
  app_id: string;
  host_id: string;
  org_id: string;
  name: string;
  runner_version: string;
  capacity: number;
  active_jobs: number;
  /** JSON array of strings. */
  labels: string;
  first_seen_at: number;
  last_heartbeat_at: number;
  /** The last_heartbeat_at of the offline spell announced (host.offline); null before any. */
  offline_noticed_at: number | null;
}

declare module '../../db/schema.js' {
  interface Database {
    hosts: HostsTable;
  }
}

export type HostRow = HostsTable;
/** What a heartbeat writes (the announcement marker is the offline sweep's). */
export type HostUpsert = Omit<HostRow, 'offline_noticed_at'>;

/**
 * Inserts the host or refreshes it; first_seen_at keeps its first value. One statement, so racing heartbeats cannot
 * duplicate a host.
 */
export async function upsertHost(db: Db, row: HostUpsert): Promise<void> {
  await db
    .insertInto('hosts')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['app_id', 'host_id']).doUpdateSet({
        name: row.name,
        runner_version: row.runner_version,
        capacity: row.capacity,
        active_jobs: row.active_jobs,
        labels: row.labels,
        last_heartbeat_at: row.last_heartbeat_at,
      }),
    )
    .execute();
}

export function findHost(db: Db, appId: string, hostId: string): Promise<HostRow | undefined> {
  return db
    .selectFrom('hosts')
    .selectAll()
    .where('app_id', '=', appId)
    .where('host_id', '=', hostId)
    .executeTakeFirst();
}

// Compiled once (db/prepared.ts): GET /v1/hosts runs it on every call.
const factoryHosts = preparedQuery(1, (db: Db, appId: string) =>
  db.selectFrom('hosts').selectAll().where('app_id', '=', appId).orderBy('name').orderBy('host_id'),
);

export function listHosts(db: Db, appId: string): Promise<HostRow[]> {
  return factoryHosts(db, appId);
}

/**
 * Hosts of every factory silent since before `silentBefore` but heard from after `heardAfter`, whose current
 * spell (their last heartbeat) was not announced yet; the oldest spells first.
 */
export function unannouncedOffline(
  db: Db,
  silentBefore: number,
  heardAfter: number,
  limit: number,
): Promise<HostRow[]> {
  return db
    .selectFrom('hosts')
    .selectAll()
    .where('last_heartbeat_at', '<', silentBefore)
    .where('last_heartbeat_at', '>', heardAfter)
    .where((eb) =>
      eb.or([eb('offline_noticed_at', 'is', null), eb('offline_noticed_at', '<>', eb.ref('last_heartbeat_at'))]),
    )
    .orderBy('last_heartbeat_at')
    .limit(limit)
    .execute();
}

/** Mark the spell announced, unless a heartbeat ended it meanwhile. */
export async function markOfflineNoticed(
  db: Db,
  appId: string,
  hostId: string,
  lastHeartbeatAt: number,
): Promise<void> {
  await db
    .updateTable('hosts')
    .set({ offline_noticed_at: lastHeartbeatAt })
    .where('app_id', '=', appId)
    .where('host_id', '=', hostId)
    .where('last_heartbeat_at', '=', lastHeartbeatAt)
    .execute();
}
