// SQL for artifacts and the per-factory blob ownership table. Every query is scoped by factory (app_id).
import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/connection.js';
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
      .values({ app_id: row.app_id, sha256: row.sha256, org_id: row.org_id, bytes: row.bytes, created_at: row.created_at })
      .onConflict((oc) => oc.columns(['app_id', 'sha256']).doNothing())
      .execute();
    await trx.insertInto('artifacts').values(row).execute();
  });
}

export function findByClientId(db: Db, appId: string, clientArtifactId: string) {
  return db.selectFrom('artifacts').selectAll().where('app_id', '=', appId).where('client_artifact_id', '=', clientArtifactId).executeTakeFirst();
}

export function findById(db: Db, appId: string, id: string) {
  return db.selectFrom('artifacts').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
}

export async function factoryOwnsBlob(db: Db, appId: string, sha256: string): Promise<boolean> {
  const row = await db.selectFrom('artifact_blobs').select('sha256').where('app_id', '=', appId).where('sha256', '=', sha256).executeTakeFirst();
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
    .orderBy('id'));

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
  const linkedSessions = db
    .selectFrom('artifacts')
    .select('session_id')
    .where('app_id', '=', appId)
    .where('work_item_id', '=', anchors.workItemId)
    .where('session_id', 'is not', null);
  return db
    .selectFrom('artifacts')
    .selectAll()
    .where('app_id', '=', appId)
    .where((eb) =>
      eb.or([
        eb('work_item_id', '=', anchors.workItemId),
        eb('session_id', 'in', linkedSessions),
        ...anchors.pullRequests.map((pr) => eb.and([eb('repository', '=', pr.repository), eb('pr_number', '=', pr.number)])),
      ]),
    )
    .orderBy('emitted_at')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
