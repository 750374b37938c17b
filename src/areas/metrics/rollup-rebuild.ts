// The daily rollups of a factory rebuilt from its rows (INSERT ... SELECT ... GROUP BY: the database
// aggregates). The write path keeps them current by differences (rollup-write.ts); this is what they must
// equal at any time. Used to fill them for existing factories (owed by migration 0032, paid at start-up), after a bulk
// load that wrote the tables directly (the benches), and by the check that compares the two
// (test/areas/metrics/rollups).
import { sql, type Kysely } from 'kysely';
import type { Db, Dialect } from '../../db/connection.js';
import { lockForTransaction } from '../../db/locks.js';
import type { Database } from '../../db/schema.js';
import { rebuildSpend } from '../prs/spend-aggregates.js';
import { rebuildPrOutcomes } from '../prs/outcome-aggregates.js';
import { KEY_DIMENSIONS } from './rollup-write.js';

const DAY = sql.lit(86_400_000);

export const ROLLUP_TABLES = [
  'metrics_days',
  'metrics_day_actors',
  'metrics_day_models',
  'metrics_day_keys',
  'metrics_day_tools',
] as const;

export async function rebuildMetricRollups(db: Db, appId: string): Promise<void> {
  for (const table of ROLLUP_TABLES) await db.deleteFrom(table).where('app_id', '=', appId).execute();
  await sql`
    insert into metrics_days (app_id, day, repo, sessions, subagent_sessions, cost_micros, top_cost_micros, turns,
      tool_calls, tool_errors, rejected, clean, hands_on)
    select app_id, started_at / ${DAY}, repo,
      sum(case when is_subagent = 0 then 1 else 0 end),
      sum(is_subagent),
      sum(cost_micros),
      sum(case when is_subagent = 0 then cost_micros else 0 end),
      sum(case when is_subagent = 0 then turn_count else 0 end),
      sum(case when is_subagent = 0 then tool_call_count else 0 end),
      sum(case when is_subagent = 0 then tool_error_count else 0 end),
      sum(case when is_subagent = 0 then rejected_tool_call_count else 0 end),
      sum(case when is_subagent = 0 and tool_error_count = 0 and api_error_count = 0 and rejected_tool_call_count = 0
        then 1 else 0 end),
      sum(case when is_subagent = 0 and steering_count > 0 then 1 else 0 end)
    from sessions where app_id = ${appId}
    group by app_id, started_at / ${DAY}, repo`.execute(db);
  await sql`
    insert into metrics_day_actors (app_id, day, repo, actor_id, sessions)
    select app_id, started_at / ${DAY}, repo, actor_id, count(*)
    from sessions where app_id = ${appId} and is_subagent = 0
    group by app_id, started_at / ${DAY}, repo, actor_id`.execute(db);
  await sql`
    insert into metrics_day_models (app_id, day, repo, model, sessions, turns, unpriced_turns, input_tokens,
      output_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_micros)
    select app_id, started_at / ${DAY}, repo, model, count(*), sum(turn_count), sum(unpriced_turn_count),
      sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cache_write_tokens),
      sum(cache_write_1h_tokens), sum(cost_micros)
    from session_model_usage where app_id = ${appId}
    group by app_id, started_at / ${DAY}, repo, model`.execute(db);
  for (const dim of KEY_DIMENSIONS) {
    const col = sql.ref(dim);
    await sql`
      insert into metrics_day_keys (app_id, dim, day, repo, null_key, key, sessions, cost_micros, turns, tool_calls,
        tool_errors, rejected, input_tokens, output_tokens)
      select app_id, ${dim}, started_at / ${DAY}, repo, case when ${col} is null then 1 else 0 end,
        coalesce(${col}, ''),
        count(*), sum(cost_micros), sum(turn_count), sum(tool_call_count), sum(tool_error_count),
        sum(rejected_tool_call_count),
        sum(input_tokens), sum(output_tokens)
      from sessions where app_id = ${appId} and is_subagent = 0
      group by app_id, started_at / ${DAY}, repo, case when ${col} is null then 1 else 0 end,
        coalesce(${col}, '')`.execute(db);
  }
  await sql`
    insert into metrics_day_tools (app_id, day, repo, tool, sessions, calls, errors, rejected)
    select app_id, started_at / ${DAY}, repo, tool, count(*), sum(calls), sum(errors), sum(rejected)
    from session_tool_usage where app_id = ${appId} and is_subagent = 0
    group by app_id, started_at / ${DAY}, repo, tool`.execute(db);
}

/** Every aggregate of a factory (the metrics rollups, the PR spend sums, the PRs by verdict) rebuilt from its rows. */
export async function rebuildAllRollups(db: Db | Kysely<Database>, appId: string): Promise<void> {
  await rebuildMetricRollups(db as Db, appId);
  await rebuildSpend(db as Db, appId);
  await rebuildPrOutcomes(db as Db, appId);
}

/**
 * Fill the aggregates of every factory a migration left owing them (rollup_rebuilds), one factory per
 * transaction, at start-up before the gateway serves. Replicas starting together take turns on each factory's
 * lock, and the one that comes second finds it paid.
 */
export async function rebuildOwedRollups(db: Db, dialect: Dialect): Promise<number> {
  const owed = await sql<{ app_id: string }>`select app_id from rollup_rebuilds order by app_id`.execute(db);
  let paid = 0;
  for (const { app_id: appId } of owed.rows) {
    await db.transaction().execute(async (trx) => {
      await lockForTransaction(trx, dialect, `rollup-rebuild:${appId}`);
      const still = await sql<{
        n: unknown;
      }>`select count(*) as n from rollup_rebuilds where app_id = ${appId}`.execute(trx);
      if (!Number(still.rows[0]?.n ?? 0)) return;
      await rebuildAllRollups(trx, appId);
      await sql`delete from rollup_rebuilds where app_id = ${appId}`.execute(trx);
      paid += 1;
    });
  }
  return paid;
}
