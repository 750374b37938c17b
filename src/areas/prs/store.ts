// SQL of pull-request state (from the code host's webhooks): pull requests, checks, revert references.
// Every statement is scoped by factory.
import { isPostgres, type Db } from '../../db/connection.js';
import { binder, inList, jsonRows, jsonRowsAggregate, readRows } from '../../db/prepared.js';
import { pullRequestChanged } from './spend-aggregates.js';

export type PullRequestState = 'open' | 'closed' | 'merged';

export interface PullRequestsTable {
  id: string;
  org_id: string;
  app_id: string;
  /** `owner/repo`, lower case. */
  repository: string;
  number: number;
  url: string;
  title: string;
  author: string | null;
  head_branch: string;
  head_sha: string;
  base_branch: string;
  /** 0028: the base commit of the latest webhook (null before). */
  base_sha: string | null;
  state: PullRequestState;
  merged: number;
  opened_at: number;
  closed_at: number | null;
  merged_at: number | null;
  source_updated_at: number;
  updated_at: number;
  /** Who reported the state: the GitHub App's webhooks (`app`) or the CLI's `gh pr view` (`cli`, migration 0029). */
  state_source: PullRequestStateSource;
}

export type PullRequestStateSource = 'app' | 'cli';

export interface PrRevertRefsTable {
  id: string;
  app_id: string;
  repository: string;
  reverting_number: number;
  target_number: number | null;
  target_title: string | null;
  merged_at: number;
}

export interface PrChecksTable {
  app_id: string;
  repository: string;
  /** `suite:<id>` or `run:<id>`. */
  check_id: string;
  head_sha: string;
  name: string;
  status: string;
  conclusion: string | null;
  updated_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    pull_requests: PullRequestsTable;
    pr_revert_refs: PrRevertRefsTable;
    pr_checks: PrChecksTable;
  }
}

export type PullRequestRow = PullRequestsTable;

export function findPullRequest(
  db: Db,
  appId: string,
  repository: string,
  number: number,
): Promise<PullRequestRow | undefined> {
  return db
    .selectFrom('pull_requests')
    .selectAll()
    .where('app_id', '=', appId)
    .where('repository', '=', repository)
    .where('number', '=', number)
    .executeTakeFirst();
}

/**
 * Insert or update a pull request. An update applies only when the event is at least as new as what is
 * stored (GitHub's updated_at), so a redelivered older event never rolls the state back. Which source wins
 * (docs/github-app.md): a webhook (`app`) replaces a state the CLI reported, however new; a CLI report
 * replaces only an older CLI report, never a webhook's.
 */
export async function upsertPullRequest(db: Db, row: PullRequestsTable): Promise<'inserted' | 'updated' | 'stale'> {
  // The PR spend sums move with the PR's state in the same transaction (spend-aggregates.ts).
  if (!db.isTransaction) return db.transaction().execute((trx) => upsertPullRequest(trx, row));
  const existing = await findPullRequest(db, row.app_id, row.repository, row.number);
  if (!existing) {
    const inserted = await db
      .insertInto('pull_requests')
      .values(row)
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) {
      await pullRequestChanged(db, row.app_id, undefined, row);
      return 'inserted';
    }
  }
  // Lost an insert race: the row another writer inserted is what this update changes.
  const before = existing ?? (await findPullRequest(db, row.app_id, row.repository, row.number));
  const { id: _id, org_id: _org, app_id: _app, repository: _repo, number: _n, ...changes } = row;
  let update = db
    .updateTable('pull_requests')
    .set(changes)
    .where('app_id', '=', row.app_id)
    .where('repository', '=', row.repository)
    .where('number', '=', row.number);
  update =
    row.state_source === 'app'
      ? update.where((eb) =>
          eb.or([eb('source_updated_at', '<=', row.source_updated_at), eb('state_source', '=', 'cli')]),
        )
      : update.where('source_updated_at', '<=', row.source_updated_at).where('state_source', '=', 'cli');
  const updated = await update.executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) return 'stale';
  await pullRequestChanged(db, row.app_id, before, row);
  return 'updated';
}

/** Replace what one merged PR says it reverts (inside the caller's transaction); returns what it said before. */
export async function replaceRevertRefs(
  db: Db,
  appId: string,
  repository: string,
  revertingNumber: number,
  refs: PrRevertRefsTable[],
): Promise<PrRevertRefsTable[]> {
  const before = await db
    .selectFrom('pr_revert_refs')
    .selectAll()
    .where('app_id', '=', appId)
    .where('repository', '=', repository)
    .where('reverting_number', '=', revertingNumber)
    .execute();
  await db
    .deleteFrom('pr_revert_refs')
    .where('app_id', '=', appId)
    .where('repository', '=', repository)
    .where('reverting_number', '=', revertingNumber)
    .execute();
  if (refs.length) await db.insertInto('pr_revert_refs').values(refs).execute();
  return before;
}

