// SQL of the context tree history, always scoped by factory.
import { isPostgres, type Db } from '../../db/connection.js';
import { inList, jsonRows, jsonRowsAggregate, readRows } from '../../db/prepared.js';

export interface ContextCommitsTable {
  id: string;
  org_id: string;
  app_id: string;
  seq: number;
  commit_sha: string;
  branch: string | null;
  tree_sha256: string;
  file_count: number;
  total_bytes: number;
  previous_commit_sha: string | null;
  synced_at: number;
  synced_by: string;
}

export interface ContextFilesTable {
  commit_id: string;
  app_id: string;
  path: string;
  sha256: string;
  bytes: number;
}

export type ContextChangeKind = 'added' | 'modified' | 'removed';

export interface ContextChangesTable {
  commit_id: string;
  app_id: string;
  path: string;
  change: ContextChangeKind;
  sha256: string | null;
  previous_sha256: string | null;
}

declare module '../../db/schema.js' {
  interface Database {
    context_commits: ContextCommitsTable;
    context_files: ContextFilesTable;
    context_changes: ContextChangesTable;
  }
}

export type CommitRow = ContextCommitsTable;
export type FileRow = Pick<ContextFilesTable, 'path' | 'sha256' | 'bytes'>;
export type ChangeRow = Pick<ContextChangesTable, 'commit_id' | 'path' | 'change' | 'sha256' | 'previous_sha256'>;

export function findCommit(db: Db, appId: string, commitSha: string): Promise<CommitRow | undefined> {
  return db
    .selectFrom('context_commits')
    .selectAll()
    .where('app_id', '=', appId)
    .where('commit_sha', '=', commitSha)
    .executeTakeFirst();
}

export function latestCommit(db: Db, appId: string): Promise<CommitRow | undefined> {
  return db
    .selectFrom('context_commits')
    .selectAll()
    .where('app_id', '=', appId)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function syncedShas(db: Db, appId: string, shas: readonly string[]): Promise<Set<string>> {
  if (shas.length === 0) return new Set();
  // SQL text, not a Kysely query: a title search and the export ask this of each page's commits.
  const pg = isPostgres(db);
  const params: unknown[] = [appId];
  const text =
    `select commit_sha from context_commits where app_id = ${pg ? '$1' : '?'} and commit_sha in ` +
    inList(pg, params, shas);
  return new Set((await readRows<{ commit_sha: string }>(db, text, params)).map((r) => r.commit_sha));
}

/**
 * syncedShas as a scalar subquery of a larger statement (the session list's one read), over `page`, a relation of
 * that statement with a commit_sha column: the synced commits among the page's (any case). `factory` is the
 * placeholder of the factory id. Read back with syncedShasOf.
 */
export function syncedShasOfRelation(pg: boolean, factory: string, page: string): string {
  return (
    `(select ${jsonRowsAggregate(pg, 'commit_sha')} from context_commits where app_id = ${factory} and commit_sha in ` +
    `(select lower(commit_sha) from ${page} where commit_sha is not null))`
  );
}

/** The commits of a syncedShasOfRelation value. */
export function syncedShasOf(value: unknown): Set<string> {
  return new Set(jsonRows(value).map((v) => v[0] as string));
}

export function filesOf(db: Db, appId: string, commitId: string): Promise<FileRow[]> {
  return db
    .selectFrom('context_files')
    .select(['path', 'sha256', 'bytes'])
    .where('app_id', '=', appId)
    .where('commit_id', '=', commitId)
    .orderBy('path')
    .execute();
}

export function fileAt(db: Db, appId: string, commitId: string, path: string): Promise<FileRow | undefined> {
  return db
    .selectFrom('context_files')
    .select(['path', 'sha256', 'bytes'])
    .where('app_id', '=', appId)
    .where('commit_id', '=', commitId)
    .where('path', '=', path)
    .executeTakeFirst();
}

export interface NewCommit {
  commit: ContextCommitsTable;
  files: ContextFilesTable[];
  changes: ContextChangesTable[];
}

/** Inserts the commit, its tree and its changes in one transaction (all or nothing). */
export async function insertCommit(db: Db, input: NewCommit): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('context_commits').values(input.commit).execute();
    // Chunks keep each statement under the bound-parameter limits of both drivers.
    for (let i = 0; i < input.files.length; i += 500) {
      await trx
        .insertInto('context_files')
        .values(input.files.slice(i, i + 500))
        .execute();
    }
    for (let i = 0; i < input.changes.length; i += 500) {
      await trx
        .insertInto('context_changes')
        .values(input.changes.slice(i, i + 500))
        .execute();
    }
  });
}

export async function countCommits(db: Db, appId: string, branch: string | undefined): Promise<number> {
  const row = await countCommitsQuery(db, appId, branch).executeTakeFirst();
  return Number(row?.n ?? 0);
}

export function pageOfCommits(
  db: Db,
  appId: string,
  branch: string | undefined,
  limit: number,
  offset: number,
): Promise<CommitRow[]> {
  return pageOfCommitsQuery(db, appId, branch, limit, offset).execute();
}

// The history's statements, exported so a test can ask the store for their plans: by (app_id, seq), or with a
// branch by (app_id, branch, seq) (migration 0025).
export function countCommitsQuery(db: Db, appId: string, branch: string | undefined) {
  let q = db
    .selectFrom('context_commits')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('app_id', '=', appId);
  if (branch !== undefined) q = q.where('branch', '=', branch);
  return q;
}

export function pageOfCommitsQuery(db: Db, appId: string, branch: string | undefined, limit: number, offset: number) {
  let q = db.selectFrom('context_commits').selectAll().where('app_id', '=', appId);
  if (branch !== undefined) q = q.where('branch', '=', branch);
  return q.orderBy('seq', 'desc').limit(limit).offset(offset);
}

export function changesOf(db: Db, appId: string, commitIds: readonly string[]): Promise<ChangeRow[]> {
  if (commitIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('context_changes')
    .select(['commit_id', 'path', 'change', 'sha256', 'previous_sha256'])
    .where('app_id', '=', appId)
    .where('commit_id', 'in', [...commitIds])
    .orderBy('path')
    .execute();
}
