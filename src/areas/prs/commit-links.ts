// Sessions linked to pull requests by commit (issue 41): a session that made a commit a PR holds is linked to
// that PR, whichever is known first. The session's commits are kept as rows when it is stored (a telemetry Bash
// result's `git_commit_id`, a transcript's `outcome.commitShas`), the PR's when the App reads its commit list
// (the PR's webhook job, verdict/github-inputs.ts). A link is the join of the two, kept as a row
// (session_commit_prs) by whichever side is stored second, inside its transaction, with the PR spend and
// outcome sums it moves (on PostgreSQL both sides check again after their commit: linkCommitsAfter): reads
// only read the rows. SHAs match as the verdict's commit provenance matches
// (verify/commits.ts): both commit tables are indexed by the first 7 characters, the exact match is made here.
// A session in another repository than the PR's never links (a session with no repository may).
import { CompiledQuery } from 'kysely';
import { isPostgres, type Db } from '../../db/connection.js';
import { insertRows } from '../../db/bulk-insert.js';
import { chunks } from '../../db/chunked.js';
import { inList, readRows } from '../../db/prepared.js';
import { deleteRowsOfSessionsText } from '../../db/rows-of-sessions.js';
import { sameCommit, shaPrefix } from '../../verify/index.js';
import type { AgentSessionV1 } from '../sessions/document.js';
import { S_LINK_COLUMNS, type SessionLinkRow } from './attribution-store.js';
import { refreshPrOutcomes } from './outcome-aggregates.js';
import type { PrKey } from './refs.js';
import { refreshSessionSpend } from './spend-aggregates.js';
import type { SessionPrRefsTable } from './spend-store.js';

export interface SessionCommitsTable {
  app_id: string;
  /** The session row id (traceId). */
  session_id: string;
  sha: string;
  prefix: string;
}

export interface PrCommitsTable {
  app_id: string;
  repository: string;
  number: number;
  sha: string;
  prefix: string;
}

/** A session linked to a PR by a commit (migration 0052): the columns of a PR the session names. */
export type SessionCommitPrsTable = SessionPrRefsTable;

declare module '../../db/schema.js' {
  interface Database {
    session_commits: SessionCommitsTable;
    pr_commits: PrCommitsTable;
    session_commit_prs: SessionCommitPrsTable;
  }
}

const SHA = /^[0-9a-f]{7,64}$/;
/** At most this many commits are kept of one session (a session rarely makes more than a handful). */
const MAX_SESSION_COMMITS = 200;
const keyOf = (k: PrKey) => `${k.repository}#${k.number}`;

/** The commits a session document says it made, lower-case, each once. */
export function commitsOfDocument(doc: Pick<AgentSessionV1, 'outcome'>): string[] {
  const out = new Set<string>();
  const add = (shas: unknown) => {
    if (!Array.isArray(shas)) return;
    for (const s of shas) if (typeof s === 'string' && SHA.test(s.toLowerCase())) out.add(s.toLowerCase());
  };
  add(doc.outcome?.commitShas);
  for (const pr of doc.outcome?.prs ?? []) add(pr.commitShas);
  return [...out].slice(0, MAX_SESSION_COMMITS);
}

/**
 * The PRs these sessions are linked to by commit now, as rows. SQL text, not a Kysely query: every session list
 * request reads this for its page, and building and compiling the query cost more than SQLite took to answer.
 */
async function linksOf(db: Db, appId: string, sessionIds: readonly string[]): Promise<SessionCommitPrsTable[]> {
  const pg = isPostgres(db);
  const out: SessionCommitPrsTable[] = [];
  for (const ids of chunks(sessionIds, 500)) {
    const params: unknown[] = [appId];
    const text =
      `select app_id, session_id, repository, number from session_commit_prs where app_id = ${pg ? '$1' : '?'} ` +
      `and session_id in ${inList(pg, params, ids)}`;
    for (const r of await readRows<SessionCommitPrsTable>(db, text, params))
      out.push({ ...r, number: Number(r.number) });
  }
  return out;
}

/** Delete the commit and link rows of these sessions; the PRs they were linked to. */
async function dropSessionCommits(db: Db, appId: string, sessionIds: readonly string[]): Promise<PrKey[]> {
  const before = await linksOf(db, appId, sessionIds);
  await deleteOfSessions(db, 'session_commits', appId, sessionIds);
  // Only the sessions that had links have link rows (most sessions have none).
  await deleteOfSessions(db, 'session_commit_prs', appId, [...new Set(before.map((l) => l.session_id))]);
  return before;
}

