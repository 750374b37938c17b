// A subagent transcript (a parent named, `subagent.parentSessionId`) whose `subagent.agentId` is absent, which the
// AgentSession schema allows, had the key of a top-level session of its id: `<id>`. Claude Code writes a
// subagent under its parent's id, so such a transcript and its parent were one row, and a sync kept whichever was
// longer. Its key is `<id>#` now (sessions/document.ts, sessionKeyOf): this gives the stored ones that key. The
// code before this one wrote no key ending in `#` (every `#` of an id or agent id is escaped, migration 0026), so
// the unique index meets no duplicate; a key that ends in `#` was written by this code and is left alone. One
// scan of `sessions`, once.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update sessions set session_key = session_key || '#'
    where is_subagent = 1 and coalesce(subagent_id, '') = '' and session_key not like '%#'`.execute(db);
}
