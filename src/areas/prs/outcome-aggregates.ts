// The Overview's PRs by verdict (GET /v1/metrics/verdicts) read from one row per attributed pull request, kept in
// step inside the writer's transaction: a sync, re-sync or deletion of the sessions that link to it, its state
// change (webhook or CLI report), a revert of it, a check at its head, and a new evaluation of its verdict. A row
// holds what the answer counts of the PR: when it opened (the code host's opening, else its first linked
// session), its latest stored verdict (null before any), merged, reverted, CI failed at its head. A PR has a row
// while a top-level session links to it (names it, made one of its commits, or ran on its head branch in the
// same repository before it closed: the rule of attribution-store.ts), so the read costs the PRs opened in its
// window, never the sessions. Each write recomputes the rows of the PRs it may have moved from their sources (a
// few index reads a PR).
import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';
import { insertRows } from '../../db/bulk-insert.js';
import { ciVerdict } from './ci-verdict.js';
import type { PrKey } from './refs.js';
import { namedPrs } from './refs.js';
import { checksAndReverts, type PullRequestRow } from './store.js';

export interface PrOutcomesTable {
  app_id: string;
  repository: string;
  number: number;
  /** The PR's opening as the code host reported it; its first linked session's start when none did. */
  opened_at: number;
  first_session_at: number;
  /** The latest stored evaluation's verdict; null while the PR has none. */
  verdict: string | null;
  merged: number;
  reverted: number;
  ci_failed: number;
}

declare module '../../db/schema.js' {
  interface Database {
    pr_outcomes: PrOutcomesTable;
  }
}

const keyOf = (k: PrKey) => `${k.repository}#${k.number}`;
/** Keys per statement: SQLite takes at most 500 terms in a compound select. */
const CHUNK = 200;

function uniqueKeys(keys: readonly PrKey[]): PrKey[] {
  const out = new Map<string, PrKey>();
  for (const k of keys) out.set(keyOf(k), { repository: k.repository, number: Number(k.number) });
  return [...out.values()].sort((a, b) =>
    a.repository < b.repository ? -1 : a.repository > b.repository ? 1 : a.number - b.number,
  );
}

/** Recompute the rows of these PRs from their sources, inside the caller's transaction. */
export async function refreshPrOutcomes(db: Db, appId: string, keys: readonly PrKey[]): Promise<void> {
  const all = uniqueKeys(keys);
  for (let i = 0; i < all.length; i += CHUNK) await refreshChunk(db, appId, all.slice(i, i + CHUNK));
}

