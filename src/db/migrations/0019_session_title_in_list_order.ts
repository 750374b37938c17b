// Title search (`GET /v1/sessions?q=`) with a frequent needle walks the list's own started_at index in order
// and tests each title, stopping when the page is full; counting the matches of a window tests every title
// of it. With the title in those two indexes (the repo's and the all-repos one) the count reads index
// entries only, not one table row per session: at 100k sessions the count of a 30-day window went from
// 19 ms to 3.5 ms of CPU. Same key prefix, so every query that used the old
// indexes uses these the same way; the number of indexes a write maintains does not change.
// SQLite only: PostgreSQL's planner answers the same search from its pg_trgm GIN index or the ordered index
// by its statistics (0003d), and an index-only scan there would also depend on the visibility map.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'sqlite') return;
  await sql`drop index if exists sessions_repo_started_at`.execute(db);
  await db.schema
    .createIndex('sessions_repo_started_at')
    .on('sessions')
    .columns(['app_id', 'repo', 'is_subagent', 'started_at', 'id', 'title'])
    .execute();
  await sql`drop index if exists sessions_all_started_at`.execute(db);
  await db.schema
    .createIndex('sessions_all_started_at')
    .on('sessions')
    .columns(['app_id', 'is_subagent', 'started_at', 'id', 'title'])
    .execute();
}
