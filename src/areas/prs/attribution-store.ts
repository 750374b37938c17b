// SQL of session ↔ pull-request attribution. Reads the sessions area's summary rows (its tables; nothing
// of theirs is written here) joined with this area's pull_requests, always scoped by factory.
import { sql } from 'kysely';
import { isPostgres, type Db } from '../../db/connection.js';
import { binder, inList, jsonRows, jsonRowsAggregate, readRows } from '../../db/prepared.js';
import type { PullRequestRow } from './store.js';
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
  // SQL text, not a Kysely query: built per call, as the list's page read is (pageLinks).
  const params: unknown[] = [];
  return readRows<PullRequestRow>(db, selectIn(isPostgres(db), params, appId, repositories, column, values), params);
}

/** The select of pullRequestsIn, its values bound after those already in `params` (which it extends). */
function selectIn(
  pg: boolean,
  params: unknown[],
  appId: string,
  repositories: readonly string[],
  column: 'number' | 'head_branch',
  values: readonly (number | string)[],
): string {
  params.push(appId);
  return (
    `select * from pull_requests where app_id = ${pg ? `$${params.length}` : '?'} and repository in ` +
    `${inList(pg, params, [...new Set(repositories)])} and ${column} in ${inList(pg, params, values)}`
  );
}

/** Every column of a PR row, in the order a page's read packs them (pageLinks). */
const PR_COLUMNS = [
  'id',
  'org_id',
  'app_id',
  'repository',
  'number',
  'url',
  'title',
  'author',
  'head_branch',
  'head_sha',
  'base_branch',
  'base_sha',
  'state',
  'merged',
  'opened_at',
  'closed_at',
  'merged_at',
  'source_updated_at',
  'updated_at',
  'state_source',
] as const satisfies readonly (keyof PullRequestRow)[];

const PR_INDEX = Object.fromEntries(PR_COLUMNS.map((c, i) => [c, i])) as Record<(typeof PR_COLUMNS)[number], number>;

const numberOrNull = (x: unknown) => (x === null ? null : Number(x));

/** A PR row from the values of a JSON array of PR_COLUMNS. */
function pullRequestOf(v: readonly unknown[]): PullRequestRow {
  const at = (c: (typeof PR_COLUMNS)[number]) => v[PR_INDEX[c]];
  return {
    id: at('id') as string,
    org_id: at('org_id') as string,
    app_id: at('app_id') as string,
    repository: at('repository') as string,
    number: Number(at('number')),
    url: at('url') as string,
    title: at('title') as string,
    author: at('author') as string | null,
    head_branch: at('head_branch') as string,
    head_sha: at('head_sha') as string,
    base_branch: at('base_branch') as string,
    base_sha: at('base_sha') as string | null,
    state: at('state') as PullRequestRow['state'],
    merged: Number(at('merged')),
    opened_at: Number(at('opened_at')),
    closed_at: numberOrNull(at('closed_at')),
    merged_at: numberOrNull(at('merged_at')),
    source_updated_at: Number(at('source_updated_at')),
    updated_at: Number(at('updated_at')),
    state_source: at('state_source') as PullRequestRow['state_source'],
  };
}

/** A session of a page linked to a PR by one of its commits (session_commit_prs). */
export interface CommitLink {
  session_id: string;
  repository: string;
  number: number;
}

export interface PageLinks {
  commitLinks: CommitLink[];
  /**
   * The PRs in `repositories` numbered one of `numbers` or on one of `branches` (more than was asked: the
   * caller keeps the pairs it wants), and those the commit links name; each once.
   */
  pullRequests: PullRequestRow[];
}

/**
 * What a page of sessions needs to find its PRs, in one statement (one round trip on PostgreSQL): the PRs its
 * sessions' commits link to, and the rows of the PRs they name, link to by commit or ran on the head branch
 * of. Each set comes as one JSON array of arrays, not row by row and value by value (see the session list's
 * store). The session list reads the same over its page in its own statement (pageLinksOfRelation); a title
 * search, the export and other pages of sessions read this.
 */
