// SQL for artifacts and the per-factory blob ownership table. Every query is scoped by factory (app_id).
import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/connection.js';
import { digestsNamedIn, forgetDigests } from '../../db/digests.js';
import { preparedQuery } from '../../db/prepared.js';

export interface ArtifactsTable {
  id: string;
  org_id: string;
  app_id: string;
  client_artifact_id: string;
  kind: string;
  media_type: string;
  filename: string;
  caption: string;
  criterion_id: string | null;
  bytes: number;
  sha256: string;
  repository: string | null;
  pr_number: number | null;
  work_item_id: string | null;
  supersedes: string | null;
  session_id: string | null;
  session_turn_index: number | null;
  /** 1 ran in CI, 0 did not, null not said (issue 15 §2). */
  ci: number | null;
  git_repo: string | null;
  git_branch: string | null;
  commit_sha: string | null;
  emitted_at: number;
  created_at: number;
}

export interface ArtifactBlobsTable {
  app_id: string;
  sha256: string;
  org_id: string;
  bytes: number;
  created_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    artifacts: ArtifactsTable;
    artifact_blobs: ArtifactBlobsTable;
  }
}

export type ArtifactRow = Selectable<ArtifactsTable>;

/** Records the artifact and, in the same transaction, that its factory owns the blob. */
export async function insertArtifact(db: Db, row: Insertable<ArtifactsTable>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('artifact_blobs')
      .values({
        app_id: row.app_id,
        sha256: row.sha256,
        org_id: row.org_id,
        bytes: row.bytes,
        created_at: row.created_at,
      })
      .onConflict((oc) => oc.columns(['app_id', 'sha256']).doNothing())
      .execute();
    await trx.insertInto('artifacts').values(row).execute();
  });
}

export function findByClientId(db: Db, appId: string, clientArtifactId: string) {
  return db
    .selectFrom('artifacts')
    .selectAll()
    .where('app_id', '=', appId)
    .where('client_artifact_id', '=', clientArtifactId)
    .executeTakeFirst();
}

export function findById(db: Db, appId: string, id: string) {
  return db.selectFrom('artifacts').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
}

/** One artifact by id among the given factories (the caller's own; never an unscoped read). */
export function findByIdInFactories(db: Db, appIds: readonly string[], id: string) {
  return db.selectFrom('artifacts').selectAll().where('app_id', 'in', appIds).where('id', '=', id).executeTakeFirst();
}

export async function factoryOwnsBlob(db: Db, appId: string, sha256: string): Promise<boolean> {
  const row = await db
    .selectFrom('artifact_blobs')
    .select('sha256')
    .where('app_id', '=', appId)
    .where('sha256', '=', sha256)
    .executeTakeFirst();
  return row !== undefined;
}

// Oldest first: by emittedAt, then arrival, then id (a total order, so replacement is stable). Compiled once
// (db/prepared.ts): GET /v1/artifacts runs it on every call.
const pullRequestArtifacts = preparedQuery(3, (db: Db, appId: string, repository: string, prNumber: number) =>
  db
    .selectFrom('artifacts')
    .selectAll()
    .where('app_id', '=', appId)
    .where('repository', '=', repository)
    .where('pr_number', '=', prNumber)
    .orderBy('emitted_at')
    .orderBy('created_at')
    .orderBy('id'),
);

export function listForPullRequest(db: Db, appId: string, repository: string, prNumber: number) {
  return pullRequestArtifacts(db, appId, repository, prNumber);
}

export interface ItemAnchors {
  workItemId: string;
  pullRequests: readonly { repository: string; number: number }[];
}

/**
 * Every artifact of one work item: anchored to it directly, anchored to one of its pull requests, or
 * emitted from a session linked to it (a session that emitted at least one artifact naming the item).
 */
export function listForWorkItem(db: Db, appId: string, anchors: ItemAnchors) {
  return workItemArtifactsQuery(db, appId, anchors).execute();
}

/**
 * listForWorkItem's statement (exported so a test can ask the store for its plan): one select per way in, each
 * by its own index ((app_id, work_item_id), (app_id, session_id), (app_id, repository, pr_number)), joined by
 * `union` (which also drops an artifact reached twice). As one `or` under the factory's condition, both stores
 * read every artifact of the factory and tested each row; with the factory's condition in each branch of the
 * `or`, SQLite searched the indexes but PostgreSQL, unable to use an index for the `in (subquery)` branch,
 * scanned the whole table.
 */
export function workItemArtifactsQuery(db: Db, appId: string, anchors: ItemAnchors) {
  // A null in the linked sessions' list matches nothing, so it needs no `is not null`; with one, SQLite read the
  // list through (app_id, session_id) instead of (app_id, work_item_id).
  const linkedSessions = db
    .selectFrom('artifacts')
    .select('session_id')
    .where('app_id', '=', appId)
    .where('work_item_id', '=', anchors.workItemId);
  let query = db
    .selectFrom('artifacts')
    .selectAll()
    .where('app_id', '=', appId)
    .where('work_item_id', '=', anchors.workItemId)
    .union(
      db.selectFrom('artifacts').selectAll().where('app_id', '=', appId).where('session_id', 'in', linkedSessions),
    );
  for (const pr of anchors.pullRequests) {
    query = query.union(
      db
        .selectFrom('artifacts')
        .selectAll()
        .where('app_id', '=', appId)
        .where('repository', '=', pr.repository)
        .where('pr_number', '=', pr.number),
    );
  }
  return query.orderBy('emitted_at').orderBy('created_at').orderBy('id');
}

export function createdBefore(db: Db, appId: string, before: number, limit: number) {
  return db
    .selectFrom('artifacts')
    .selectAll()
    .where('app_id', '=', appId)
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

export async function deleteByIds(db: Db, appId: string, ids: readonly string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 300)
    await db
      .deleteFrom('artifacts')
      .where('app_id', '=', appId)
      .where('id', 'in', ids.slice(i, i + 300))
      .execute();
}

/** Of these digests, the ones some artifact of the factory still has as its bytes. */
export function shasStillUsed(db: Db, appId: string, shas: readonly string[]): Promise<Set<string>> {
  return digestsNamedIn(db, 'artifacts', appId, shas);
}

/** Let go of the factory's hold on these artifact bytes. */
export function forgetBlobs(db: Db, appId: string, shas: readonly string[]): Promise<void> {
  return forgetDigests(db, 'artifact_blobs', appId, shas);
}

/** Of these digests, the ones some factory holds as an artifact's bytes. */
export function blobsHeldAnywhere(db: Db, shas: readonly string[]): Promise<Set<string>> {
  return digestsNamedIn(db, 'artifact_blobs', null, shas);
}
