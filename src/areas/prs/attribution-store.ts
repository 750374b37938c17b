// SQL of session ↔ pull-request attribution. Reads the sessions area's summary rows (its tables; nothing
// of theirs is written here) joined with this area's pull_requests, always scoped by factory.
import { sql } from 'kysely';
import { isPostgres, type Db } from '../../db/connection.js';
import { inList, readRows } from '../../db/prepared.js';
import { FAILED_CONCLUSIONS, type PullRequestRow } from './store.js';
import { sessionKeyRange } from '../sessions/store.js';

export interface SessionLinkRow {
  id: string;
  session_id: string;
  repo: string;
  branch: string;
  pr_refs: string;
  title: string | null;
  agent_type: string;
  started_at: number;
  cost_micros: number;
  cost_status: string;
  /** JSON array of the model names no price was known for. */
  unpriced_models: string;
}

const SESSION_LINK_COLUMNS = [
  'id',
  'session_id',
  'repo',
  'branch',
  'pr_refs',
  'title',
  'agent_type',
  'started_at',
  'cost_micros',
  'cost_status',
  'unpriced_models',
] as const;

/** SESSION_LINK_COLUMNS of `sessions as s`. */
export const S_LINK_COLUMNS = SESSION_LINK_COLUMNS.map((c) => `s.${c}` as const);

/** Top-level sessions that name a pull request themselves (outcome or pr_linked events). */
export function sessionsNamingPrs(db: Db, appId: string): Promise<SessionLinkRow[]> {
  return db
    .selectFrom('sessions')
    .select(SESSION_LINK_COLUMNS)
    .where('app_id', '=', appId)
    .where('is_subagent', '=', 0)
    .where('pr_refs', '<>', '[]')
    .execute();
}

/**
 * Top-level sessions that name one pull request themselves: through `session_pr_refs` (the same links as
 * rows, by its (app_id, repository, number, session_id) index), never by reading every session that names
 * any PR. The PR read and the verdict start here.
 */
export function sessionsNamingPr(
  db: Db,
  appId: string,
  key: { repository: string; number: number },
): Promise<SessionLinkRow[]> {
  return sessionsNamingPrQuery(db, appId, key).execute();
}

/** sessionsNamingPr's statement (exported so a test can ask each store for its plan). */
export function sessionsNamingPrQuery(db: Db, appId: string, key: { repository: string; number: number }) {
  return db
    .selectFrom('session_pr_refs as r')
    .innerJoin('sessions as s', 's.id', 'r.session_id')
    .select(S_LINK_COLUMNS)
    .where('r.app_id', '=', appId)
    .where('r.repository', '=', key.repository)
    .where('r.number', '=', key.number)
    .where('s.app_id', '=', appId)
    .where('s.is_subagent', '=', 0);
}

export interface BranchLinkRow extends SessionLinkRow {
  pr_repository: string;
  pr_number: number;
}

/**
 * Top-level sessions on a pull request's head branch in the same repository, started before the PR was
 * closed (a branch name reused later does not pull new sessions into an old PR). For one PR (`only`) the
 * sessions come by the (app_id, repo, branch, is_subagent, started_at) index (migration 0031).
 */
export function sessionsOnPrBranches(
  db: Db,
  appId: string,
  only?: { repository: string; number: number },
): Promise<BranchLinkRow[]> {
  return sessionsOnPrBranchesQuery(db, appId, only).execute();
}

/** sessionsOnPrBranches's statement (exported so a test can ask each store for its plan). */
export function sessionsOnPrBranchesQuery(db: Db, appId: string, only?: { repository: string; number: number }) {
  let q = db
    .selectFrom('pull_requests as p')
    .innerJoin('sessions as s', (join) =>
      join
        .onRef('s.app_id', '=', 'p.app_id')
        .onRef('s.repo', '=', 'p.repository')
        .onRef('s.branch', '=', 'p.head_branch'),
    )
    .select([...S_LINK_COLUMNS, 'p.repository as pr_repository', 'p.number as pr_number'])
    .where('p.app_id', '=', appId)
    .where('s.is_subagent', '=', 0)
    .where((eb) => eb.or([eb('p.closed_at', 'is', null), eb('s.started_at', '<=', eb.ref('p.closed_at'))]));
  if (only) q = q.where('p.repository', '=', only.repository).where('p.number', '=', only.number);
  return q;
}

