// PostgreSQL: the title search's GIN index (0003d, 0020) keyed by repository as well as by the title's
// trigrams, `(repo, lower(coalesce(title, '')))`, with btree_gin for the repository. The list searches one
// repository by default (the dominant one), and the planner then had to AND the trigram bitmap with a btree
// bitmap of the repository's window: at 100k sessions `q=on main` over 30 days built a 12,020-entry bitmap
// for 309 matches (3.0-4.4 ms of its 3.2-4.5). With the repository inside the GIN scan the candidates are that
// repository's titles holding the needle (1,015), read without the window's bitmap: 2.4-2.6 ms; over a heap
// in `started_at` order (as ingest writes it) 2.4 against 2.8-3.0 (issue 17, docs/performance.md "Ninth
// round"). A search over every repository uses the trigram column alone, as before (GIN searches any subset
// of its columns). Without app_id on purpose: a self-hosted gateway has one or few factories, and a posting
// list of every session of a factory made the scans over every repository slower (0.4 ms); app_id stays in
// the query's condition, so tenants never mix.
// Where btree_gin cannot be created the 0003d index stays as it is (same results). SQLite: nothing.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connection.js';
import { ensureExtension, extensionSchema, quoteIdent } from '../extensions.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  // 0003d leaves the index out when pg_trgm could not be created.
  const trgmSchema = await extensionSchema(db, 'pg_trgm');
  if (!trgmSchema) return;
  if (!(await ensureExtension(db, 'btree_gin'))) {
    console.warn(
      'attest migration 0022: the btree_gin extension could not be created; the title search keeps its trigram index '
      + '(same results, slower within one repository). To index it later: create extension btree_gin; then replace '
      + "sessions_title_trgm with: create index ... on sessions using gin (repo, lower(coalesce(title, '')) gin_trgm_ops) "
      + 'with (fastupdate = off);',
    );
    return;
  }
  // btree_gin's text operator class is the default one for text under GIN, found whatever the search path.
  const opclass = sql.raw(`${quoteIdent(trgmSchema)}.gin_trgm_ops`);
  await sql`create index sessions_title_trgm_by_repo on sessions
    using gin (repo, lower(coalesce(title, '')) ${opclass}) with (fastupdate = off)`.execute(db);
  await sql`drop index if exists sessions_title_trgm`.execute(db);
  await sql`alter index sessions_title_trgm_by_repo rename to sessions_title_trgm`.execute(db);
}
