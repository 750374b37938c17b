// A session's key (`sessions.session_key`, unique per factory) was `<id>` for a top-level session and
// `<id>#<agentId>` for a subagent transcript, so a top-level session whose id held `#` (`X#a`, which the
// AgentSession schema allows) had the key of subagent `a` of session `X`, and a sync merged the two transcripts
// into one row. Keys now escape `%` and `#` in each part (`%25`, `%23`; sessions/document.ts, sessionKeyOf).
// This rewrites the keys of the stored sessions whose id or agent id holds either character; every other key is
// unchanged. Two steps, so that no row takes a key another row still holds while the statement runs (a unique
// index is checked row by row): first a key no session has (`\u0001`, the row's traceId), then the escaped one.
import { sql, type Kysely } from 'kysely';

const part = (column: 'session_id' | 'subagent_id') =>
  sql`replace(replace(${sql.ref(column)}, '%', '%25'), '#', '%23')`;
const escapedKey = sql`case when coalesce(subagent_id, '') <> ''
  then ${part('session_id')} || '#' || ${part('subagent_id')} else ${part('session_id')} end`;
const parked = sql`${'\u0001'} || id`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update sessions set session_key = ${parked} where session_key <> ${escapedKey}`.execute(db);
  await sql`update sessions set session_key = ${escapedKey} where session_key = ${parked}`.execute(db);
}
