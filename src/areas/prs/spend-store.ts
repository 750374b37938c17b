// SQL of the PR spend tiles (cost per merged PR, unshipped spend) and of `session_pr_refs`, the PRs each
// session names itself as rows. Reads the sessions area's summary rows (nothing of theirs is written here),
// always scoped by factory. A session links to a PR by naming it (session_pr_refs), by making one of its
// commits (session_commit_prs) or by running on its head branch in the same repository before it closed: the
// same rule as attribution-store.ts.
import { CompiledQuery, sql } from 'kysely';
import { isPostgres, type Db } from '../../db/connection.js';
import { insertRows } from '../../db/bulk-insert.js';
import { deleteRowsOfSessionsText } from '../../db/rows-of-sessions.js';

export interface SessionPrRefsTable {
  app_id: string;
  /** The session row id (traceId). */
  session_id: string;
  repository: string;
  number: number;
}

declare module '../../db/schema.js' {
  interface Database {
    session_pr_refs: SessionPrRefsTable;
  }
}

/** Replace the named PRs of these sessions (inside the ingest's transaction). */
export async function replaceSessionPrRefs(
  db: Db,
  appId: string,
  sessionIds: readonly string[],
  rows: readonly SessionPrRefsTable[],
): Promise<void> {
  for (let i = 0; i < sessionIds.length; i += 500)
    await db.executeQuery(deleteSessionPrRefsQuery(db, appId, sessionIds.slice(i, i + 500)));
  for (let i = 0; i < rows.length; i += 500)
    await insertRows(db, 'session_pr_refs', rows.slice(i, i + 500), 'on conflict do nothing');
}

/**
 * replaceSessionPrRefs's delete (exported so a test can ask the store for its plan): by the primary key
 * (app_id, session_id, ...). PostgreSQL probes it once a session whatever its statistics say
 * (db/rows-of-sessions.ts); with `session_id in (...)` it read all of the app's rows through
 * (app_id, repository, number, session_id) while the table had no fresh statistics.
 */
export function deleteSessionPrRefsQuery(db: Db, appId: string, sessionIds: readonly string[]): CompiledQuery {
  if (isPostgres(db))
    return CompiledQuery.raw(deleteRowsOfSessionsText('session_pr_refs', 'session_id', 'app-then-session'), [
      appId,
      [...sessionIds],
    ]);
  return db
    .deleteFrom('session_pr_refs')
    .where('app_id', '=', appId)
    .where('session_id', 'in', [...sessionIds])
    .compile();
}

export interface SpendScope {
  appId: string;
  /** undefined: every repository. */
  repo?: string;
}

export interface SpendWindow {
  from: number;
  to: number;
}

export interface PrSpend {
  /** PRs merged in the window with at least one linked top-level session. */
  mergedPrs: number;
  /** Cost of the distinct top-level sessions linked to those PRs (each session once). */
  mergedCostMicros: number;
  /** Cost of the top-level sessions started in the window that link to a merged PR. */
  shippedCostMicros: number;
}

/**
 * The PR spend of one window from the rows: two statements, each aggregated by the database. Reads of whole
 * UTC days use the sums of spend-aggregates.ts instead; this answers windows with partial days.
 */
export async function prSpend(db: Db, scope: SpendScope, w: SpendWindow): Promise<PrSpend> {
  const app = scope.appId;
  const prRepo = scope.repo === undefined ? sql`` : sql` and p.repository = ${scope.repo}`;
  const sessionRepo = scope.repo === undefined ? sql`` : sql` and s.repo = ${scope.repo}`;
  // Links (session, PR) to the PRs merged in the window, by name, by commit and by branch.
  const merged = await sql<{ prs: number | string | null; cost: number | string | null }>`
    with merged as (
      select p.repository, p.number, p.head_branch, p.closed_at from pull_requests p
      where p.app_id = ${app} and p.merged = 1 and p.merged_at >= ${w.from} and p.merged_at < ${w.to}${prRepo}
    ),
    links as (
      select r.session_id as sid, m.repository, m.number from merged m
        join session_pr_refs r on r.app_id = ${app} and r.repository = m.repository and r.number = m.number
        join sessions s on s.app_id = ${app} and s.id = r.session_id and s.is_subagent = 0
      union
      select k.session_id as sid, m.repository, m.number from merged m
        join session_commit_prs k on k.app_id = ${app} and k.repository = m.repository and k.number = m.number
        join sessions s on s.app_id = ${app} and s.id = k.session_id and s.is_subagent = 0
      union
      select s.id as sid, m.repository, m.number from merged m
        join sessions s on s.app_id = ${app} and s.repo = m.repository and s.is_subagent = 0
          and s.branch = m.head_branch
          and (m.closed_at is null or s.started_at <= m.closed_at)
    )
    select
      (select count(*) from (select distinct repository, number from links) x) as prs,
      (select coalesce(sum(s.cost_micros), 0) from sessions s
        where s.app_id = ${app} and s.id in (select sid from links)) as cost`.execute(db);
  // Shipped: the window's top-level sessions linked to any merged PR (by name, by commit, or on its head branch
  // before it closed), found from the merged PRs through their indexes rather than by two probes for every session of
  // the window. The unshipped tile is the window's top-level cost minus this.
  const scoped = sql`s.app_id = ${app} and s.is_subagent = 0
    and s.started_at >= ${w.from} and s.started_at < ${w.to}${sessionRepo}`;
  const shipped = await sql<{ cost: number | string | null }>`
    select coalesce(sum(s.cost_micros), 0) as cost from sessions s where ${scoped} and s.id in (
          select r.session_id from session_pr_refs r
            join pull_requests p on p.app_id = r.app_id and p.repository = r.repository and p.number = r.number
          where r.app_id = ${app} and p.merged = 1
          union
          select k.session_id from session_commit_prs k
            join pull_requests p on p.app_id = k.app_id and p.repository = k.repository and p.number = k.number
          where k.app_id = ${app} and p.merged = 1
          union
          select s2.id from pull_requests p
            join sessions s2 on s2.app_id = ${app} and s2.repo = p.repository and s2.is_subagent = 0
              and s2.branch = p.head_branch and s2.started_at >= ${w.from} and s2.started_at < ${w.to}
              and (p.closed_at is null or s2.started_at <= p.closed_at)
          where p.app_id = ${app} and p.merged = 1)`.execute(db);
  const m = merged.rows[0];
  return {
    mergedPrs: Number(m?.prs ?? 0),
    mergedCostMicros: Number(m?.cost ?? 0),
    shippedCostMicros: Number(shipped.rows[0]?.cost ?? 0),
  };
}
