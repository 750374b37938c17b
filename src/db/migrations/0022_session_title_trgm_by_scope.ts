// PostgreSQL: the title search's GIN index (0003d, 0020) keyed by factory and repository as well as by the
// title's trigrams, `(app_id, repo, lower(coalesce(title, '')))`, with btree_gin for the two text keys. The
// list searches one repository by default (the dominant one), and the planner had to AND the trigram bitmap
// with a btree bitmap of that repository's window: at 100k sessions `q=on main` over 30 days built a
// 12,020-entry bitmap for 309 matches. Now the candidates are that repository's titles holding the needle
// (1,015), read from the GIN scan alone: 2.6-3.4 ms against 3.1-4.5 over the bench's heap (random order).
// Over a heap in started_at order, as ingest writes it, that query gains nothing (3.1-3.6 against 2.9-3.9)
// and the search box's default, the whole repository without a window, gains most (2.8-3.9 against
// 3.7-6.4).
// Why app_id too, although factories never mix without it (app_id stays in the query's condition): keyed by
// (repo, trigrams) only, the planner ANDed the GIN bitmap with a bitmap of the factory's window over every
// repository (33k entries, `metrics_sessions_app_started`) after about half of the ANALYZE samples, 4.5-5.1
// ms. It never ANDs two bitmaps that share a condition, and every btree index of `sessions` but the primary
// key begins with app_id. The price, in a gateway with one factory: the app_id posting list then covers every
// session, and a search over every repository or for a rare needle reads it (1.8-1.9 -> 2.1-2.4 ms). With
// many factories it narrows instead.
// Where btree_gin cannot be created the 0003d index stays as it is (same results). SQLite: nothing.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connection.js';
import { ensureExtension, extensionSchema } from '../extensions.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  // 0003d leaves the index out when pg_trgm could not be created.
  const trgmSchema = await extensionSchema(db, 'pg_trgm');
  if (!trgmSchema) return;
  if (!(await ensureExtension(db, 'btree_gin'))) {
    console.warn(
      'attest migration 0022: the btree_gin extension could not be created; the title search keeps its trigram index ' +
        '(same results, slower within one repository). To index it later: create extension btree_gin; then replace ' +
        "sessions_title_trgm with: create index ... on sessions using gin (app_id, repo, lower(coalesce(title, '')) " +
        'gin_trgm_ops) ' +
        'with (fastupdate = off);',
    );
    return;
  }
  // btree_gin's text operator class is the default one for text under GIN, found whatever the search path.
  await sql`create index sessions_title_trgm_by_scope on sessions
    using gin (app_id, repo, lower(coalesce(title, '')) ${sql.id(trgmSchema, 'gin_trgm_ops')})
    with (fastupdate = off)`.execute(db);
  await sql`drop index if exists sessions_title_trgm`.execute(db);
  await sql`alter index sessions_title_trgm_by_scope rename to sessions_title_trgm`.execute(db);
}