async function refreshChunk(db: Db, appId: string, keys: readonly PrKey[]): Promise<void> {
  const wanted = new Set(keys.map(keyOf));
  const repos = [...new Set(keys.map((k) => k.repository))];
  const numbers = [...new Set(keys.map((k) => k.number))];
  const prs = (
    await db
      .selectFrom('pull_requests')
      .selectAll()
      .where('app_id', '=', appId)
      .where('repository', 'in', repos)
      .where('number', 'in', numbers)
      .execute()
  )
    .map((p) => ({ ...p, number: Number(p.number) }))
    .filter((p) => wanted.has(keyOf(p)));
  const first = new Map<string, number>();
  const earliest = (k: string, at: unknown) => {
    if (at === null || at === undefined) return;
    const t = Number(at);
    const was = first.get(k);
    if (was === undefined || t < was) first.set(k, t);
  };
  // Sessions linked by name or by commit, in one read.
  const firstLinked = await sql<{ repository: string; number: number; first: unknown }>`
    select l.repository, l.number, min(s.started_at) as first
    from (
      select app_id, session_id, repository, number from session_pr_refs
      where app_id = ${appId} and repository in (${sql.join(repos)}) and number in (${sql.join(numbers)})
      union all
      select app_id, session_id, repository, number from session_commit_prs
      where app_id = ${appId} and repository in (${sql.join(repos)}) and number in (${sql.join(numbers)})
    ) l join sessions s on s.app_id = l.app_id and s.id = l.session_id
    where s.is_subagent = 0
    group by l.repository, l.number`.execute(db);
  for (const r of firstLinked.rows) earliest(`${r.repository}#${Number(r.number)}`, r.first);
  // Each PR's first session on its head branch, by the (app_id, repo, branch, is_subagent, started_at) index.
  if (prs.length) {
    const onBranch = await sql<{ repository: string; number: number; first: unknown }>`
      select p.repository, p.number, (select s.started_at from sessions s
        where s.app_id = p.app_id and s.repo = p.repository and s.branch = p.head_branch and s.is_subagent = 0
          and (p.closed_at is null or s.started_at <= p.closed_at)
        order by s.started_at limit 1) as first
      from pull_requests p
      where p.app_id = ${appId} and p.repository in (${sql.join(repos)})
        and p.number in (${sql.join(numbers)})`.execute(db);
    for (const r of onBranch.rows)
      if (wanted.has(`${r.repository}#${Number(r.number)}`)) earliest(`${r.repository}#${Number(r.number)}`, r.first);
  }
  const linked = prs.filter((p) => first.has(keyOf(p)));
  const [{ summaries, reverts }, evaluations] = await Promise.all([
    checksAndReverts(db, appId, linked),
    first.size
      ? db
          .selectFrom('pr_evaluations')
          .select(['repository', 'number', 'verdict'])
          .where('app_id', '=', appId)
          .where('repository', 'in', repos)
          .where('number', 'in', numbers)
          .orderBy('evaluated_at')
          .orderBy('id')
          .execute()
      : Promise.resolve([]),
  ]);
  const verdicts = new Map<string, string>();
  for (const e of evaluations) verdicts.set(`${e.repository}#${Number(e.number)}`, e.verdict);
  const byKey = new Map<string, PullRequestRow>(prs.map((p) => [keyOf(p), p]));
  const rows: PrOutcomesTable[] = [];
  for (const k of keys) {
    const at = first.get(keyOf(k));
    if (at === undefined) continue;
    const pr = byKey.get(keyOf(k));
    rows.push({
      app_id: appId,
      repository: k.repository,
      number: k.number,
      opened_at: pr ? Number(pr.opened_at) : at,
      first_session_at: at,
      verdict: verdicts.get(keyOf(k)) ?? null,
      merged: pr && Number(pr.merged) === 1 ? 1 : 0,
      reverted: pr && reverts.has(keyOf(k)) ? 1 : 0,
      ci_failed: pr && ciVerdict(summaries, pr.repository, pr.head_sha) === 'red' ? 1 : 0,
    });
  }
  await sql`delete from pr_outcomes where app_id = ${appId} and repository in (${sql.join(repos)})
    and number in (${sql.join(numbers)})`.execute(db);
  if (rows.length) await insertRows(db, 'pr_outcomes', rows, CONCURRENT_WRITER);
}

/**
 * Two syncs of one PR's sessions in flight at once (PostgreSQL) both find no row and both insert it. The later
 * merges into the earlier instead of failing: the PR's own state is the same in both, the first session is the
 * earlier of the two, and a verdict either saw is kept.
 */
const CONCURRENT_WRITER = `on conflict (app_id, repository, number) do update set
  opened_at = excluded.opened_at,
  first_session_at = case when excluded.first_session_at < pr_outcomes.first_session_at
    then excluded.first_session_at else pr_outcomes.first_session_at end,
  verdict = coalesce(excluded.verdict, pr_outcomes.verdict),
  merged = excluded.merged,
  reverted = excluded.reverted,
  ci_failed = excluded.ci_failed`;

