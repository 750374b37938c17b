// SQL for factory API keys (rows of the credentials table with kind factory_key), scoped by factory.
import type { Db } from '../../db/connection.js';
import { kindLiteral } from '../../db/literals.js';
import { preparedQuery } from '../../db/prepared.js';

const COLUMNS = ['id', 'name', 'permissions', 'prefix', 'created_at', 'created_by', 'expires_at'] as const;

const liveKeys = preparedQuery(1, (db: Db, appId: string) =>
  db
    .selectFrom('credentials')
    .select(COLUMNS)
    .where('app_id', '=', appId)
    .where('kind', '=', kindLiteral('factory_key'))
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id'),
);

/** Read on every GET /v1/api-keys: compiled once (src/db/prepared.ts). */
export function listLiveKeys(db: Db, appId: string) {
  return liveKeys(db, appId);
}

export function findLiveKey(db: Db, appId: string, id: string) {
  return db
    .selectFrom('credentials')
    .select(COLUMNS)
    .where('app_id', '=', appId)
    .where('kind', '=', kindLiteral('factory_key'))
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

export function revokeKey(db: Db, appId: string, id: string, now: number) {
  return db
    .updateTable('credentials')
    .set({ revoked_at: now })
    .where('app_id', '=', appId)
    .where('kind', '=', kindLiteral('factory_key'))
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}
