// SQL of the retention sweep's per-factory lease (retention_runs): one replica sweeps a factory at a time, and a
// lease left by a crashed one runs out so another takes over.
import type { Db } from '../../db/connection.js';

export interface RetentionRunsTable {
  app_id: string;
  lease_owner: string | null;
  lease_until: number;
  last_finished_at: number | null;
  updated_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    retention_runs: RetentionRunsTable;
  }
}

/** Take (or keep) the factory's lease until `until`; false when another owner holds a live one. */
export async function claim(db: Db, appId: string, owner: string, now: number, until: number): Promise<boolean> {
  await db
    .insertInto('retention_runs')
    .values({ app_id: appId, lease_owner: null, lease_until: 0, last_finished_at: null, updated_at: now })
    .onConflict((oc) => oc.column('app_id').doNothing())
    .execute();
  const res = await db
    .updateTable('retention_runs')
    .set({ lease_owner: owner, lease_until: until, updated_at: now })
    .where('app_id', '=', appId)
    .where((eb) => eb.or([eb('lease_until', '<=', now), eb('lease_owner', '=', owner)]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function release(db: Db, appId: string, owner: string, now: number, finished: boolean): Promise<void> {
  await db
    .updateTable('retention_runs')
    .set({
      lease_owner: null,
      lease_until: 0,
      updated_at: now,
      ...(finished ? { last_finished_at: now } : {}),
    })
    .where('app_id', '=', appId)
    .where('lease_owner', '=', owner)
    .execute();
}

export async function lastFinished(db: Db, key: string): Promise<number | null> {
  const row = await db
    .selectFrom('retention_runs')
    .select('last_finished_at')
    .where('app_id', '=', key)
    .executeTakeFirst();
  return row?.last_finished_at == null ? null : Number(row.last_finished_at);
}