/** The PRs (of those given) that have a row, with their first linked session's start. */
async function storedFirsts(db: Db, appId: string, keys: readonly PrKey[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (let i = 0; i < keys.length; i += CHUNK) {
    const part = keys.slice(i, i + CHUNK);
    const rows = await db
      .selectFrom('pr_outcomes')
      .select(['repository', 'number', 'first_session_at'])
      .where('app_id', '=', appId)
      .where('repository', 'in', [...new Set(part.map((k) => k.repository))])
      .where('number', 'in', [...new Set(part.map((k) => k.number))])
      .execute();
    for (const r of rows) out.set(`${r.repository}#${Number(r.number)}`, Number(r.first_session_at));
  }
  return out;
}

/** What a session's links depend on. */
export type LinkFields = { repo: string; branch: string; pr_refs: string; started_at: number; is_subagent: number };

const sameLinks = (a: LinkFields, b: LinkFields) =>
  a.repo === b.repo &&
  a.branch === b.branch &&
  a.pr_refs === b.pr_refs &&
  Number(a.started_at) === Number(b.started_at) &&
  Number(a.is_subagent) === Number(b.is_subagent);

/**
 * Sessions were written or deleted (`before`: as stored, null when new; `after`: null when deleted): refresh the
 * PRs they linked to or link to now, inside the caller's transaction. A re-sync that keeps what links the
 * session is free, and so is a new session that starts no earlier than the first of a PR that has a row already
 * (it changes nothing the row holds): the common sync costs one read of the PRs on its branches.
 */
export async function sessionsChanged(
  db: Db,
  appId: string,
  changes: readonly { before: LinkFields | null; after: LinkFields | null }[],
): Promise<void> {
  const moved = changes.filter(
    (c) =>
      !(c.before && c.after && sameLinks(c.before, c.after)) &&
      ((c.before && !Number(c.before.is_subagent)) || (c.after && !Number(c.after.is_subagent))),
  );
  if (!moved.length) return;
  const sides = moved.flatMap((c) => [c.before, c.after].filter((s): s is LinkFields => s !== null));
  const repos = [...new Set(sides.map((s) => s.repo))];
  const branches = [...new Set(sides.map((s) => s.branch))];
  const onBranches: { repository: string; number: number; head_branch: string }[] = [];
  for (let i = 0; i < branches.length; i += CHUNK)
    onBranches.push(
      ...(await db
        .selectFrom('pull_requests')
        .select(['repository', 'number', 'head_branch'])
        .where('app_id', '=', appId)
        .where('repository', 'in', repos)
        .where('head_branch', 'in', branches.slice(i, i + CHUNK))
        .execute()),
    );
  const prsOf = (s: LinkFields): PrKey[] => [
    ...namedPrs(s).map((k) => ({ repository: k.repository, number: k.number })),
    ...onBranches
      .filter((p) => p.repository === s.repo && p.head_branch === s.branch)
      .map((p) => ({ repository: p.repository, number: Number(p.number) })),
  ];
  // Keys a replaced or deleted session touches are recounted; keys only new sessions reach may be skipped.
  const recount = new Map<string, PrKey>();
  const added = new Map<string, { key: PrKey; from: number }>();
  for (const c of moved) {
    if (c.before) for (const k of prsOf(c.before)) recount.set(keyOf(k), k);
    if (!c.after || Number(c.after.is_subagent)) continue;
    for (const k of prsOf(c.after)) {
      if (c.before) recount.set(keyOf(k), k);
      const was = added.get(keyOf(k));
      const at = Number(c.after.started_at);
      if (!was || at < was.from) added.set(keyOf(k), { key: k, from: at });
    }
  }
  const onlyAdded = [...added.values()].filter((a) => !recount.has(keyOf(a.key)));
  const firsts = await storedFirsts(
    db,
    appId,
    onlyAdded.map((a) => a.key),
  );
  for (const a of onlyAdded) {
    const stored = firsts.get(keyOf(a.key));
    if (stored === undefined || a.from < stored) recount.set(keyOf(a.key), a.key);
  }
  await refreshPrOutcomes(db, appId, [...recount.values()]);
}

/** The rows of the factory's PRs whose head commit is one of these (a check there finished or moved). */
export async function checksChanged(db: Db, appId: string, repository: string, shas: readonly string[]): Promise<void> {
  if (!shas.length) return;
  const prs = await db
    .selectFrom('pull_requests')
    .select(['repository', 'number'])
    .where('app_id', '=', appId)
    .where('repository', '=', repository)
    .where('head_sha', 'in', [...new Set(shas)])
    .execute();
  await refreshPrOutcomes(db, appId, prs);
}

/** What a merged PR reverts moved (`targets`: the refs before and after): refresh the PRs they name. */
export async function revertsChanged(
  db: Db,
  appId: string,
  repository: string,
  targets: readonly { target_number: number | null; target_title: string | null }[],
): Promise<void> {
  const numbers = targets.flatMap((t) => (t.target_number === null ? [] : [Number(t.target_number)]));
  const titles = [...new Set(targets.flatMap((t) => (t.target_title === null ? [] : [t.target_title])))];
  const byTitle = titles.length
    ? await db
        .selectFrom('pull_requests')
        .select(['repository', 'number'])
        .where('app_id', '=', appId)
        .where('repository', '=', repository)
        .where('title', 'in', titles)
        .execute()
    : [];
  await refreshPrOutcomes(db, appId, [...numbers.map((number) => ({ repository, number })), ...byTitle]);
}

/** Every row of the factory recomputed from its sources (after a bulk load that wrote the tables directly). */
export async function rebuildPrOutcomes(db: Db, appId: string): Promise<void> {
  await db.deleteFrom('pr_outcomes').where('app_id', '=', appId).execute();
  const keys = await sql<PrKey>`
    select distinct repository, number from session_pr_refs where app_id = ${appId}
    union select repository, number from session_commit_prs where app_id = ${appId}
    union select repository, number from pull_requests where app_id = ${appId}`.execute(db);
  await refreshPrOutcomes(db, appId, keys.rows);
}

export interface VerdictCounts {
  /** null: PRs without a stored evaluation yet. */
  verdict: string | null;
  prs: number;
  merged: number;
  reverted: number;
  ciFailures: number;
}

/** The PRs opened in [from, to) by verdict, and the keys of those without a stored evaluation. */
export async function outcomesByVerdict(
  db: Db,
  appId: string,
  window: { from: number; to: number },
  repository: string | undefined,
): Promise<{
  counts: VerdictCounts[];
  unevaluated: (PrKey & { merged: number; reverted: number; ciFailed: number })[];
}> {
  const repo = repository === undefined ? sql`` : sql` and repository = ${repository}`;
  const counts = await sql<{ verdict: string | null; prs: unknown; merged: unknown; reverted: unknown; ci: unknown }>`
    select verdict, count(*) as prs, sum(merged) as merged, sum(reverted) as reverted, sum(ci_failed) as ci
    from pr_outcomes
    where app_id = ${appId} and opened_at >= ${window.from} and opened_at < ${window.to}${repo}
    group by verdict`.execute(db);
  const out = counts.rows.map((r) => ({
    verdict: r.verdict,
    prs: Number(r.prs),
    merged: Number(r.merged),
    reverted: Number(r.reverted),
    ciFailures: Number(r.ci),
  }));
  if (!out.some((c) => c.verdict === null)) return { counts: out, unevaluated: [] };
  const rows = await sql<{ repository: string; number: unknown; merged: unknown; reverted: unknown; ci: unknown }>`
    select repository, number, merged, reverted, ci_failed as ci from pr_outcomes
    where app_id = ${appId} and opened_at >= ${window.from} and opened_at < ${window.to}${repo} and verdict is null
    order by repository, number`.execute(db);
  return {
    counts: out,
    unevaluated: rows.rows.map((r) => ({
      repository: r.repository,
      number: Number(r.number),
      merged: Number(r.merged),
      reverted: Number(r.reverted),
      ciFailed: Number(r.ci),
    })),
  };
}