export function sessionsBySessionIds(db: Db, appId: string, sessionIds: readonly string[]): Promise<SessionLinkRow[]> {
  if (sessionIds.length === 0) return Promise.resolve([]);
  return sessionsBySessionIdsQuery(db, appId, sessionIds).execute();
}

/**
 * sessionsBySessionIds's statement (exported for a test of its plan): on PostgreSQL by (app_id, session_id,
 * is_subagent) (migration 0024); on SQLite one select a session id, each by the range of the unique (app_id,
 * session_key) index its keys fall in, joined by `union all` (sessionKeyRange; no index there, see the migration).
 */
export function sessionsBySessionIdsQuery(db: Db, appId: string, sessionIds: readonly string[]) {
  if (isPostgres(db)) {
    return db
      .selectFrom('sessions')
      .select(SESSION_LINK_COLUMNS)
      .where('app_id', '=', appId)
      .where('session_id', 'in', [...sessionIds]);
  }
  const one = (sessionId: string) => {
    const [lo, hi] = sessionKeyRange(sessionId);
    return db
      .selectFrom('sessions')
      .select(SESSION_LINK_COLUMNS)
      .where('app_id', '=', appId)
      .where('session_key', '>=', lo)
      .where('session_key', '<', hi)
      .where('session_id', '=', sessionId);
  };
  const [first, ...rest] = [...new Set(sessionIds)];
  let query = one(first ?? '');
  for (const id of rest) query = query.unionAll(one(id));
  return query;
}

/** What outcomeSources reads for a page of sessions. */
export interface OutcomeQuery {
  /** Session row ids: their commit links are read. */
  sessionIds: readonly string[];
  /** PRs the sessions name themselves (pr_refs). */
  named: readonly { repository: string; number: number }[];
  /** The sessions' repositories and branches: the PRs whose head branch one of them is. */
  repositories: readonly string[];
  branches: readonly string[];
}

/** A known PR a page links to, with what its outcome needs: its CI checks at its head counted, and reverted. */
export interface OutcomePrRow {
  repository: string;
  number: number;
  url: string;
  head_branch: string;
  state: string;
  merged: number;
  closed_at: number | null;
  run_total: number;
  run_completed: number;
  run_failed: number;
  suite_total: number;
  suite_completed: number;
  suite_failed: number;
  reverted: number;
}

export interface OutcomeSources {
  /** session row id → the PRs one of its commits is in (session_commit_prs). */
  commitLinks: { session_id: string; repository: string; number: number }[];
  /** The known PRs named, linked by a commit, or on one of the branches (repository and head branch). */
  prs: OutcomePrRow[];
}

type OutcomeSourceRow = Omit<OutcomePrRow, 'url' | 'head_branch' | 'state'> & {
  link_of: string | null;
  url: string | null;
  head_branch: string | null;
  state: string | null;
};

/**
 * Everything the session list's PR outcomes read, in one statement: the page's commit links, the PRs they,
 * the named ones and the page's branches point at, each with its checks at its head summed by kind (runs,
 * suites) and whether a merged revert of it is known. Six statements before (each a round trip and, on
 * PostgreSQL, a socket write of about 60 µs of the gateway's CPU); the rules stay in prOutcomesForRows.
 */
