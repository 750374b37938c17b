// SQL for factories (apps). Every read is scoped by org; deleted factories are tombstoned (deleted_at).
import type { Db } from '../../db/connection.js';
import type { AppsTable } from '../../db/schema.js';

export type AppRow = AppsTable;

export function insertApp(db: Db, row: AppRow) {
  return db.insertInto('apps').values(row).execute();
}

export function findLiveApp(db: Db, orgId: string, appId: string) {
  return db.selectFrom('apps').selectAll().where('org_id', '=', orgId).where('id', '=', appId).where('deleted_at', 'is', null).executeTakeFirst();
}

export function findLiveAppByName(db: Db, orgId: string, name: string) {
  return db.selectFrom('apps').selectAll().where('org_id', '=', orgId).where('name', '=', name).where('deleted_at', 'is', null).executeTakeFirst();
}
