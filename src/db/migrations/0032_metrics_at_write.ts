// Issue 46: every number of the Overview comes from daily aggregates kept current at write time, inside the
// transaction that changes what they count (a sync, a re-sync, a pull request's state change), so a read costs
// the days of its window and never the sessions in it, and the first read after a write is as fast as any.
// - metrics_days gains top_cost_micros (the cost of top-level sessions: the unshipped tile's whole);
//   metrics_day_actors and metrics_day_models count sessions, so a re-sync can move one out of a group.
// - metrics_day_keys: the breakdown by branch, agent type, worker kind, origin and repository per day.
// - metrics_day_tools: the tool breakdown per day.
// - spend_*: the PR spend tiles (prs area, spend-aggregates.ts): each top-level session's links to merged PRs,
//   the linked sessions of each merged PR by its merged day, and the cost sums per day.
// - metrics_refresh (the read-time refresh's watermark) goes: nothing refreshes on read any more.
// Existing factories are owed a fill from their rows (rollup_rebuilds): the gateway does it at start-up with the
// code of its day (metrics/rollup-rebuild.ts), so this migration keeps meaning the same thing however that grows.
import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.dropTable('metrics_refresh').execute();
  await db.schema.dropIndex('metrics_sessions_app_updated').execute();
  await db.schema
    .alterTable('metrics_days')
    .addColumn('top_cost_micros', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('metrics_day_actors')
    .addColumn('sessions', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  const counters = (t: CreateTableBuilder<string, string>, names: readonly string[]) =>
    names.reduce((acc, n) => acc.addColumn(n, 'bigint', (c) => c.notNull()), t);
  await counters(
    db.schema
      .createTable('metrics_day_keys')
      .addColumn('app_id', 'text', (c) => c.notNull())
      .addColumn('dim', 'text', (c) => c.notNull())
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('repo', 'text', (c) => c.notNull())
      // A session without the dimension (no worker kind) is a group of its own: null_key 1, key ''.
      .addColumn('null_key', 'integer', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull()),
    ['sessions', 'cost_micros', 'turns', 'tool_calls', 'tool_errors', 'rejected', 'input_tokens', 'output_tokens'],
  )
    .addPrimaryKeyConstraint('metrics_day_keys_pk', ['app_id', 'dim', 'day', 'repo', 'null_key', 'key'])
    .execute();
  await counters(
    db.schema
      .createTable('metrics_day_tools')
      .addColumn('app_id', 'text', (c) => c.notNull())
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('repo', 'text', (c) => c.notNull())
      .addColumn('tool', 'text', (c) => c.notNull()),
    ['sessions', 'calls', 'errors', 'rejected'],
  )
    .addPrimaryKeyConstraint('metrics_day_tools_pk', ['app_id', 'day', 'repo', 'tool'])
    .execute();

  // A top-level session's links to merged PRs as it last counted them (JSON [[repository, number, day|null]]),
  // so a change subtracts exactly what it added.
  await db.schema
    .createTable('spend_sessions')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('repo', 'text', (c) => c.notNull())
    .addColumn('cost_micros', 'bigint', (c) => c.notNull())
    .addColumn('links', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('spend_sessions_pk', ['app_id', 'session_id'])
    .execute();
  // Linked top-level sessions of each merged PR, by its merged day (a PR counts while it has any).
  await db.schema
    .createTable('spend_prs')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('sessions', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('spend_prs_pk', ['app_id', 'day', 'repository', 'number'])
    .execute();
  // Cost of the top-level sessions shipped (linked to any merged PR), by their start day and repository.
  await db.schema
    .createTable('spend_shipped_days')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('repo', 'text', (c) => c.notNull())
    .addColumn('cost_micros', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('spend_shipped_days_pk', ['app_id', 'day', 'repo'])
    .execute();
  // Cost of merged-PR sessions by the days their PRs merged ('*': every repository, else the PR's). A session
  // whose PRs merged on several days counts on each; the pairs of consecutive such days take the excess back.
  await db.schema
    .createTable('spend_merged_days')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('cost_micros', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('spend_merged_days_pk', ['app_id', 'scope', 'day'])
    .execute();
  await db.schema
    .createTable('spend_merged_pairs')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('first_day', 'integer', (c) => c.notNull())
    .addColumn('second_day', 'integer', (c) => c.notNull())
    .addColumn('cost_micros', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('spend_merged_pairs_pk', ['app_id', 'scope', 'first_day', 'second_day'])
    .execute();

  await db.schema
    .createTable('rollup_rebuilds')
    .addColumn('app_id', 'text', (c) => c.primaryKey())
    .execute();
  await sql`insert into rollup_rebuilds (app_id) select distinct app_id from sessions`.execute(db);
}
