// The API key list reads a factory's live keys in creation order; with the order in the index SQLite and
// PostgreSQL read them in place instead of sorting them per request (SQLite built a temporary b-tree for
// every GET /v1/api-keys).
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex('credentials_app_kind_created')
    .on('credentials')
    .columns(['app_id', 'kind', 'created_at', 'id'])
    .execute();
}
