// PostgreSQL: the title search's pg_trgm GIN index (0003d) without a pending list. GIN's default
// `fastupdate` queues new entries in a pending list (up to gin_pending_list_limit, 4 MB) that every search
// reads in full until a VACUUM or autoanalyze merges it; a manual ANALYZE does not. At 100k sessions after a
// bulk load the list held 7,086 titles (473 pages), and the trigram scan of `q=on main` took 16.7 ms with it,
// 1.2-1.4 ms without (the count's whole BitmapAnd 34 → 5.6 ms).
// With fastupdate off each insert writes its trigrams into the index itself; the queued entries are merged
// now. SQLite: nothing (its FTS5 trigram table has no such list).
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  // 0003d leaves the index out when pg_trgm could not be created.
  const found = await sql<{ oid: string | null }>`select to_regclass('sessions_title_trgm')::text as oid`.execute(db);
  if (!found.rows[0]?.oid) return;
  await sql`alter index sessions_title_trgm set (fastupdate = off)`.execute(db);
  await sql`select gin_clean_pending_list('sessions_title_trgm'::regclass)`.execute(db);
}