async function deleteOfSessions(
  db: Db,
  table: 'session_commits' | 'session_commit_prs',
  appId: string,
  sessionIds: readonly string[],
): Promise<void> {
  for (let i = 0; i < sessionIds.length; i += 500) {
    const ids = sessionIds.slice(i, i + 500);
    // PostgreSQL: one probe of the primary key a session, whatever the statistics say (db/rows-of-sessions.ts).
    if (isPostgres(db))
      await db.executeQuery(
        CompiledQuery.raw(deleteRowsOfSessionsText(table, 'session_id', 'app-then-session'), [appId, [...ids]]),
      );
    else await db.deleteFrom(table).where('app_id', '=', appId).where('session_id', 'in', ids).execute();
  }
}

/**
 * Keep the commits of these sessions and their links to the PRs that hold one (the sessions ingest calls this
 * inside its transaction, with every session it wrote, after their rows; before the PR spend recount, which
 * reads the links). `replaced`: the sessions that may have rows already; theirs are replaced. The PR outcome
 * rows of the PRs they were or are linked to by commit are recomputed here.
 */
export async function recordSessionCommits(
  db: Db,
  appId: string,
  sessions: readonly { id: string; doc: Pick<AgentSessionV1, 'outcome'> }[],
  replaced: readonly string[],
): Promise<void> {
  const before = replaced.length ? await dropSessionCommits(db, appId, replaced) : [];
  const rows = sessions.flatMap((s) =>
    commitsOfDocument(s.doc).map((sha) => ({ app_id: appId, session_id: s.id, sha, prefix: shaPrefix(sha) })),
  );
  for (let i = 0; i < rows.length; i += 500)
    await insertRows(db, 'session_commits', rows.slice(i, i + 500), 'on conflict do nothing');
  const withCommits = [...new Set(rows.map((r) => r.session_id))];
  const after: SessionCommitPrsTable[] = [];
  for (let i = 0; i < withCommits.length; i += 500) {
    const matches = await db
      .selectFrom('session_commits as c')
      .innerJoin('pr_commits as p', (j) => j.onRef('p.app_id', '=', 'c.app_id').onRef('p.prefix', '=', 'c.prefix'))
      .innerJoin('sessions as s', 's.id', 'c.session_id')
      .select(['c.session_id', 'c.sha as session_sha', 'p.sha as pr_sha', 'p.repository', 'p.number', 's.repo'])
      .where('c.app_id', '=', appId)
      .where('c.session_id', 'in', withCommits.slice(i, i + 500))
      .execute();
    for (const m of matches)
      if ((m.repo === '' || m.repo === m.repository) && sameCommit(m.session_sha, m.pr_sha))
        after.push({ app_id: appId, session_id: m.session_id, repository: m.repository, number: Number(m.number) });
  }
  await insertLinks(db, after);
  if (before.length || after.length) await refreshPrOutcomes(db, appId, [...before, ...after]);
}

async function insertLinks(db: Db, links: readonly SessionCommitPrsTable[]): Promise<void> {
  const unique = [...new Map(links.map((l) => [`${l.session_id}\u0000${keyOf(l)}`, l])).values()];
  for (let i = 0; i < unique.length; i += 500)
    await insertRows(db, 'session_commit_prs', unique.slice(i, i + 500), 'on conflict do nothing');
}

/**
 * Delete the commits and commit links of these sessions (their deletion), inside the caller's transaction,
 * with the PR outcome rows of the PRs they were linked to by commit.
 */
export async function forgetSessionCommits(db: Db, appId: string, sessionIds: readonly string[]): Promise<void> {
  const before = await dropSessionCommits(db, appId, sessionIds);
  if (before.length) await refreshPrOutcomes(db, appId, before);
}

/**
 * Keep the commits of a PR as the App read them (added to those of its earlier head commits), link the
 * sessions that made one, and move the PR spend and outcome sums by them, in one transaction.
 */
export async function recordPrCommits(db: Db, appId: string, key: PrKey, commits: readonly string[]): Promise<void> {
  const shas = [...new Set(commits.map((c) => c.toLowerCase()).filter((c) => SHA.test(c)))];
  if (!shas.length) return;
  const write = async (trx: Db) => {
    const rows = shas.map((sha) => ({ ...key, app_id: appId, sha, prefix: shaPrefix(sha) }));
    for (let i = 0; i < rows.length; i += 500)
      await insertRows(trx, 'pr_commits', rows.slice(i, i + 500), 'on conflict do nothing');
    const prefixes = [...new Set(rows.map((r) => r.prefix))];
    const links: SessionCommitPrsTable[] = [];
    const topLevel = new Set<string>();
    for (let i = 0; i < prefixes.length; i += 500) {
      const candidates = await trx
        .selectFrom('session_commits as c')
        .innerJoin('sessions as s', 's.id', 'c.session_id')
        .select(['c.session_id', 'c.sha', 's.repo', 's.is_subagent'])
        .where('c.app_id', '=', appId)
        .where('c.prefix', 'in', prefixes.slice(i, i + 500))
        .where('s.app_id', '=', appId)
        .execute();
      for (const c of candidates) {
        if ((c.repo !== '' && c.repo !== key.repository) || !shas.some((sha) => sameCommit(c.sha, sha))) continue;
        links.push({ app_id: appId, session_id: c.session_id, ...key });
        if (!Number(c.is_subagent)) topLevel.add(c.session_id);
      }
    }
    if (!links.length) return;
    await insertLinks(trx, links);
    await refreshSessionSpend(trx, appId, [...topLevel]);
    await refreshPrOutcomes(trx, appId, [key]);
  };
  if (db.isTransaction) return write(db);
  await db.transaction().execute(write);
  await linkCommitsAfter(db, appId, shas);
}

