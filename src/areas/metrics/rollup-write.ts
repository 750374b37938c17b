// The daily rollups moved at write time: the sessions ingest hands over each session it stored with what it
// replaced (the old row, usage and tool rows), inside its transaction; the rollups move by new minus old, so a
// re-sync counts a session once and a moved one (another day, branch or model) leaves its old groups.
import { sql } from 'kysely';
import { isPostgres, type Db } from '../../db/connection.js';
import { CounterDeltas, type CounterTable } from '../../db/counter-deltas.js';
import type { RowsInsert } from '../../db/bulk-insert.js';
import { rowsOfSessionsTids } from '../../db/rows-of-sessions.js';
import type { UsageColumns } from '../../db/schema.js';
import { BREAKDOWN_COUNTERS, MODEL_COUNTERS } from './counters.js';
import { DAY_MS } from './rollup-store.js';

/** The columns of a session row the rollups count. */
export interface RollupSessionRow {
  id: string;
  started_at: number;
  repo: string;
  is_subagent: number;
  actor_id: string;
  branch: string | null;
  agent_type: string | null;
  worker_kind: string | null;
  origin: string | null;
  cost_micros: number;
  turn_count: number;
  tool_call_count: number;
  tool_error_count: number;
  rejected_tool_call_count: number;
  api_error_count: number;
  steering_count: number;
  input_tokens: number;
  output_tokens: number;
}

export interface RollupUsageRow extends UsageColumns {
  model: string;
  turn_count: number;
  unpriced_turn_count: number;
}

export interface RollupToolRow {
  tool: string;
  calls: number;
  errors: number;
  rejected: number;
}

export interface RollupEntry {
  row: RollupSessionRow;
  usage: readonly RollupUsageRow[];
  tools: readonly RollupToolRow[];
}

export const DAYS: CounterTable = {
  table: 'metrics_days',
  keys: ['app_id', 'day', 'repo'],
  counters: [
    'sessions',
    'subagent_sessions',
    'cost_micros',
    'top_cost_micros',
    'turns',
    'tool_calls',
    'tool_errors',
    'rejected',
    'clean',
    'hands_on',
  ],
};
export const ACTORS: CounterTable = {
  table: 'metrics_day_actors',
  keys: ['app_id', 'day', 'repo', 'actor_id'],
  counters: ['sessions'],
};
export const MODELS: CounterTable = {
  table: 'metrics_day_models',
  keys: ['app_id', 'day', 'repo', 'model'],
  counters: MODEL_COUNTERS,
};
export const KEYS: CounterTable = {
  table: 'metrics_day_keys',
  keys: ['app_id', 'dim', 'day', 'repo', 'null_key', 'key'],
  counters: BREAKDOWN_COUNTERS,
};
export const TOOLS: CounterTable = {
  table: 'metrics_day_tools',
  keys: ['app_id', 'day', 'repo', 'tool'],
  counters: ['sessions', 'calls', 'errors', 'rejected'],
};
const TABLES = [DAYS, ACTORS, MODELS, KEYS, TOOLS];

/** The session columns a breakdown groups by (the `repo` breakdown is by the session's repository). */
export const KEY_DIMENSIONS = ['branch', 'agent_type', 'worker_kind', 'origin', 'repo'] as const;

