// Lookups of sessions by id inside a factory (`app_id = ? and id in (...)`, e.g. PR outcomes of a list page)
// must use an index on both columns. Without one, SQLite (no statistics on a fresh database) picks an index
// that starts with app_id and reads every session of the factory: 21 ms at 20k sessions instead of 0.1 ms.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('sessions_app_id_id').on('sessions').columns(['app_id', 'id']).unique().execute();
  await db.schema
    .createIndex('session_model_usage_app_session')
    .on('session_model_usage')
    .columns(['app_id', 'session_id'])
    .execute();
}
