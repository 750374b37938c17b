// Sessions looked up by the client's own session id (`session_id`: a top-level session and its subagents share
// it) had no index to go by, so both stores read every session of the factory for them:
// - after each sync of a factory whose PR comments are on, the PRs of the synced sessions
//   (prs/attribution-store.ts, sessionsBySessionIds): 57-138 ms on SQLite (on the event loop) and 45-77 ms on
//   PostgreSQL for 25 ids in a factory of 100k sessions;
// - GET /v1/sessions/{id} given a session id rather than a traceId (sessions/store.ts, findBySessionId):
//   54-100 ms and 48-70 ms.
// PostgreSQL: an index on (app_id, session_id, is_subagent) serves both: 1.0-1.3 and 0.9-2.9 ms at 100k
// sessions.
// SQLite: no index. The same index there (0.3-0.5 and 0.2-0.3 ms) slowed the title search of goal 3 at 100k
// sessions (q=on main p50 6.89-7.34 ms in four runs with it, 4.76-6.65 in three without, alternated). SQLite
// compares text byte by byte, so these lookups read the range of the unique (app_id, session_key) index that
// a session id's keys fall in instead (sessions/store.ts); PostgreSQL's collation may not order bytes.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.schema
    .createIndex('sessions_app_session_id')
    .on('sessions')
    .columns(['app_id', 'session_id', 'is_subagent'])
    .execute();
}
