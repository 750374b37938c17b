// SQL of the tombstones: what was deleted from a factory, when and why (never what it held). Scoped by factory.
import type { Db } from '../../db/connection.js';

export interface TombstonesTable {
  app_id: string;
  kind: string;
  id: string;
  reason: string;
  deleted_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    tombstones: TombstonesTable;
  }
}

export async function put(db: Db, rows: readonly TombstonesTable[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 300)
    await db
      .insertInto('tombstones')
      .values(rows.slice(i, i + 300))
      .onConflict((oc) => oc.doNothing())
      .execute();
}

export function find(db: Db, appId: string, kind: string, id: string): Promise<TombstonesTable | undefined> {
  return db
    .selectFrom('tombstones')
    .selectAll()
    .where('app_id', '=', appId)
    .where('kind', '=', kind)
    .where('id', '=', id)
    .executeTakeFirst();
}
