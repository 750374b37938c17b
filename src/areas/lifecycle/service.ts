// Deletion (issue 42): DELETE /v1/sessions/{id} and DELETE /v1/artifacts/{id}, and the same deletion for the
// retention sweep. One transaction removes every row that holds a copy or a count (each area's service does its
// own part), leaves a tombstone (a link answers 410 "deleted"), and lets go of the factory's hold on each blob
// nothing of it names any more; after the commit, a blob no factory holds is removed from the blob store (files
// or S3). The PR comments that showed the deleted evidence are asked to re-render. Audit rows say who deleted
// what (ids only, never the content).
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/connection.js';
import type { BlobStore } from '../../blobs/store.js';
import { recordAudit } from '../../server/audit.js';
import type { FactoryContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { forgetImages, imagesHeldAnywhere } from '../agents/service.js';
import { prCheckModeOf, prCommentModeOf } from '../apps/service.js';
import {
  artifactBlobsHeldAnywhere,
  deleteStoredArtifacts,
  findStoredArtifact,
  type StoredArtifact,
} from '../artifacts/service.js';
import { workItemEvidence } from '../artifacts/work-item.js';
import { schedulePrComments, type PrRef } from '../pr-comments/outbox.js';
import { pullRequestsOfSessions } from '../prs/service.js';
import {
  deleteStoredSessions,
  findStoredSession,
  imagesOfSessions,
  imagesStillNamed,
  subagentsOfSession,
  type StoredSession,
} from '../sessions/delete.js';
import { assertNotDeleted, recordDeletions, type DeletionReason } from '../tombstones/service.js';

/**
 * Delete sessions (each with its subagent transcripts, which carry the same work) in one transaction of `db`.
 * Answers the blobs the factory let go of; the caller drops the unheld ones after the commit.
 */
export async function deleteSessionsInTransaction(
  trx: Db,
  appId: string,
  rows: readonly StoredSession[],
  reason: DeletionReason,
  now: number,
): Promise<string[]> {
  const ids = rows.map((r) => r.id);
  const images = await imagesOfSessions(trx, appId, ids);
  await deleteStoredSessions(trx, appId, rows);
  const still = await imagesStillNamed(trx, appId, images);
  const released = images.filter((sha) => !still.has(sha));
  await forgetImages(trx, appId, released);
  await recordDeletions(trx, appId, 'session', ids, reason, now);
  return released;
}

export async function deleteArtifactsInTransaction(
  trx: Db,
  appId: string,
  rows: readonly StoredArtifact[],
  reason: DeletionReason,
  now: number,
): Promise<string[]> {
  const released = await deleteStoredArtifacts(trx, appId, rows);
  await recordDeletions(
    trx,
    appId,
    'artifact',
    rows.map((r) => r.id),
    reason,
    now,
  );
  return released;
}

/**
 * Remove from the blob store each of these blobs that no factory holds any more (as a session image or an
 * artifact's bytes). An upload of the same bytes may race the removal (its row not committed yet when we
 * looked): the bytes are read first and put back if a holder appeared meanwhile, so a racing upload never loses
 * them. Answers how many were removed.
 */
export async function dropUnheldBlobs(
  db: Db,
  blobs: BlobStore,
  shas: readonly string[],
  log: Pick<FastifyBaseLogger, 'warn'>,
): Promise<number> {
  let removed = 0;
  const held = await heldAnywhere(db, shas);
  for (const sha of new Set(shas)) {
    if (held.has(sha)) continue;
    try {
      const bytes = await blobs.get(sha);
      await blobs.delete(sha);
      if ((await heldAnywhere(db, [sha])).size) {
        if (bytes) await blobs.put(sha, bytes);
        continue;
      }
      if (bytes) removed++;
    } catch (err) {
      // The rows are gone already; an unremoved blob is an orphan the blob sweep removes later.
      log.warn({ err, sha256: sha }, 'could not remove an unreferenced blob');
    }
  }
  return removed;
}

/** Of these blobs, the ones some factory holds (as a session image or an artifact's bytes). */
export async function heldAnywhere(db: Db, shas: readonly string[]): Promise<Set<string>> {
  const images = await imagesHeldAnywhere(db, shas);
  const artifacts = await artifactBlobsHeldAnywhere(db, shas);
  return new Set([...images, ...artifacts]);
}

async function prJobsOn(ctx: FactoryContext): Promise<boolean> {
  return (
    (await prCommentModeOf(ctx.db, ctx.orgId, ctx.appId)) === 'on' ||
    (await prCheckModeOf(ctx.db, ctx.orgId, ctx.appId)) === 'on'
  );
}

export interface SessionDeletion {
  traceId: string;
  sessions: number;
  blobs: number;
}

/** DELETE /v1/sessions/{id}: the session (by trace id or its own session id) and its subagent transcripts. */
export async function deleteSession(ctx: FactoryContext, traceId: string): Promise<SessionDeletion> {
  const row = await findStoredSession(ctx.db, ctx.appId, traceId);
  if (!row) {
    await assertNotDeleted(ctx.db, ctx.appId, 'session', traceId);
    throw apiError('session_not_found', 'No such session in this factory.');
  }
  // Read before the rows go: which PR comments showed it.
  const prs = (await prJobsOn(ctx)) ? await pullRequestsOfSessions(ctx, [row.session_id]) : [];
  const rows = [row, ...(await subagentsOfSession(ctx.db, ctx.appId, row))];
  const released = await ctx.db
    .transaction()
    .execute((trx) => deleteSessionsInTransaction(trx, ctx.appId, rows, 'request', ctx.clock.now()));
  await recordAudit(ctx.db, ctx.clock, {
    orgId: ctx.orgId,
    actionType: 'session.deleted',
    actor: ctx.principal,
    targetType: 'session',
    targetId: row.id,
    targetIdentifier: row.session_id,
    details: { factoryId: ctx.appId, subagentTraceIds: rows.slice(1).map((r) => r.id) },
  });
  const blobs = await dropUnheldBlobs(ctx.db, ctx.gateway.blobs, released, ctx.log);
  await schedulePrComments(ctx, ctx.appId, prs);
  return { traceId: row.id, sessions: rows.length, blobs };
}

/** DELETE /v1/artifacts/{id}. */
export async function deleteArtifact(ctx: FactoryContext, id: string): Promise<void> {
  const row = await findStoredArtifact(ctx.db, ctx.appId, id);
  if (!row) {
    await assertNotDeleted(ctx.db, ctx.appId, 'artifact', id);
    throw apiError('artifact_not_found', 'No such artifact in this factory.');
  }
  const released = await ctx.db
    .transaction()
    .execute((trx) => deleteArtifactsInTransaction(trx, ctx.appId, [row], 'request', ctx.clock.now()));
  await recordAudit(ctx.db, ctx.clock, {
    orgId: ctx.orgId,
    actionType: 'artifact.deleted',
    actor: ctx.principal,
    targetType: 'artifact',
    targetId: row.id,
    targetIdentifier: row.client_artifact_id,
    details: { factoryId: ctx.appId, sha256: row.sha256, bytes: Number(row.bytes) },
  });
  await dropUnheldBlobs(ctx.db, ctx.gateway.blobs, released, ctx.log);
  const prs: PrRef[] =
    row.repository !== null && row.pr_number !== null ? [{ repository: row.repository, number: row.pr_number }] : [];
  if (prs.length && (await prJobsOn(ctx))) await schedulePrComments(ctx, ctx.appId, prs);
}

/** Artifacts per transaction when a work item's evidence goes (as the retention sweep's batches). */
const EVIDENCE_BATCH = 100;

export interface EvidenceDeletion {
  workItemId: string;
  artifacts: number;
}

/**
 * DELETE /v1/work-items/{id}/artifacts: every artifact the item's list reaches (anchored to it, to a pull request
 * declared onto it, or emitted from a session linked to it), replaced versions too, each as by DELETE
 * /v1/artifacts/{id}. Sessions are not evidence here: they have their own DELETE.
 */
export async function deleteWorkItemEvidence(ctx: FactoryContext, idOrNumber: string): Promise<EvidenceDeletion> {
  const { workItemId, artifacts } = await workItemEvidence(ctx, idOrNumber);
  const released: string[] = [];
  for (let i = 0; i < artifacts.length; i += EVIDENCE_BATCH) {
    const rows = artifacts.slice(i, i + EVIDENCE_BATCH);
    released.push(
      ...(await ctx.db
        .transaction()
        .execute((trx) => deleteArtifactsInTransaction(trx, ctx.appId, rows, 'request', ctx.clock.now()))),
    );
  }
  await recordAudit(ctx.db, ctx.clock, {
    orgId: ctx.orgId,
    actionType: 'work_item.evidence_deleted',
    actor: ctx.principal,
    targetType: 'work_item',
    targetId: workItemId,
    targetIdentifier: workItemId,
    details: { factoryId: ctx.appId, artifactIds: artifacts.map((r) => r.id) },
  });
  await dropUnheldBlobs(ctx.db, ctx.gateway.blobs, released, ctx.log);
  const prs = new Map<string, PrRef>();
  for (const r of artifacts)
    if (r.repository !== null && r.pr_number !== null)
      prs.set(`${r.repository}#${r.pr_number}`, { repository: r.repository, number: r.pr_number });
  if (prs.size && (await prJobsOn(ctx))) await schedulePrComments(ctx, ctx.appId, [...prs.values()]);
  return { workItemId, artifacts: artifacts.length };
}
