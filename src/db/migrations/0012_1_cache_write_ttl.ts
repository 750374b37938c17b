// Cache writes by TTL (issue 15 §1, API.md §10 `usage.cacheCreate1h`): beside every cache-write total the
// one-hour part of it, on the session summary, the per-model usage of a session and the daily per-model
// rollup. The five-minute part is the total minus this one. Existing rows read 0 (their documents carried no
// split, so everything was priced at the five-minute rate): a re-sync of the session recomputes them.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  for (const table of ['sessions', 'session_model_usage', 'metrics_day_models']) {
    await db.schema
      .alterTable(table)
      .addColumn('cache_write_1h_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  }
}
