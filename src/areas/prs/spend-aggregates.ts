// The PR spend tiles' sums, kept in step with what they count inside the writer's transaction: a sync or
// re-sync of sessions, and a pull request's state change. Each top-level session linked to a merged PR keeps
// its links as it last counted them (spend_sessions), so a change moves the sums by new minus old:
// - spend_shipped_days: cost of shipped sessions (linked to any merged PR) by start day and repository; the
//   unshipped tile is the window's top-level cost minus this.
// - spend_prs: linked sessions per merged PR, by its merged day: the PRs of a window are those with sessions.
// - spend_merged_days / spend_merged_pairs: the cost-per-merged-PR tile counts each session once when any of
//   its PRs merged in the window. A session counts on each distinct merged day of its PRs (per scope: every
//   repository '*', or the PRs' repository), and once less for each pair of consecutive such days: the days
//   inside a window are a run of consecutive ones, so what both hold cancels down to one count.
// A session links to a PR by naming it (session_pr_refs), by making one of its commits (session_commit_prs) or
// by running on its head branch in the same repository before it closed: the rule of spend-store.ts and
// attribution-store.ts.
import { sql } from 'kysely';
import { isPostgres, type Db } from '../../db/connection.js';
import { CounterDeltas, type CounterTable } from '../../db/counter-deltas.js';
import { insertRows } from '../../db/bulk-insert.js';
import type { PullRequestsTable } from './store.js';
import { deleteWhereIn } from '../../db/chunked.js';

const DAY_MS = 86_400_000;
const ALL = '*';

export interface SpendSessionsTable {
  app_id: string;
  session_id: string;
  day: number;
  repo: string;
  cost_micros: number;
  /** JSON [[repository, number, merged day or null], ...] */
  links: string;
}

declare module '../../db/schema.js' {
  interface Database {
    spend_sessions: SpendSessionsTable;
    spend_prs: { app_id: string; day: number; repository: string; number: number; sessions: number };
    spend_shipped_days: { app_id: string; day: number; repo: string; cost_micros: number };
    spend_merged_days: { app_id: string; scope: string; day: number; cost_micros: number };
    spend_merged_pairs: { app_id: string; scope: string; first_day: number; second_day: number; cost_micros: number };
  }
}

const SHIPPED: CounterTable = {
  table: 'spend_shipped_days',
  keys: ['app_id', 'day', 'repo'],
  counters: ['cost_micros'],
};
const PRS: CounterTable = {
  table: 'spend_prs',
  keys: ['app_id', 'day', 'repository', 'number'],
  counters: ['sessions'],
};
const MDAYS: CounterTable = { table: 'spend_merged_days', keys: ['app_id', 'scope', 'day'], counters: ['cost_micros'] };
const MPAIRS: CounterTable = {
  table: 'spend_merged_pairs',
  keys: ['app_id', 'scope', 'first_day', 'second_day'],
  counters: ['cost_micros'],
};
const TABLES = [SHIPPED, PRS, MDAYS, MPAIRS];

type Link = [repository: string, number: number, day: number | null];

interface State {
  sessionId: string;
  day: number;
  repo: string;
  cost: number;
  links: Link[];
}

function contribute(d: CounterDeltas, appId: string, s: State, sign: number): void {
  if (!s.links.length) return;
  d.add(SHIPPED, [appId, s.day, s.repo], [s.cost], sign);
  const scopes = new Map<string, Set<number>>([[ALL, new Set()]]);
  for (const [repository, number, day] of s.links) {
    if (day === null) continue;
    d.add(PRS, [appId, day, repository, number], [1], sign);
    scopes.get(ALL)!.add(day);
    let days = scopes.get(repository);
    if (!days) scopes.set(repository, (days = new Set()));
    days.add(day);
  }
  for (const [scope, set] of scopes) {
    const days = [...set].sort((a, b) => a - b);
    days.forEach((day, i) => {
      d.add(MDAYS, [appId, scope, day], [s.cost], sign);
      if (i > 0) d.add(MPAIRS, [appId, scope, days[i - 1]!, day], [s.cost], sign);
    });
  }
}

interface LinkRow {
  sid: string;
  started_at: number | string;
  repo: string;
  cost_micros: number | string;
  repository: string;
  number: number | string;
  merged_at: number | string | null;
}