export async function outcomeSources(db: Db, appId: string, q: OutcomeQuery): Promise<OutcomeSources> {
  const pg = isPostgres(db);
  const params: unknown[] = [];
  // Numbered placeholders on both stores: the text is put together in another order than its values are bound.
  const bind = (v: unknown) => {
    params.push(v);
    return pg ? `$${params.length}` : `?${params.length}`;
  };
  // PostgreSQL: one array parameter a list (a statement of one shape whatever the page); SQLite: `in (?1, …)`.
  const among = (values: readonly string[]) =>
    pg ? `= any(${bind([...values])}::text[])` : `in (${values.map(bind).join(', ')})`;
  const branches = [...new Set(q.branches.filter((b) => b !== ''))];
  const repositories = [...new Set(q.repositories.filter(Boolean))];
  const named = [...new Map(q.named.map((k) => [`${k.repository}#${k.number}`, k])).values()];
  const keys = ['select repository, number from links'];
  if (named.length)
    keys.push(
      pg
        ? `select * from unnest(${bind(named.map((k) => k.repository))}::text[], ` +
            `${bind(named.map((k) => k.number))}::bigint[])`
        : `select * from (values ${named.map((k) => `(${bind(k.repository)}, ${bind(k.number)})`).join(', ')})`,
    );
  const prColumns =
    'p.repository, p.number, p.url, p.head_branch, p.head_sha, p.title, p.state, p.merged, p.closed_at, ' +
    'p.merged_at';
  const prs = [
    `select ${prColumns} from (${keys.join(' union ')}) k join pull_requests p on ` +
      `p.app_id = ${bind(appId)} and p.repository = k.repository and p.number = k.number`,
  ];
  if (repositories.length && branches.length)
    prs.push(
      `select ${prColumns} from pull_requests p where p.app_id = ${bind(appId)} and p.repository ` +
        `${among(repositories)} and p.head_branch ${among(branches)}`,
    );
  const run = "c.check_id like 'run:%'";
  const completed = "c.status = 'completed'";
  const failed = `${completed} and c.conclusion in (${FAILED_CONCLUSIONS.map((c) => `'${c}'`).join(', ')})`;
  const count = (cond: string) => `sum(case when ${cond} then 1 else 0 end)`;
  const text = `with links as (
      select session_id, repository, number from session_commit_prs
      where app_id = ${bind(appId)} and session_id ${among(q.sessionIds)}),
    prs as (${prs.join(' union ')}),
    checks as (
      select c.repository, c.head_sha, ${count(run)} as run_total, ${count(`${run} and ${completed}`)} as run_completed,
        ${count(`${run} and ${failed}`)} as run_failed, ${count(`not ${run}`)} as suite_total,
        ${count(`not ${run} and ${completed}`)} as suite_completed, ${count(`not ${run} and ${failed}`)} as suite_failed
      from (select distinct repository, head_sha from prs) h
      join pr_checks c on c.app_id = ${bind(appId)} and c.repository = h.repository and c.head_sha = h.head_sha
      group by c.repository, c.head_sha)
    select session_id as link_of, repository, number, null as url, null as head_branch, null as state, 0 as merged,
      null as closed_at, 0 as run_total, 0 as run_completed, 0 as run_failed, 0 as suite_total, 0 as suite_completed,
      0 as suite_failed, 0 as reverted
    from links
    union all
    select null, p.repository, p.number, p.url, p.head_branch, p.state, p.merged, p.closed_at,
      coalesce(c.run_total, 0), coalesce(c.run_completed, 0), coalesce(c.run_failed, 0), coalesce(c.suite_total, 0),
      coalesce(c.suite_completed, 0), coalesce(c.suite_failed, 0),
      case when p.merged = 1 and exists (select 1 from pr_revert_refs r where r.app_id = ${bind(appId)}
        and r.repository = p.repository and r.reverting_number <> p.number and r.merged_at >= coalesce(p.merged_at, 0)
        and (r.target_number = p.number or (r.target_number is null and r.target_title = p.title))) then 1 else 0 end
    from prs p left join checks c on c.repository = p.repository and c.head_sha = p.head_sha`;
  const out: OutcomeSources = { commitLinks: [], prs: [] };
  for (const r of await readRows<OutcomeSourceRow>(db, text, params)) {
    const number = Number(r.number);
    if (r.link_of !== null) out.commitLinks.push({ session_id: r.link_of, repository: r.repository, number });
    else
      out.prs.push({
        repository: r.repository,
        number,
        url: r.url ?? '',
        head_branch: r.head_branch ?? '',
        state: r.state ?? '',
        merged: Number(r.merged),
        closed_at: r.closed_at === null ? null : Number(r.closed_at),
        run_total: Number(r.run_total),
        run_completed: Number(r.run_completed),
        run_failed: Number(r.run_failed),
        suite_total: Number(r.suite_total),
        suite_completed: Number(r.suite_completed),
        suite_failed: Number(r.suite_failed),
        reverted: Number(r.reverted),
      });
  }
  return out;
}

