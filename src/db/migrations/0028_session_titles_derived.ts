// Issue 45: a session without a title of its own gets one derived at ingest (sessions/title.ts), so no list
// shows an id in its place. This gives the stored untitled sessions theirs, from their stored documents, the
// way ingest derives it. The title-search rows follow through the triggers of migration 0003d (SQLite) and the
// trigram index on the title itself (PostgreSQL). One pass over the untitled rows, 500 at a time.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connection.js';
import { decodeDocument } from '../../areas/sessions/document.js';
import { sessionTitle } from '../../areas/sessions/title.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  let after = '';
  for (;;) {
    const rows = (
      await sql<{ id: string }>`select id from sessions
        where (title is null or title = '') and id > ${after} order by id limit 500`.execute(db)
    ).rows;
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.id;
    const docs = (
      await sql<{ session_id: string; encoding: string; body: Uint8Array }>`select session_id, encoding, body from session_documents
        where session_id in (${sql.join(rows.map((r) => r.id))})`.execute(db)
    ).rows;
    for (const d of docs) {
      await sql`update sessions set title = ${sessionTitle(decodeDocument(d.encoding, d.body))} where id = ${d.session_id}`.execute(db);
    }
  }
}