/** Links of top-level sessions (these ids, or all of the factory's) to merged PRs, each pair once. */
async function linkRows(db: Db, appId: string, ids: readonly string[] | null): Promise<LinkRow[]> {
  // By the sessions' key, whatever the statistics. SQLite is kept off the factory's indexes (`+app_id`), which it
  // would otherwise walk. PostgreSQL picks the sessions first in a materialized CTE that names only their ids, so
  // the primary key is the one index it can use: with the factory's condition beside the ids, while the factory
  // grows faster than autovacuum analyzes it (a backfill, a new factory's first syncs) it took the factory for a
  // few rows and read all of its sessions by (app_id, ...) on every sync and every retention batch.
  const postgresById = ids !== null && isPostgres(db);
  const idList = ids === null ? sql`` : sql.join([...ids]);
  const picked = postgresById
    ? sql`with picked as materialized (
        select id, app_id, started_at, repo, branch, cost_micros, is_subagent from sessions where id in (${idList})
      )`
    : sql``;
  const sessions = postgresById ? sql`picked` : sql`sessions`;
  const only = ids === null || postgresById ? sql`` : sql` and s.id in (${idList})`;
  const app = ids === null || postgresById ? sql`s.app_id` : sql`+s.app_id`;
  const columns = sql`s.id as sid, s.started_at, s.repo, s.cost_micros, p.repository, p.number, p.merged_at`;
  // The merged PRs a link table (session -> repository, number) names for these sessions.
  const linkedBy = (table: 'session_pr_refs' | 'session_commit_prs') => sql`
    select ${columns}
    from ${sessions} s
      join ${sql.table(table)} l on l.app_id = s.app_id and l.session_id = s.id
      join pull_requests p on p.app_id = l.app_id and p.repository = l.repository and p.number = l.number
    where ${app} = ${appId} and s.is_subagent = 0 and p.merged = 1${only}`;
  // The sessions first, each probing its PRs by (repository, head branch). SQLite, without statistics, took
  // the factory's PRs first and walked all of its top-level sessions for each (a whole-factory rebuild at 100k
  // sessions and 1,200 PRs: 14 s); its `cross join` keeps the order written.
  const sessionsThenPrs = isPostgres(db) ? sql`join` : sql`cross join`;
  const result = await sql<LinkRow>`
    ${picked}
    ${linkedBy('session_pr_refs')}
    union
    ${linkedBy('session_commit_prs')}
    union
    select ${columns}
    from ${sessions} s
      ${sessionsThenPrs} pull_requests p on p.app_id = s.app_id and p.repository = s.repo and p.head_branch = s.branch
        and p.merged = 1 and (p.closed_at is null or s.started_at <= p.closed_at)
    where ${app} = ${appId} and s.is_subagent = 0${only}`.execute(db);
  return result.rows;
}

function statesOf(rows: readonly LinkRow[]): Map<string, State> {
  const out = new Map<string, State>();
  for (const r of rows) {
    let s = out.get(r.sid);
    if (!s) {
      s = {
        sessionId: r.sid,
        day: Math.floor(Number(r.started_at) / DAY_MS),
        repo: r.repo,
        cost: Number(r.cost_micros),
        links: [],
      };
      out.set(r.sid, s);
    }
    s.links.push([
      r.repository,
      Number(r.number),
      r.merged_at === null ? null : Math.floor(Number(r.merged_at) / DAY_MS),
    ]);
  }
  for (const s of out.values()) s.links.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
  return out;
}

async function storedStates(db: Db, appId: string, ids: readonly string[]): Promise<State[]> {
  const rows = await db
    .selectFrom('spend_sessions')
    .selectAll()
    .where('app_id', '=', appId)
    .where('session_id', 'in', [...ids])
    .execute();
  return rows.map((r) => ({
    sessionId: r.session_id,
    day: Number(r.day),
    repo: r.repo,
    cost: Number(r.cost_micros),
    links: JSON.parse(r.links) as Link[],
  }));
}

async function saveStates(db: Db, appId: string, replaced: readonly string[], states: readonly State[]): Promise<void> {
  await deleteWhereIn(db, 'spend_sessions', appId, 'session_id', replaced, 500);
  const rows = states.map((s) => ({
    app_id: appId,
    session_id: s.sessionId,
    day: s.day,
    repo: s.repo,
    cost_micros: s.cost,
    links: JSON.stringify(s.links),
  }));
  for (let i = 0; i < rows.length; i += 500) await insertRows(db, 'spend_sessions', rows.slice(i, i + 500));
}

/**
 * Recount the PR spend of these top-level sessions (new, re-synced, or touched by a PR's change) inside the
 * caller's transaction. `known`: whether any of them may have counted before (false for sessions inserted in
 * this transaction, which skips a read).
 */
