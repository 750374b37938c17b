// POST /v1/agents/sync: limits, per-blob hash checks, per-session validation, then one transaction that stores
// everything accepted (a 2xx means durable). GET /v1/agents/blob/{sha256}: a factory's image bytes.
import crypto from 'node:crypto';
import type { Db } from '../../db/connection.js';
import type { FactoryContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { commitsOfDocument, linkCommitsAfter } from '../prs/commit-links.js';
import { actorOfCaller, prepareSessions, storeSessions, type SessionActor } from '../sessions/ingest.js';
import { emitEvent } from '../notifications/service.js';
import { durableWriter, type DurableWriter } from '../../db/group-commit.js';
import type { AgentSessionV1 } from '../sessions/document.js';
import { prCheckModeOf, prCommentModeOf } from '../apps/service.js';
import { schedulePrComments } from '../pr-comments/outbox.js';
import { pullRequestsOfSessions } from '../prs/service.js';
import { checkSession } from './validate.js';
import * as store from './store.js';
import type { SyncBody, SyncResult } from './schema.js';

const MiB = 1024 * 1024;

/** API.md §8. */
export const SYNC_LIMITS = { bodyBytes: 8 * MiB, sessions: 50, blobs: 64, blobBytes: 2 * MiB } as const;

const SHA256 = /^[0-9a-f]{64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

interface CheckedBlob {
  sha256: string;
  mediaType: string;
  bytes: Buffer;
}

function tooLarge(what: string, limit: number, unit: string) {
  return apiError('payload_too_large', `${what} (limit ${limit} ${unit}); split the upload.`, { limit, unit });
}

function oversized(base64Chars: number): string {
  return (
    `blob_too_large: about ${Math.floor((base64Chars * 3) / 4)} bytes is more than a blob may be (limit ` +
    `${SYNC_LIMITS.blobBytes} bytes); the sessions were stored without it`
  );
}

function checkBlob(
  value: unknown,
): { ok: true; blob: CheckedBlob } | { ok: false; sha256: string | null; reason: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, sha256: null, reason: 'blob must be an object { sha256, mediaType, bytes, data }' };
  const b = value as Record<string, unknown>;
  const sha = typeof b.sha256 === 'string' ? b.sha256 : null;
  if (sha === null || !SHA256.test(sha))
    return { ok: false, sha256: sha, reason: 'sha256 must be 64 lowercase hex digits' };
  if (typeof b.mediaType !== 'string' || !/^[\w.+-]+\/[\w.+-]+$/.test(b.mediaType))
    return { ok: false, sha256: sha, reason: 'mediaType must be a media type such as image/png' };
  if (typeof b.data !== 'string') return { ok: false, sha256: sha, reason: 'data must be base64' };
  // An oversized blob is refused alone, not the whole request: a client that cannot split a one-session batch
  // (the OuterLayer CLI caps a blob at 4,000,000 base64 characters) would otherwise never get past it.
  // Checked before decoding so it costs nothing (base64 carries 3 bytes in 4 characters).
  if (Math.floor((b.data.length * 3) / 4) - 2 > SYNC_LIMITS.blobBytes)
    return { ok: false, sha256: sha, reason: oversized(b.data.length) };
  if (!BASE64.test(b.data)) return { ok: false, sha256: sha, reason: 'data is not valid base64' };
  const bytes = Buffer.from(b.data, 'base64');
  if (bytes.length > SYNC_LIMITS.blobBytes) return { ok: false, sha256: sha, reason: oversized(b.data.length) };
  if (b.bytes !== undefined && b.bytes !== bytes.length)
    return { ok: false, sha256: sha, reason: `bytes says ${String(b.bytes)} but data decodes to ${bytes.length}` };
  const actual = crypto.createHash('sha256').update(bytes).digest('hex');
  if (actual !== sha)
    return { ok: false, sha256: sha, reason: `sha256 does not match the data (the data hashes to ${actual})` };
  return { ok: true, blob: { sha256: sha, mediaType: b.mediaType, bytes } };
}

/**
 * A sync's place in the group commit (db/group-commit.ts): taken once its body has arrived, so a commit that
 * starts while this sync is still being checked waits for it and shares its fsync.
 */
export function syncWriter(ctx: FactoryContext): DurableWriter {
  return durableWriter(ctx.db, ctx.gateway.dialect);
}

export async function sync(
  ctx: FactoryContext,
  body: SyncBody,
  writer: DurableWriter = syncWriter(ctx),
): Promise<SyncResult> {
  if (body.sessions.length > SYNC_LIMITS.sessions)
    throw tooLarge(`${body.sessions.length} sessions is more than one sync takes`, SYNC_LIMITS.sessions, 'sessions');
  const rawBlobs = body.blobs ?? [];
  if (rawBlobs.length > SYNC_LIMITS.blobs)
    throw tooLarge(`${rawBlobs.length} blobs is more than one sync takes`, SYNC_LIMITS.blobs, 'blobs');

  const blobs: CheckedBlob[] = [];
  const rejectedBlobs: SyncResult['rejectedBlobs'] = [];
  rawBlobs.forEach((value, index) => {
    const checked = checkBlob(value);
    if (checked.ok) blobs.push(checked.blob);
    else rejectedBlobs.push({ index, sha256: checked.sha256, reason: checked.reason });
  });

  const accepted: AgentSessionV1[] = [];
  const rejected: SyncResult['rejected'] = [];
  let actor: SessionActor | null = null;
  try {
    body.sessions.forEach((value, index) => {
      const checked = checkSession(value);
      if (checked.ok) {
        accepted.push(checked.session);
      } else {
        const id =
          typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string'
            ? (value as { id: string }).id
            : null;
        rejected.push({ index, id, reason: checked.reason });
      }
    });

    // Bytes first (each put is durable on return), then the rows that make them visible, in one transaction
    // with the sessions: a crash in between leaves at most an unreferenced file, never a dangling row.
    for (const blob of blobs) await ctx.gateway.blobs.put(blob.sha256, blob.bytes);
    const by = await actorOfCaller(ctx);
    actor = by;
    const now = ctx.clock.now();
    const prepared = prepareSessions(accepted);
    // Concurrent syncs share one commit on SQLite; each is answered after it, so a 2xx is still durable.
    await writer.commit(async (trx) => {
      await store.recordBlobs(
        trx,
        blobs.map((b) => ({
          app_id: ctx.appId,
          sha256: b.sha256,
          media_type: b.mediaType,
          bytes: b.bytes.length,
          created_at: now,
        })),
      );
      await storeSessions(ctx, trx, accepted, by, prepared);
    });
  } finally {
    writer.leave();
  }
  // PostgreSQL: a PR whose commits were read while this sync ran is linked now (prs/commit-links.ts).
  await linkCommitsAfter(ctx.db, ctx.appId, accepted.flatMap(commitsOfDocument));

  if (rejected.length > 0 && actor) await announceRejections(ctx, actor, rejected);

  // The living comment of every pull request these sessions link to (named, or worked on its branch).
  const prJobs =
    accepted.length > 0 &&
    ((await prCommentModeOf(ctx.db, ctx.orgId, ctx.appId)) === 'on' ||
      (await prCheckModeOf(ctx.db, ctx.orgId, ctx.appId)) === 'on');
  if (prJobs)
    await schedulePrComments(
      ctx,
      ctx.appId,
      await pullRequestsOfSessions(
        ctx,
        accepted.map((s) => s.id),
      ),
    );

  return {
    accepted: accepted.map((s) => s.id),
    rejected,
    blobsStored: new Set(blobs.map((b) => b.sha256)).size,
    rejectedBlobs,
    tenantTier: ctx.principal.plan ?? 'free',
  };
}

/**
 * What the CLI gave up on by itself (a session too large for the gateway even alone, which the gateway never
 * saw): announced as `session.failed_sync` like a refusal here, once per sender, session and reason.
 */
export async function reportSyncFailures(
  ctx: FactoryContext,
  failures: readonly { sessionId: string; reason: string }[],
): Promise<number> {
  const actor = await actorOfCaller(ctx);
  await announceRejections(
    ctx,
    actor,
    failures.map((f, index) => ({ index, id: f.sessionId, reason: f.reason })),
  );
  return failures.length;
}

/**
 * session.failed_sync: each session refused here is refused again however often the CLI sends it (the document
 * fails validation), so it is announced once per sender, session id and reason, whichever replica answers.
 */
async function announceRejections(
  ctx: FactoryContext,
  actor: SessionActor,
  rejected: SyncResult['rejected'],
): Promise<void> {
  const now = ctx.clock.now();
  for (const r of rejected) {
    await emitEvent(
      ctx.db,
      { orgId: ctx.orgId, appId: ctx.appId },
      'session.failed_sync',
      JSON.stringify([actor.actorId, r.id, r.reason]),
      {
        sessionId: r.id,
        reason: r.reason,
        actorId: actor.actorId,
        actorName: actor.actorName,
        rejectedAt: new Date(now).toISOString(),
      },
      now,
    );
  }
}

export async function getBlob(ctx: FactoryContext, sha256: string): Promise<{ mediaType: string; bytes: Buffer }> {
  const row = await store.findBlob(ctx.db, ctx.appId, sha256);
  if (!row) throw apiError('blob_not_found', 'No such blob in this factory.');
  const bytes = await ctx.gateway.blobs.get(sha256);
  if (!bytes) throw apiError('blob_not_found', 'No such blob in this factory.');
  return { mediaType: row.media_type, bytes };
}

/** The factory lets go of these images (no session of it names them any more; issue 42). */
export function forgetImages(db: Db, appId: string, shas: readonly string[]): Promise<void> {
  return store.forgetBlobs(db, appId, shas);
}

/** Of these blobs, the ones some factory still holds as a session image. */
export function imagesHeldAnywhere(db: Db, shas: readonly string[]): Promise<Set<string>> {
  return store.blobsHeldAnywhere(db, shas);
}