export async function pageLinks(
  db: Db,
  appId: string,
  sessionIds: readonly string[],
  repositories: readonly string[],
  numbers: readonly number[],
  branches: readonly string[],
): Promise<PageLinks> {
  if (sessionIds.length === 0) return { commitLinks: [], pullRequests: [] };
  const pg = isPostgres(db);
  const params: unknown[] = [];
  const bind = binder(pg, params);
  const agg = (row: string) => jsonRowsAggregate(pg, row);
  const links =
    `select ${agg('session_id, repository, number')} from session_commit_prs where app_id = ${bind(appId)} and ` +
    `session_id in ${inList(pg, params, sessionIds)}`;
  const selects: string[] = [];
  const nonEmpty = [...new Set(branches.filter((b) => b !== ''))];
  // One select an index each, joined by `union all`: with `number in (...) or head_branch in (...)` SQLite
  // without statistics read every PR of the repositories through (app_id, repository).
  if (repositories.length && numbers.length)
    selects.push(selectIn(pg, params, appId, repositories, 'number', [...new Set(numbers)]));
  if (repositories.length && nonEmpty.length)
    selects.push(selectIn(pg, params, appId, repositories, 'head_branch', nonEmpty));
  selects.push(
    'select p.* from session_commit_prs c join pull_requests p on p.app_id = c.app_id and ' +
      `p.repository = c.repository and p.number = c.number where c.app_id = ${bind(appId)} and ` +
      `c.session_id in ${inList(pg, params, sessionIds)}`,
  );
  const prs = `select ${agg(PR_COLUMNS.map((c) => `u.${c}`).join(', '))} from (${selects.join(' union all ')}) as u`;
  const row = (await readRows<{ l: unknown; p: unknown }>(db, `select (${links}) as l, (${prs}) as p`, params))[0];
  return pageLinksOf(row?.l, row?.p);
}

/** PageLinks from the two aggregates of pageLinks or pageLinksOfRelation (each PR once). */
export function pageLinksOf(links: unknown, prs: unknown): PageLinks {
  const pullRequests = new Map<string, PullRequestRow>();
  for (const v of jsonRows(prs)) {
    const pr = pullRequestOf(v);
    pullRequests.set(pr.id, pr);
  }
  return {
    commitLinks: jsonRows(links).map((v) => ({
      session_id: v[0] as string,
      repository: v[1] as string,
      number: Number(v[2]),
    })),
    pullRequests: [...pullRequests.values()],
  };
}

/**
 * pageLinks as two scalar subqueries of a larger statement (the session list's one read), over `page`, a relation
 * of that statement with the columns id, repo and branch: `l`, the commit links, and `p`, the rows of the PRs its
 * sessions ran on the head branch of or link to by commit. Not those the sessions name (pr_refs): the caller reads
 * them after, when there are any. `factory` is the placeholder of the factory id. Read back with pageLinksOf.
 */
export function pageLinksOfRelation(pg: boolean, factory: string, page: string): { links: string; prs: string } {
  const agg = (row: string) => jsonRowsAggregate(pg, row);
  const ids = `(select id from ${page})`;
  return {
    links:
      `(select ${agg('c.session_id, c.repository, c.number')} from session_commit_prs c where c.app_id = ${factory} ` +
      `and c.session_id in ${ids})`,
    prs:
      `(select ${agg(PR_COLUMNS.map((c) => `u.${c}`).join(', '))} from (select pr.* from pull_requests pr where ` +
      `pr.app_id = ${factory} and (pr.repository, pr.head_branch) in (select repo, branch from ${page} where branch ` +
      `<> '' and repo <> '') union all select pr.* from session_commit_prs c join pull_requests pr on pr.app_id = ` +
      `c.app_id and pr.repository = c.repository and pr.number = c.number where c.app_id = ${factory} and ` +
      `c.session_id in ${ids}) as u)`,
  };
}

/** The factory's PRs in these repositories numbered one of `numbers` (more than asked: every pair of the two). */
export function pullRequestsNumbered(
  db: Db,
  appId: string,
  repositories: readonly string[],
  numbers: readonly number[],
): Promise<PullRequestRow[]> {
  return pullRequestsIn(db, appId, repositories, 'number', [...new Set(numbers)]);
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