/**
 * PostgreSQL (read committed): a session's sync and a PR's commit read that run at once each miss the other's
 * uncommitted rows, so neither writes the link. Each side runs this after its own commit, with the commits it
 * wrote: the later of the two sees both sides' rows. Only the link rows this run inserts move the sums (a row
 * the other side inserts first conflicts here, after that side commits), so both running counts a link once.
 * SQLite serialises writers: the side stored second always sees the first's rows.
 */
export async function linkCommitsAfter(db: Db, appId: string, commits: readonly string[]): Promise<void> {
  if (!isPostgres(db) || db.isTransaction) return;
  const prefixes = [
    ...new Set(
      commits
        .map((c) => c.toLowerCase())
        .filter((c) => SHA.test(c))
        .map(shaPrefix),
    ),
  ];
  if (!prefixes.length) return;
  for (let i = 0; i < prefixes.length; i += 500) {
    const chunk = prefixes.slice(i, i + 500);
    const matches = await db
      .selectFrom('session_commits as c')
      .innerJoin('pr_commits as p', (j) => j.onRef('p.app_id', '=', 'c.app_id').onRef('p.prefix', '=', 'c.prefix'))
      .innerJoin('sessions as s', 's.id', 'c.session_id')
      .leftJoin('session_commit_prs as k', (j) =>
        j
          .onRef('k.app_id', '=', 'c.app_id')
          .onRef('k.session_id', '=', 'c.session_id')
          .onRef('k.repository', '=', 'p.repository')
          .onRef('k.number', '=', 'p.number'),
      )
      .select(['c.session_id', 'c.sha as session_sha', 'p.sha as pr_sha', 'p.repository', 'p.number', 's.repo'])
      .where('c.app_id', '=', appId)
      .where('c.prefix', 'in', chunk)
      .where('s.app_id', '=', appId)
      .where('k.session_id', 'is', null)
      .execute();
    const missing = matches
      .filter((m) => (m.repo === '' || m.repo === m.repository) && sameCommit(m.session_sha, m.pr_sha))
      .map((m) => ({ app_id: appId, session_id: m.session_id, repository: m.repository, number: Number(m.number) }));
    if (!missing.length) continue;
    await db.transaction().execute(async (trx) => {
      const unique = [...new Map(missing.map((l) => [`${l.session_id}\u0000${keyOf(l)}`, l])).values()];
      const inserted = await trx
        .insertInto('session_commit_prs')
        .values(unique)
        .onConflict((oc) => oc.doNothing())
        .returning(['session_id', 'repository', 'number'])
        .execute();
      if (!inserted.length) return;
      const topLevel = await trx
        .selectFrom('sessions')
        .select('id')
        .where('app_id', '=', appId)
        .where('id', 'in', [...new Set(inserted.map((r) => r.session_id))])
        .where('is_subagent', '=', 0)
        .execute();
      await refreshSessionSpend(
        trx,
        appId,
        topLevel.map((r) => r.id),
      );
      await refreshPrOutcomes(
        trx,
        appId,
        inserted.map((r) => ({ repository: r.repository, number: Number(r.number) })),
      );
    });
  }
}

export interface CommitLinkRow extends SessionLinkRow {
  pr_repository: string;
  pr_number: number;
}

/** The top-level sessions of this factory linked to a PR by commit: of one PR (`only`), or of every PR. */
export async function sessionsLinkedByCommit(db: Db, appId: string, only?: PrKey): Promise<CommitLinkRow[]> {
  let q = db
    .selectFrom('session_commit_prs as k')
    .innerJoin('sessions as s', 's.id', 'k.session_id')
    .select([...S_LINK_COLUMNS, 'k.repository as pr_repository', 'k.number as pr_number'])
    .where('k.app_id', '=', appId)
    .where('s.app_id', '=', appId)
    .where('s.is_subagent', '=', 0);
  if (only) q = q.where('k.repository', '=', only.repository).where('k.number', '=', only.number);
  return (await q.execute()).map((r) => ({ ...r, pr_number: Number(r.pr_number) }));
}