export function pullRequestsOnBranches(
  db: Db,
  appId: string,
  repositories: readonly string[],
  branches: readonly string[],
): Promise<PullRequestRow[]> {
  const nonEmpty = [...new Set(branches.filter((b) => b !== ''))];
  return pullRequestsIn(db, appId, repositories, 'head_branch', nonEmpty);
}

/** The factory's PRs in these repositories whose `column` is one of `values` (none asked, none read). */
function pullRequestsIn(
  db: Db,
  appId: string,
  repositories: readonly string[],
  column: 'number' | 'head_branch',
  values: readonly (number | string)[],
): Promise<PullRequestRow[]> {
  if (repositories.length === 0 || values.length === 0) return Promise.resolve([]);
  // SQL text, not a Kysely query: a Kysely query costs more to build and compile than SQLite takes to answer it.
  const pg = isPostgres(db);
  const params: unknown[] = [appId];
  const text =
    `select * from pull_requests where app_id = ${pg ? '$1' : '?'} and repository in ` +
    `${inList(pg, params, [...new Set(repositories)])} and ${column} in ${inList(pg, params, [...values])}`;
  return readRows<PullRequestRow>(db, text, params);
}

export function allPullRequests(db: Db, appId: string): Promise<PullRequestRow[]> {
  return db.selectFrom('pull_requests').selectAll().where('app_id', '=', appId).execute();
}

export interface LinkedSessionRow extends SessionLinkRow {
  by_name: number;
  by_branch: number;
  by_commit: number;
}

/**
 * A page of the top-level sessions linked to one PR (named in session_pr_refs, linked by a commit in
 * session_commit_prs, or on its head branch before it closed), oldest first, after the keyset cursor: the PR
 * export pages through them with it.
 */
export async function linkedSessionsAfter(
  db: Db,
  appId: string,
  key: { repository: string; number: number },
  pr: { head_branch: string; closed_at: number | null } | null,
  after: { startedAt: number; id: string } | null,
  limit: number,
): Promise<LinkedSessionRow[]> {
  const named = sql<number>`case when exists (select 1 from session_pr_refs r
    where r.app_id = ${appId} and r.session_id = s.id and r.repository = ${key.repository} and r.number = ${key.number})
    then 1 else 0 end`;
  const byCommit = sql<number>`case when exists (select 1 from session_commit_prs k
    where k.app_id = ${appId} and k.session_id = s.id and k.repository = ${key.repository} and k.number = ${key.number})
    then 1 else 0 end`;
  const beforeClose = !pr || pr.closed_at === null ? sql`` : sql` and s.started_at <= ${pr.closed_at}`;
  const branch =
    pr && pr.head_branch !== ''
      ? sql<number>`case when s.repo = ${key.repository} and s.branch = ${pr.head_branch}${beforeClose}
          then 1 else 0 end`
      : sql<number>`0`;
  let q = db
    .selectFrom('sessions as s')
    .select([...S_LINK_COLUMNS, named.as('by_name'), branch.as('by_branch'), byCommit.as('by_commit')])
    .where('s.app_id', '=', appId)
    .where('s.is_subagent', '=', 0)
    .where(sql<boolean>`(${named} = 1 or ${branch} = 1 or ${byCommit} = 1)`);
  if (after)
    q = q.where((eb) =>
      eb.or([
        eb('s.started_at', '>', after.startedAt),
        eb.and([eb('s.started_at', '=', after.startedAt), eb('s.id', '>', after.id)]),
      ]),
    );
  return q.orderBy('s.started_at').orderBy('s.id').limit(limit).execute();
}
