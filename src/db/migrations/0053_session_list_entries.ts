// Issue 46: each session row keeps the JSON text the session list answers for it (the fields that depend on
// the row alone), written with the row, so a list page is read as 25 stored texts and spliced into the answer
// instead of 40 columns a row decoded, turned into an object and serialized again. Rows stored before this
// migration have none (NULL): the list computes theirs from the columns until the sessions area's sweep has
// written them, found by the partial index below (empty once every row has one). A later change of the entry's
// shape sets the column back to NULL in its own migration, and the sweep writes the new shape.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('list_entry', 'text').execute();
  await db.schema
    .createIndex('sessions_list_entry_missing')
    .on('sessions')
    .columns(['app_id', 'id'])
    .where(sql.ref('list_entry'), 'is', null)
    .execute();
}
