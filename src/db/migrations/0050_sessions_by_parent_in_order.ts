// A session's subagent transcripts in the order its transcript page lists them (issue 46): by parent, kind and
// start. With only (app_id, parent_session_id), SQLite's planner took the ordered (app_id, is_subagent,
// started_at, id) index of the list instead, to skip the sort, and walked every subagent session of the
// factory testing its parent: a transcript read cost grew with the factory's history (73 ms of CPU at 100k
// sessions). This index answers the filter and the order at once, and holds the old one as its prefix.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('sessions_app_parent_in_order')
    .on('sessions')
    .columns(['app_id', 'parent_session_id', 'is_subagent', 'started_at', 'id'])
    .execute();
  await db.schema.dropIndex('sessions_app_parent').execute();
}