export async function refreshSessionSpend(
  db: Db,
  appId: string,
  sessionIds: readonly string[],
  known = true,
): Promise<void> {
  const ids = [...new Set(sessionIds)].sort();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const before = known ? await storedStates(db, appId, chunk) : [];
    const after = statesOf(await linkRows(db, appId, chunk));
    if (before.length === 0 && after.size === 0) continue;
    const d = new CounterDeltas();
    for (const s of before) contribute(d, appId, s, -1);
    for (const s of after.values()) contribute(d, appId, s, 1);
    await d.write(db, TABLES);
    await saveStates(
      db,
      appId,
      before.map((s) => s.sessionId),
      [...after.values()],
    );
  }
}

type PrSpendFields = Pick<
  PullRequestsTable,
  'repository' | 'number' | 'head_branch' | 'merged' | 'merged_at' | 'closed_at'
>;

/**
 * A pull request was inserted or changed (`before`: as it was, undefined when new): recount the sessions it
 * links to before and after, inside the caller's transaction. A change that touches no linking field is free.
 */
export async function pullRequestChanged(
  db: Db,
  appId: string,
  before: PrSpendFields | undefined,
  after: PrSpendFields,
): Promise<void> {
  const same =
    before &&
    Number(before.merged) === Number(after.merged) &&
    before.merged_at === after.merged_at &&
    before.closed_at === after.closed_at &&
    before.head_branch === after.head_branch;
  if (same || (!Number(after.merged) && !(before && Number(before.merged)))) return;
  const branches = [...new Set([before?.head_branch, after.head_branch].filter((b): b is string => !!b))];
  const rows = await sql<{ id: string }>`
    select r.session_id as id from session_pr_refs r
    where r.app_id = ${appId} and r.repository = ${after.repository} and r.number = ${after.number}
    union select k.session_id from session_commit_prs k
    where k.app_id = ${appId} and k.repository = ${after.repository} and k.number = ${after.number}
    ${
      branches.length
        ? sql`union select s.id from sessions s where s.app_id = ${appId} and s.repo = ${after.repository}
            and s.is_subagent = 0 and s.branch in (${sql.join(branches)})`
        : sql``
    }`.execute(db);
  await refreshSessionSpend(
    db,
    appId,
    rows.rows.map((r) => r.id),
  );
}

/** Every PR spend sum of a factory rebuilt from its rows. */
export async function rebuildSpend(db: Db, appId: string): Promise<void> {
  for (const table of ['spend_sessions', ...TABLES.map((t) => t.table)] as const)
    await sql`delete from ${sql.table(table)} where app_id = ${appId}`.execute(db);
  const states = [...statesOf(await linkRows(db, appId, null)).values()];
  const d = new CounterDeltas();
  for (const s of states) contribute(d, appId, s, 1);
  await d.write(db, TABLES);
  await saveStates(db, appId, [], states);
}

export interface DaySpend {
  mergedPrs: number;
  mergedCostMicros: number;
  /** Cost of the window's top-level sessions linked to a merged PR. */
  shippedCostMicros: number;
}

/** The PR spend sums of whole days [first, end) (day numbers), optionally of one repository. */
export async function spendOfDays(
  db: Db,
  scope: { appId: string; repo?: string },
  days: { first: number; end: number },
): Promise<DaySpend> {
  const app = scope.appId;
  const inDays = sql`day >= ${days.first} and day < ${days.end}`;
  const r = scope.repo;
  const result = await sql<{ prs: unknown; merged: unknown; pairs: unknown; shipped: unknown }>`
    select
      (select count(*) from spend_prs
        where app_id = ${app} and ${inDays} and sessions > 0
          ${r === undefined ? sql`` : sql` and repository = ${r}`}) as prs,
      (select coalesce(sum(cost_micros), 0) from spend_merged_days
        where app_id = ${app} and scope = ${r ?? ALL} and ${inDays}) as merged,
      (select coalesce(sum(cost_micros), 0) from spend_merged_pairs where app_id = ${app} and scope = ${r ?? ALL}
        and first_day >= ${days.first} and second_day < ${days.end}) as pairs,
      (select coalesce(sum(cost_micros), 0) from spend_shipped_days
        where app_id = ${app} and ${inDays}${r === undefined ? sql`` : sql` and repo = ${r}`}) as shipped`.execute(db);
  const row = result.rows[0];
  return {
    mergedPrs: Number(row?.prs ?? 0),
    mergedCostMicros: Number(row?.merged ?? 0) - Number(row?.pairs ?? 0),
    shippedCostMicros: Number(row?.shipped ?? 0),
  };
}
