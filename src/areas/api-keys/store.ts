// SQL for factory API keys (rows of the credentials table with kind factory_key), scoped by factory.
import type { Db } from '../../db/connection.js';

const COLUMNS = ['id', 'name', 'permissions', 'prefix', 'created_at', 'created_by', 'expires_at'] as const;

export function listLiveKeys(db: Db, appId: string) {
  return db
    .selectFrom('credentials')
    .select(COLUMNS)
    .where('app_id', '=', appId)
    .where('kind', '=', 'factory_key')
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findLiveKey(db: Db, appId: string, id: string) {
  return db
    .selectFrom('credentials')
    .select(COLUMNS)
    .where('app_id', '=', appId)
    .where('kind', '=', 'factory_key')
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

export function revokeKey(db: Db, appId: string, id: string, now: number) {
  return db
    .updateTable('credentials')
    .set({ revoked_at: now })
    .where('app_id', '=', appId)
    .where('kind', '=', 'factory_key')
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}
