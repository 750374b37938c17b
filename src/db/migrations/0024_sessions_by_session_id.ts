// Sessions looked up by the client's own session id (`session_id`: a top-level session and its subagents share
// it) had no index to go by, so both stores read every session of the factory for them:
// - after each sync of a factory whose PR comments are on, the PRs of the synced sessions
//   (prs/attribution-store.ts, sessionsBySessionIds): 57-138 ms on SQLite (on the event loop) and 45-77 ms on
//   PostgreSQL for 25 ids in a factory of 100k sessions;
// - GET /v1/sessions/{id} given a session id rather than a traceId (sessions/store.ts, findBySessionId):
//   54-100 ms and 48-70 ms.
// One index on (app_id, session_id, is_subagent) serves both: 0.3-0.5 ms and 0.2-0.3 ms on SQLite, 1.0-1.3 and
// 0.9-2.9 on PostgreSQL (a scratch measurement at 100k sessions, issue 17). is_subagent because SQLite, which
// keeps no statistics, otherwise took (app_id, is_subagent, cost_micros, id) for the lookup's `order by
// is_subagent` and read the factory's rows again.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('sessions_app_session_id').on('sessions').columns(['app_id', 'session_id', 'is_subagent']).execute();
}
