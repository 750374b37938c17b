// PostgreSQL: store session documents' bodies out of line without pglz. A body is already Brotli-compressed
// (sessions/document.ts), so TOAST's pglz pass over every body over 2 KB never finds anything to save; it was
// 5% of the database server's CPU during an ingest. EXTERNAL keeps TOAST's out-of-line
// storage and skips the compression attempt. Rows already stored keep their form; reads are unchanged.
// SQLite: nothing (it compresses nothing).
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`alter table session_documents alter column body set storage external`.execute(db);
}