function add(d: CounterDeltas, appId: string, e: RollupEntry, sign: number): void {
  const r = e.row;
  const day = Math.floor(Number(r.started_at) / DAY_MS);
  const top = Number(r.is_subagent) === 0;
  const cost = Number(r.cost_micros);
  const clean = top && r.tool_error_count === 0 && r.api_error_count === 0 && r.rejected_tool_call_count === 0;
  d.add(
    DAYS,
    [appId, day, r.repo],
    top
      ? [
          1,
          0,
          cost,
          cost,
          r.turn_count,
          r.tool_call_count,
          r.tool_error_count,
          r.rejected_tool_call_count,
          clean ? 1 : 0,
          r.steering_count > 0 ? 1 : 0,
        ]
      : [0, 1, cost, 0, 0, 0, 0, 0, 0, 0],
    sign,
  );
  for (const u of e.usage) {
    d.add(
      MODELS,
      [appId, day, r.repo, u.model],
      [
        1,
        u.turn_count,
        u.unpriced_turn_count,
        u.input_tokens,
        u.output_tokens,
        u.cache_read_tokens,
        u.cache_write_tokens,
        u.cache_write_1h_tokens,
        u.cost_micros,
      ].map(Number),
      sign,
    );
  }
  if (!top) return;
  d.add(ACTORS, [appId, day, r.repo, r.actor_id], [1], sign);
  for (const dim of KEY_DIMENSIONS) {
    const value = r[dim];
    d.add(
      KEYS,
      [appId, dim, day, r.repo, value === null ? 1 : 0, value ?? ''],
      [
        1,
        cost,
        r.turn_count,
        r.tool_call_count,
        r.tool_error_count,
        r.rejected_tool_call_count,
        r.input_tokens,
        r.output_tokens,
      ].map(Number),
      sign,
    );
  }
  for (const t of e.tools) d.add(TOOLS, [appId, day, r.repo, t.tool], [1, t.calls, t.errors, t.rejected], sign);
}

/**
 * The upserts that move the rollups of a factory by each change (before: what the session counted, null when
 * new; after: what it counts now, null when gone), to write with the other counter rows (insertRowsTogether)
 * inside the transaction that wrote the sessions.
 */
export function rollupInserts(
  appId: string,
  changes: readonly { before: RollupEntry | null; after: RollupEntry | null }[],
): RowsInsert[] {
  if (!changes.length) return [];
  const d = new CounterDeltas();
  for (const c of changes) {
    if (c.before) add(d, appId, c.before, -1);
    if (c.after) add(d, appId, c.after, 1);
  }
  return d.inserts(TABLES);
}

/**
 * The usage and tool rows these sessions have stored (read before a re-sync replaces them), by session id.
 * Found by the tables' session-first keys: SQLite is kept off the (app_id, started_at) index with `+app_id`,
 * PostgreSQL probes once a session (db/rows-of-sessions.ts).
 */
export async function storedRollupParts(
  db: Db,
  appId: string,
  sessionIds: readonly string[],
): Promise<Map<string, { usage: RollupUsageRow[]; tools: RollupToolRow[] }>> {
  const out = new Map<string, { usage: RollupUsageRow[]; tools: RollupToolRow[] }>();
  if (!sessionIds.length) return out;
  const of = (id: string) => {
    let e = out.get(id);
    if (!e) out.set(id, (e = { usage: [], tools: [] }));
    return e;
  };
  const pg = isPostgres(db);
  const where = (table: string) =>
    pg
      ? sql`ctid = any(${sql.raw(rowsOfSessionsTids(table, 'session_id', 'session', '$1', '$2'))})`
      : sql`session_id in (${sql.join([...sessionIds])}) and +app_id = ${appId}`;
  const usageCols = sql`session_id, model, turn_count, unpriced_turn_count, input_tokens, output_tokens,
    cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_micros`;
  const usageQuery = sql<
    RollupUsageRow & { session_id: string }
  >`select ${usageCols} from session_model_usage where ${where('session_model_usage')}`;
  const toolQuery = sql<
    RollupToolRow & { session_id: string }
  >`select session_id, tool, calls, errors, rejected from session_tool_usage where ${where('session_tool_usage')}`;
  const run = async <R>(q: ReturnType<typeof sql<R>>): Promise<R[]> => {
    if (!pg) return (await q.execute(db)).rows;
    // The probe text binds $1 and $2 itself: the app and the id array.
    const compiled = q.compile(db);
    return (await db.executeQuery<R>({ ...compiled, parameters: [appId, [...sessionIds]] })).rows;
  };
  // One after the other: inside a transaction, statements take turns anyway.
  const usage = await run(usageQuery);
  const tools = await run(toolQuery);
  for (const u of usage) of(u.session_id).usage.push(u);
  for (const t of tools) of(t.session_id).tools.push(t);
  return out;
}
