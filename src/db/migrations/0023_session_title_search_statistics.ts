// PostgreSQL: a larger sample for the planner's estimate of a title search. The estimate of
// `lower(coalesce(title, '')) like '%needle%'` is the share of the title expression's histogram bounds that
// match, and with the default statistics target there are 101 of them: a needle in 2.5% of titles matched
// anywhere from 0 to about 6, and after about one ANALYZE in five the planner took `q=on main` over every
// repository for a frequent needle and walked `metrics_sessions_app_started` backwards, 41-58 ms instead of
// 5.5 (100k sessions). With 501 bounds: no flip in twelve
// ANALYZEs, planning unchanged within noise (0.39-0.52 ms). ANALYZE of `sessions` samples 150k rows instead of
// 30k (at 100k sessions: 0.78 -> 2.09 s, the whole table). The statistics of the index's title expression
// are what the planner reads for that expression, whichever index holds it (0003d, 0022). SQLite: nothing.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

/** Histogram bounds kept for the title expression (PostgreSQL's default statistics target is 100). */
const TITLE_STATISTICS_TARGET = 500;

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  // The title expression is the index's last column: 1 in 0003d's index, 3 in 0022's (app_id, repo, title).
  const found = await sql<{
    columns: number;
  }>`select indnatts as columns from pg_index where indexrelid = to_regclass('sessions_title_trgm')`.execute(db);
  const column = found.rows[0]?.columns;
  if (!column) return; // 0003d leaves the index out when pg_trgm could not be created
  await sql`alter index sessions_title_trgm alter column ${sql.raw(String(Number(column)))}
    set statistics ${sql.raw(String(TITLE_STATISTICS_TARGET))}`.execute(db);
}
