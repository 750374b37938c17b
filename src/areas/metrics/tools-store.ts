// SQL of the per-session tool counters (session_tool_usage): written when a session is ingested, grouped
// by tool for the breakdown. Scoped by factory.
import { CompiledQuery, sql } from 'kysely';
import { isPostgres, type Db } from '../../db/connection.js';
import { insertRows } from '../../db/bulk-insert.js';
import { deleteRowsOfSessionsText } from '../../db/rows-of-sessions.js';
import { BREAKDOWN_COUNTERS, readCounters } from './counters.js';
import type { BreakdownRow, Scope, Window } from './store.js';

export interface SessionToolUsageTable {
  session_id: string;
  org_id: string;
  app_id: string;
  tool: string;
  started_at: number;
  repo: string;
  is_subagent: number;
  calls: number;
  errors: number;
  rejected: number;
}

declare module '../../db/schema.js' {
  interface Database {
    session_tool_usage: SessionToolUsageTable;
  }
}

/** Replace the tool counters of these sessions with `rows`: one delete and batched inserts, whatever the count. */
export async function replaceToolUsage(
  db: Db,
  appId: string,
  sessionIds: readonly string[],
  rows: SessionToolUsageTable[],
): Promise<void> {
  if (sessionIds.length > 0) await db.executeQuery(deleteToolUsageQuery(db, appId, sessionIds));
  for (let i = 0; i < rows.length; i += 200) await insertRows(db, 'session_tool_usage', rows.slice(i, i + 200));
}

/**
 * The delete of replaceToolUsage (exported so a test can ask the store for its plan). The rows are found by the
 * primary key (session_id, tool). SQLite, which keeps no statistics here, took `app_id = ?` to the
 * (app_id, started_at) index instead and read every tool row of the factory to delete a few: 1.0-1.7 s for a
 * re-send of 25 grown sessions in a factory of 100k sessions (800k rows), on the event loop, against 1-2 ms by
 * the key. The factory's condition stays, written `+app_id`, which SQLite
 * never takes to an index. PostgreSQL probes the key once a session, whatever its statistics say
 * (db/rows-of-sessions.ts): with `session_id in (...)` it too read the app's rows through (app_id, started_at)
 * while the table had no fresh statistics.
 */
export function deleteToolUsageQuery(db: Db, appId: string, sessionIds: readonly string[]): CompiledQuery {
  if (isPostgres(db))
    return CompiledQuery.raw(deleteRowsOfSessionsText('session_tool_usage', 'session_id', 'session'), [
      appId,
      [...sessionIds],
    ]);
  return sql`delete from session_tool_usage
    where session_id in (${sql.join([...sessionIds])}) and +app_id = ${appId}`.compile(db);
}

/** Top-level sessions' tool calls of the window per tool, most used first. */
export async function breakdownByTool(
  db: Db,
  scope: Scope,
  w: Window,
  limit: number,
): Promise<{ rows: BreakdownRow[]; groups: number }> {
  let q = db
    .selectFrom('session_tool_usage')
    .where('app_id', '=', scope.appId)
    .where('is_subagent', '=', 0)
    .where('started_at', '>=', w.from)
    .where('started_at', '<', w.to);
  if (scope.repo !== undefined) q = q.where('repo', '=', scope.repo);
  const [rows, count] = await Promise.all([
    q
      .select((eb) => [
        'tool',
        eb.fn.count<number>('session_id').distinct().as('sessions'),
        eb.fn.sum<number>('calls').as('tool_calls'),
        eb.fn.sum<number>('errors').as('tool_errors'),
        eb.fn.sum<number>('rejected').as('rejected'),
      ])
      .groupBy('tool')
      .orderBy(sql`sum(calls)`, 'desc')
      .orderBy('tool')
      .limit(limit)
      .execute(),
    q.select(sql<number>`count(distinct tool)`.as('groups')).executeTakeFirst(),
  ]);
  return {
    groups: Number(count?.groups ?? 0),
    // A tool call has no cost, turns or tokens of its own (not selected: 0); the breakdown reports calls,
    // errors and denials.
    rows: rows.map((r) => ({ key: r.tool, ...readCounters(r, BREAKDOWN_COUNTERS) })),
  };
}
