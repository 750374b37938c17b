// Sessions linked to pull requests by commit (issue 41): a session that made a commit a PR holds is linked to
// that PR, whichever is known first. The session's commits are kept as rows when it is stored (a telemetry Bash
// result's `git_commit_id`, a transcript's `outcome.commitShas`), the PR's when the App reads its commit list
// (the verdict's read, on the PR's webhook job or on a read of the PR); a link is the join of the two, made
// when either side reads it, so neither order loses it. SHAs match as the verdict's commit provenance matches
// (verify/commits.ts): both tables are indexed by the first 7 characters, the exact match is made here. A
// session in another repository than the PR's never links (a session with no repository may).
import { CompiledQuery } from 'kysely';
import { isPostgres, type Db } from '../../db/connection.js';
import { insertRows } from '../../db/bulk-insert.js';
import { deleteRowsOfSessionsText } from '../../db/rows-of-sessions.js';
import { sameCommit, shaPrefix } from '../../verify/index.js';
import type { AgentSessionV1 } from '../sessions/document.js';
import type { SessionLinkRow } from './attribution-store.js';
import type { PrKey } from './refs.js';

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

declare module '../../db/schema.js' {
  interface Database {
    session_commits: SessionCommitsTable;
    pr_commits: PrCommitsTable;
  }
}

const SHA = /^[0-9a-f]{7,64}$/;
/** At most this many commits are kept of one session (a session rarely makes more than a handful). */
const MAX_SESSION_COMMITS = 200;

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
 * Keep the commits of these sessions (the sessions ingest calls this inside its transaction, with every session
 * it wrote). `replaced`: the sessions that may have rows already; theirs are replaced.
 */
export async function recordSessionCommits(
  db: Db,
  appId: string,
  sessions: readonly { id: string; doc: Pick<AgentSessionV1, 'outcome'> }[],
  replaced: readonly string[],
): Promise<void> {
  await forgetSessionCommits(db, appId, replaced);
  const rows = sessions.flatMap((s) =>
    commitsOfDocument(s.doc).map((sha) => ({ app_id: appId, session_id: s.id, sha, prefix: shaPrefix(sha) })),
  );
  for (let i = 0; i < rows.length; i += 500)
    await insertRows(db, 'session_commits', rows.slice(i, i + 500), 'on conflict do nothing');
}

/** Delete the commit rows of these sessions (their replacement or their deletion). */
export async function forgetSessionCommits(db: Db, appId: string, sessionIds: readonly string[]): Promise<void> {
  for (let i = 0; i < sessionIds.length; i += 500) {
    const ids = sessionIds.slice(i, i + 500);
    // PostgreSQL: one probe of the primary key a session, whatever the statistics say (db/rows-of-sessions.ts).
    if (isPostgres(db))
      await db.executeQuery(
        CompiledQuery.raw(deleteRowsOfSessionsText('session_commits', 'session_id', 'app-then-session'), [
          appId,
          [...ids],
        ]),
      );
    else await db.deleteFrom('session_commits').where('app_id', '=', appId).where('session_id', 'in', ids).execute();
  }
}

/** Keep the commits of a PR as the App read them (added to those of its earlier head commits). */
export async function recordPrCommits(db: Db, appId: string, key: PrKey, commits: readonly string[]): Promise<void> {
  const rows = [...new Set(commits.map((c) => c.toLowerCase()).filter((c) => SHA.test(c)))].map((sha) => ({
    app_id: appId,
    repository: key.repository,
    number: key.number,
    sha,
    prefix: shaPrefix(sha),
  }));
  for (let i = 0; i < rows.length; i += 500)
    await insertRows(db, 'pr_commits', rows.slice(i, i + 500), 'on conflict do nothing');
}

const LINK_COLUMNS = [
  's.id',
  's.session_id',
  's.repo',
  's.branch',
  's.pr_refs',
  's.title',
  's.agent_type',
  's.started_at',
  's.cost_micros',
  's.cost_status',
  's.unpriced_models',
] as const;

export interface CommitLinkRow extends SessionLinkRow {
  pr_repository: string;
  pr_number: number;
}

/** The top-level sessions of this factory that made a commit a PR holds: of one PR (`only`), or of every PR. */
export async function sessionsLinkedByCommit(db: Db, appId: string, only?: PrKey): Promise<CommitLinkRow[]> {
  let q = db
    .selectFrom('pr_commits as p')
    .innerJoin('session_commits as c', (j) => j.onRef('c.app_id', '=', 'p.app_id').onRef('c.prefix', '=', 'p.prefix'))
    .innerJoin('sessions as s', 's.id', 'c.session_id')
    .select([
      ...LINK_COLUMNS,
      'c.sha as session_sha',
      'p.sha as pr_sha',
      'p.repository as pr_repository',
      'p.number as pr_number',
    ])
    .where('p.app_id', '=', appId)
    .where('s.app_id', '=', appId)
    .where('s.is_subagent', '=', 0)
    .where((eb) => eb.or([eb('s.repo', '=', eb.ref('p.repository')), eb('s.repo', '=', '')]));
  if (only) q = q.where('p.repository', '=', only.repository).where('p.number', '=', only.number);
  const out = new Map<string, CommitLinkRow>();
  for (const { session_sha, pr_sha, ...row } of await q.execute())
    if (sameCommit(session_sha, pr_sha))
      out.set(`${row.id}\u0000${row.pr_repository}#${row.pr_number}`, { ...row, pr_number: Number(row.pr_number) });
  return [...out.values()];
}

/** The PRs each of these sessions (row ids) is linked to by a commit: session row id → PR keys. */
export async function prsLinkedByCommit(
  db: Db,
  appId: string,
  sessions: readonly { id: string; repo: string }[],
): Promise<Map<string, PrKey[]>> {
  const out = new Map<string, PrKey[]>();
  const repoOf = new Map(sessions.map((s) => [s.id, s.repo]));
  const ids = [...repoOf.keys()];
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .selectFrom('session_commits as c')
      .innerJoin('pr_commits as p', (j) => j.onRef('p.app_id', '=', 'c.app_id').onRef('p.prefix', '=', 'c.prefix'))
      .select(['c.session_id', 'c.sha as session_sha', 'p.sha as pr_sha', 'p.repository', 'p.number'])
      .where('c.app_id', '=', appId)
      .where('c.session_id', 'in', ids.slice(i, i + 500))
      .execute();
    for (const r of rows) {
      const repo = repoOf.get(r.session_id);
      if ((repo !== '' && repo !== r.repository) || !sameCommit(r.session_sha, r.pr_sha)) continue;
      const list = out.get(r.session_id) ?? [];
      if (!list.some((k) => k.repository === r.repository && k.number === Number(r.number)))
        list.push({ repository: r.repository, number: Number(r.number) });
      out.set(r.session_id, list);
    }
  }
  return out;
}