/** Store a check's state; returns the head commit it was at before when that was another one. */
export async function upsertCheck(db: Db, row: PrChecksTable): Promise<string | null> {
  const was = await db
    .selectFrom('pr_checks')
    .select('head_sha')
    .where('app_id', '=', row.app_id)
    .where('repository', '=', row.repository)
    .where('check_id', '=', row.check_id)
    .executeTakeFirst();
  await db
    .insertInto('pr_checks')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['app_id', 'repository', 'check_id']).doUpdateSet({
        head_sha: row.head_sha,
        name: row.name,
        status: row.status,
        conclusion: row.conclusion,
        updated_at: row.updated_at,
      }),
    )
    .execute();
  return was && was.head_sha !== row.head_sha ? was.head_sha : null;
}

export interface CheckSummary {
  repository: string;
  head_sha: string;
  kind: 'suite' | 'run';
  total: number;
  completed: number;
  failed: number;
}

const FAILED_CONCLUSIONS = ['failure', 'timed_out', 'cancelled', 'action_required', 'startup_failure'];

/** What describes the CI and the reverts of some PRs (checksAndReverts). */
export interface ChecksAndReverts {
  /** Per (repository, head sha, kind): how many checks, how many completed, how many failed. */
  summaries: CheckSummary[];
  /** Of the merged PRs, those a later merged PR of the same repository reverts: `repo#number` → its number. */
  reverts: Map<string, number>;
}

type RevertRef = Omit<PrRevertRefsTable, 'id' | 'app_id'>;

/**
 * The check summaries at these PRs' heads and the revert refs of their repositories, in one statement (one
 * round trip on PostgreSQL; every session list page with a PR reads this), each set one JSON array of arrays.
 * SQL text, not Kysely queries, for the same reason.
 */
export async function checksAndReverts(
  db: Db,
  appId: string,
  prs: readonly Pick<PullRequestRow, 'repository' | 'number' | 'title' | 'head_sha' | 'merged' | 'merged_at'>[],
): Promise<ChecksAndReverts> {
  const merged = prs.filter((p) => p.merged === 1);
  if (prs.length === 0) return { summaries: [], reverts: new Map() };
  const pg = isPostgres(db);
  const params: unknown[] = [];
  const bind = binder(pg, params);
  const agg = (row: string) => jsonRowsAggregate(pg, row);
  const kind = "case when check_id like 'run:%' then 'run' else 'suite' end";
  // Constants of the code, written as literals: on SQLite `?` binds in text order.
  const failed = `(${FAILED_CONCLUSIONS.map((c) => `'${c}'`).join(', ')})`;
  const checks =
    `select ${agg('repository, head_sha, kind, total, completed, failed')} from (select repository, head_sha, ` +
    `${kind} as kind, count(*) as total, sum(case when status = 'completed' then 1 else 0 end) as completed, ` +
    `sum(case when status = 'completed' and conclusion in ${failed} then 1 else 0 end) as failed ` +
    `from pr_checks where app_id = ${bind(appId)} and head_sha in ` +
    `${inList(pg, params, [...new Set(prs.map((p) => p.head_sha))])} group by repository, head_sha, ${kind}) as c`;
  const repositories = [...new Set(merged.map((p) => p.repository))];
  const reverts = merged.length
    ? `select ${agg('repository, reverting_number, target_number, target_title, merged_at')} from pr_revert_refs ` +
      `where app_id = ${bind(appId)} and repository in ${inList(pg, params, repositories)}`
    : `select '[]'`;
  const row = (await readRows<{ c: unknown; r: unknown }>(db, `select (${checks}) as c, (${reverts}) as r`, params))[0];
  const summaries = jsonRows(row?.c).map(
    (v): CheckSummary => ({
      repository: v[0] as string,
      head_sha: v[1] as string,
      kind: v[2] === 'run' ? 'run' : 'suite',
      total: Number(v[3]),
      completed: Number(v[4]),
      failed: Number(v[5]),
    }),
  );
  const refs = jsonRows(row?.r).map(
    (v): RevertRef => ({
      repository: v[0] as string,
      reverting_number: Number(v[1]),
      target_number: v[2] === null ? null : Number(v[2]),
      target_title: v[3] as string | null,
      merged_at: Number(v[4]),
    }),
  );
  const out = new Map<string, number>();
  for (const pr of merged) {
    const ref = refs.find(
      (r) =>
        r.repository === pr.repository &&
        r.reverting_number !== pr.number &&
        r.merged_at >= (pr.merged_at ?? 0) &&
        (r.target_number === null ? r.target_title === pr.title : r.target_number === pr.number),
    );
    if (ref) out.set(`${pr.repository}#${pr.number}`, ref.reverting_number);
  }
  return { summaries, reverts: out };
}
