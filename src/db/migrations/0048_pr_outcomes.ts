// Issue 46: the Overview's PRs by verdict (GET /v1/metrics/verdicts) read one row per PR that a top-level
// session links to, kept in step at write time (prs area, outcome-aggregates.ts), instead of every PR outcome
// of the factory with its sessions. A row: when the PR opened (the code host's opening, else its first linked
// session's start), that first start, its latest stored verdict (null before any), merged, reverted, CI failed
// at its head. Filled here for existing factories with this migration's own copy of the rules of its day (a
// session links to a PR by naming it, or by running on its head branch in the same repository before it
// closed; reverted by a later merged PR of the repository naming it or its title; CI decided by the check runs
// at its head when there are any, else the suites), so what it means does not move with the application.
// Also an index of pull requests by head commit: a check finishing refreshes the PRs at its head.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

interface Pr {
  repository: string;
  number: number;
  title: string;
  head_sha: string;
  merged: number;
  opened_at: number;
  merged_at: number | null;
}

const FAILED = ['failure', 'timed_out', 'cancelled', 'action_required', 'startup_failure'];

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('pr_outcomes')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('opened_at', 'bigint', (c) => c.notNull())
    .addColumn('first_session_at', 'bigint', (c) => c.notNull())
    .addColumn('verdict', 'text')
    .addColumn('merged', 'integer', (c) => c.notNull())
    .addColumn('reverted', 'integer', (c) => c.notNull())
    .addColumn('ci_failed', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('pr_outcomes_pk', ['app_id', 'repository', 'number'])
    .execute();
  await db.schema.createIndex('pr_outcomes_opened').on('pr_outcomes').columns(['app_id', 'opened_at']).execute();
  await db.schema
    .createIndex('pull_requests_app_repo_sha')
    .on('pull_requests')
    .columns(['app_id', 'repository', 'head_sha'])
    .execute();

  const apps = await sql<{ app_id: string }>`
    select distinct app_id from session_pr_refs union select distinct app_id from pull_requests`.execute(db);
  for (const { app_id: appId } of apps.rows) await fill(db, appId);
}

async function fill(db: Kysely<unknown>, appId: string): Promise<void> {
  const first = new Map<string, number>();
  const earliest = (repository: string, number: unknown, at: unknown) => {
    if (at === null || at === undefined) return;
    const k = `${repository}#${Number(number)}`;
    const t = Number(at);
    if (!first.has(k) || t < first.get(k)!) first.set(k, t);
  };
  const named = await sql<{ repository: string; number: number; first: unknown }>`
    select r.repository, r.number, min(s.started_at) as first
    from session_pr_refs r join sessions s on s.app_id = r.app_id and s.id = r.session_id
    where r.app_id = ${appId} and s.is_subagent = 0
    group by r.repository, r.number`.execute(db);
  for (const r of named.rows) earliest(r.repository, r.number, r.first);
  const onBranch = await sql<{ repository: string; number: number; first: unknown }>`
    select p.repository, p.number, (select s.started_at from sessions s
      where s.app_id = p.app_id and s.repo = p.repository and s.branch = p.head_branch and s.is_subagent = 0
        and (p.closed_at is null or s.started_at <= p.closed_at)
      order by s.started_at limit 1) as first
    from pull_requests p where p.app_id = ${appId}`.execute(db);
  for (const r of onBranch.rows) earliest(r.repository, r.number, r.first);
  if (first.size === 0) return;

  const prs = new Map<string, Pr>();
  for (const p of (
    await sql<Pr>`select repository, number, title, head_sha, merged, opened_at, merged_at
      from pull_requests where app_id = ${appId}`.execute(db)
  ).rows)
    prs.set(`${p.repository}#${Number(p.number)}`, p);
  const reverts = (
    await sql<{
      repository: string;
      reverting_number: unknown;
      target_number: unknown;
      target_title: string | null;
      merged_at: unknown;
    }>`select repository, reverting_number, target_number, target_title, merged_at from pr_revert_refs
      where app_id = ${appId}`.execute(db)
  ).rows;
  const checks = (
    await sql<{
      repository: string;
      head_sha: string;
      kind: string;
      total: unknown;
      completed: unknown;
      failed: unknown;
    }>`
      select repository, head_sha, case when check_id like 'run:%' then 'run' else 'suite' end as kind,
        count(*) as total, sum(case when status = 'completed' then 1 else 0 end) as completed,
        sum(case when status = 'completed' and conclusion in (${sql.join(FAILED)}) then 1 else 0 end) as failed
      from pr_checks where app_id = ${appId}
      group by repository, head_sha, case when check_id like 'run:%' then 'run' else 'suite' end`.execute(db)
  ).rows;
  const verdicts = new Map<string, string>();
  for (const e of (
    await sql<{ repository: string; number: unknown; verdict: string }>`
      select repository, number, verdict from pr_evaluations where app_id = ${appId} order by evaluated_at, id`.execute(
      db,
    )
  ).rows)
    verdicts.set(`${e.repository}#${Number(e.number)}`, e.verdict);

  const ciFailed = (p: Pr) => {
    const mine = checks.filter((c) => c.repository === p.repository && c.head_sha === p.head_sha);
    const decider = mine.find((c) => c.kind === 'run') ?? mine.find((c) => c.kind === 'suite');
    return decider && Number(decider.total) > 0 && Number(decider.failed) > 0 ? 1 : 0;
  };
  const reverted = (p: Pr) =>
    Number(p.merged) === 1 &&
    reverts.some(
      (r) =>
        r.repository === p.repository &&
        Number(r.reverting_number) !== Number(p.number) &&
        Number(r.merged_at) >= Number(p.merged_at ?? 0) &&
        (Number(r.target_number) === Number(p.number) || (r.target_number === null && r.target_title === p.title)),
    )
      ? 1
      : 0;
  const rows = [...first.entries()].map(([key, at]) => {
    const cut = key.lastIndexOf('#');
    const p = prs.get(key);
    return {
      app_id: appId,
      repository: key.slice(0, cut),
      number: Number(key.slice(cut + 1)),
      opened_at: p ? Number(p.opened_at) : at,
      first_session_at: at,
      verdict: verdicts.get(key) ?? null,
      merged: p && Number(p.merged) === 1 ? 1 : 0,
      reverted: p ? reverted(p) : 0,
      ci_failed: p ? ciFailed(p) : 0,
    };
  });
  for (let i = 0; i < rows.length; i += 200)
    await db
      .insertInto('pr_outcomes' as never)
      .values(rows.slice(i, i + 200) as never)
      .execute();
}
