// Artifacts: evidence files (screenshots, recordings, reports, logs) anchored to a pull request, a work
// item and/or a session. Rules live here: verification of the bytes, kind from the media type, filename
// sanitising, idempotency on clientArtifactId, replacement, and the per-item list (API.md §5, §6, §8).
import crypto from 'node:crypto';
import { isUniqueViolation } from '../../db/errors.js';
import type { Db } from '../../db/connection.js';
import type { FactoryContext, RequestContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { ROLE_PERMISSIONS, isRole } from '../../server/permissions.js';
import { factoriesOfUser } from '../apps/service.js';
import { normalizeRepo } from '../../codehost/repository-name.js';
import { schedulePrComments, type PrRef } from '../pr-comments/outbox.js';
import { listLinkedPullRequests } from '../work-items/service.js';
import type { Artifact, ArtifactInput, ArtifactKind } from './schema.js';
import * as store from './store.js';
import { assertNotDeleted } from '../tombstones/service.js';

/** API.md §8: an artifact request is at most 12 MiB (the route's bodyLimit), its blob at most 8 MiB. */
export const ARTIFACT_REQUEST_LIMIT = 12 * 1024 * 1024;
export const ARTIFACT_BLOB_LIMIT = 8 * 1024 * 1024;
/** API.md §5: the per-item list returns at most this many (the oldest). */
export const ITEM_LIST_LIMIT = 200;

/** `owner/repo` as a pull-request anchor takes it. */
const OWNER_REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/**
 * The pull-request repository a client's normalized git remote names (`github.com/acme/api` → `acme/api`),
 * normalized as session repositories are. Throws when it names no GitHub `owner/repo`.
 */
export function repositoryOfGitRepo(gitRepo: string, field: string): string {
  const repo = normalizeRepo(gitRepo);
  if (!OWNER_REPO.test(repo)) {
    throw apiError(
      'invalid_request_body',
      `Invalid body: ${field} must name a GitHub repository (github.com/owner/repo or owner/repo) to anchor a pull ` +
        `request`,
      {
        details: [{ path: field, message: 'must name a GitHub repository' }],
      },
    );
  }
  return repo;
}

/** Resolves a work item named by id or number to its id (404 work_item_not_found when absent). */
export type WorkItemResolver = (ctx: FactoryContext, idOrNumber: string) => Promise<{ id: string }>;

/** The media type without parameters, lowercased: `Text/HTML; charset=utf-8` → `text/html`. */
export function essenceOf(mediaType: string): string {
  return (mediaType.split(';')[0] ?? '').trim().toLowerCase();
}

/**
 * API.md §5: video/* → video; image/* → screenshot; text/html, application/pdf → report; text/plain → log; else file.
 */
export function kindOf(mediaType: string): ArtifactKind {
  const essence = essenceOf(mediaType);
  if (essence.startsWith('video/')) return 'video';
  if (essence.startsWith('image/')) return 'screenshot';
  if (essence === 'text/html' || essence === 'application/pdf') return 'report';
  if (essence === 'text/plain') return 'log';
  return 'file';
}

/**
 * Media types a browser would run script from when shown in the gateway's origin (HTML, SVG, XML
 * documents). They are served as attachments under a sandboxing CSP.
 */
export function isActiveContent(mediaType: string): boolean {
  const essence = essenceOf(mediaType);
  return (
    essence === 'text/html' ||
    essence === 'application/xhtml+xml' ||
    essence === 'image/svg+xml' ||
    essence === 'text/xml' ||
    essence === 'application/xml' ||
    essence.endsWith('+xml') ||
    essence === 'text/javascript' ||
    essence === 'application/javascript'
  );
}

/**
 * The last path segment, without control characters, path separators or `..` runs, at most 255
 * characters; `artifact` when nothing is left. `../../etc/passwd` → `passwd`, `a..b.txt` → `a.b.txt`.
 */
export function sanitizeFilename(raw: string): string {
  const segments = raw.split(/[/\\]/);
  let name = segments[segments.length - 1] ?? '';
  name = name
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .replace(/\.{2,}/g, '.')
    .trim();
  if (name === '' || name === '.') return 'artifact';
  if (name.length > 255) {
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
    name = name.slice(0, 255 - ext.length) + ext;
  }
  return name;
}

function baseUrl(ctx: Pick<RequestContext, 'config'>): string {
  return ctx.config.publicUrl.replace(/\/+$/, '');
}

export function toWire(ctx: Pick<RequestContext, 'config'>, row: store.ArtifactRow): Artifact {
  const base = baseUrl(ctx);
  return {
    id: row.id,
    clientArtifactId: row.client_artifact_id,
    kind: row.kind as ArtifactKind,
    caption: row.caption,
    filename: row.filename,
    mediaType: row.media_type,
    bytes: Number(row.bytes),
    sha256: row.sha256,
    criterionId: row.criterion_id,
    prNumber: row.pr_number === null ? null : Number(row.pr_number),
    repository: row.repository,
    workItemId: row.work_item_id,
    supersedes: row.supersedes,
    session:
      row.session_id === null
        ? null
        : {
            sessionId: row.session_id,
            turnIndex: row.session_turn_index === null ? null : Number(row.session_turn_index),
          },
    ci: row.ci === null || row.ci === undefined ? null : Number(row.ci) === 1,
    gitRepo: row.git_repo ?? null,
    gitBranch: row.git_branch ?? null,
    commitSha: row.commit_sha ?? null,
    emittedAt: new Date(Number(row.emitted_at)).toISOString(),
    createdAt: new Date(Number(row.created_at)).toISOString(),
    url: `${base}/artifacts/${row.id}`,
    contentUrl: `${base}/v1/artifacts/${row.id}/content`,
  };
}

const NOT_BASE64 = /[^A-Za-z0-9+/=]/;

/** Standard padded base64 (RFC 4648 §4), checked without a backtracking regex (blobs are megabytes). */
function isBase64(data: string): boolean {
  if (data.length % 4 !== 0 || NOT_BASE64.test(data)) return false;
  const pad = data.indexOf('=');
  return pad === -1 || (pad >= data.length - 2 && /^=+$/.test(data.slice(pad)));
}

function bodyError(path: string, message: string) {
  return apiError('invalid_request_body', `Invalid body: ${path} ${message}`, { details: [{ path, message }] });
}

/** Decodes and checks the blob against the declared sha256 and byte length. */
function verifiedBytes(input: ArtifactInput, data: string): Buffer {
  if (input.bytes > ARTIFACT_BLOB_LIMIT) {
    throw apiError('payload_too_large', `An artifact blob is at most ${ARTIFACT_BLOB_LIMIT} bytes.`, {
      limit: ARTIFACT_BLOB_LIMIT,
    });
  }
  if (!isBase64(data)) throw bodyError('blob.data', 'must be standard base64 (RFC 4648 §4, padded)');
  const bytes = Buffer.from(data, 'base64');
  if (bytes.length > ARTIFACT_BLOB_LIMIT) {
    throw apiError('payload_too_large', `An artifact blob is at most ${ARTIFACT_BLOB_LIMIT} bytes.`, {
      limit: ARTIFACT_BLOB_LIMIT,
    });
  }
  const digest = crypto.createHash('sha256').update(bytes).digest('hex');
  if (bytes.length !== input.bytes || digest !== input.sha256.toLowerCase()) {
    throw apiError('blob_hash_mismatch', 'The decoded blob does not match the declared sha256 and byte length.', {
      expected: { sha256: input.sha256.toLowerCase(), bytes: input.bytes },
      actual: { sha256: digest, bytes: bytes.length },
    });
  }
  return bytes;
}

export interface CreateResult {
  artifact: Artifact;
  /** False when the clientArtifactId was already stored with the same bytes (an idempotent retry). */
  created: boolean;
}

/** Same clientArtifactId: the same bytes are a retry; other bytes are a conflict. */
function assertSameContent(row: store.ArtifactRow, sha256: string): void {
  if (row.sha256 !== sha256) {
    throw apiError(
      'artifact_content_conflict',
      `clientArtifactId "${row.client_artifact_id}" was already used for other bytes.`,
      {
        artifactId: row.id,
      },
    );
  }
}

export async function createArtifact(
  ctx: FactoryContext,
  sent: ArtifactInput,
  blobData: string,
  resolveWorkItem?: WorkItemResolver,
): Promise<CreateResult> {
  // `gitRepo` stands in for a missing `repository` of a pull-request anchor (`prNumber` with `gitRepo`).
  const input: ArtifactInput =
    sent.repository === undefined && sent.prNumber !== undefined && sent.gitRepo !== undefined
      ? { ...sent, repository: repositoryOfGitRepo(sent.gitRepo, 'artifact.gitRepo') }
      : sent;
  const hasPr = input.repository !== undefined || input.prNumber !== undefined;
  if (hasPr && (input.repository === undefined || input.prNumber === undefined)) {
    const missing = input.repository === undefined ? 'artifact.repository' : 'artifact.prNumber';
    throw bodyError(
      missing,
      'is required when the artifact is anchored to a pull request (repository and prNumber go together)',
    );
  }
  if (!hasPr && input.workItemId === undefined && input.session === undefined) {
    throw apiError(
      'nothing_to_attach',
      'An artifact needs a pull request (repository + prNumber), a workItemId or a session to attach to.',
    );
  }
  const emittedAt = Date.parse(input.emittedAt);
  if (!Number.isFinite(emittedAt)) throw bodyError('artifact.emittedAt', 'must be a date-time');

  const bytes = verifiedBytes(input, blobData);
  const sha256 = input.sha256.toLowerCase();

  // A retry of a stored artifact answers before anything is written.
  const existing = await store.findByClientId(ctx.db, ctx.appId, input.clientArtifactId);
  if (existing) {
    assertSameContent(existing, sha256);
    return { artifact: toWire(ctx, existing), created: false };
  }

  const workItemId =
    input.workItemId === undefined
      ? null
      : resolveWorkItem
        ? (await resolveWorkItem(ctx, input.workItemId)).id
        : input.workItemId;

  // Bytes first: the row that points at them is only written once they are durable.
  await ctx.gateway.blobs.put(sha256, bytes);
  const now = ctx.clock.now();
  const row: store.ArtifactRow = {
    id: crypto.randomUUID(),
    org_id: ctx.orgId,
    app_id: ctx.appId,
    client_artifact_id: input.clientArtifactId,
    kind: kindOf(input.mediaType),
    media_type: input.mediaType,
    filename: sanitizeFilename(input.filename),
    caption: input.caption,
    criterion_id: input.criterionId ?? null,
    bytes: bytes.length,
    sha256,
    repository: input.repository ?? null,
    pr_number: input.prNumber ?? null,
    work_item_id: workItemId,
    supersedes: input.supersedes ?? null,
    session_id: input.session?.sessionId ?? null,
    session_turn_index: input.session?.turnIndex ?? null,
    ci: input.ci === undefined ? null : input.ci ? 1 : 0,
    git_repo: input.gitRepo === undefined ? null : normalizeRepo(input.gitRepo) || null,
    git_branch: input.gitBranch ?? null,
    commit_sha: input.commitSha ?? null,
    emitted_at: emittedAt,
    created_at: now,
  };
  try {
    await store.insertArtifact(ctx.db, row);
  } catch (err) {
    // Two identical uploads raced: the loser answers like a retry (or a conflict, for other bytes).
    if (!isUniqueViolation(err)) throw err;
    const winner = await store.findByClientId(ctx.db, ctx.appId, input.clientArtifactId);
    if (!winner) throw err;
    assertSameContent(winner, sha256);
    return { artifact: toWire(ctx, winner), created: false };
  }
  // The living PR comment of the pull request it is anchored to, or of those declared onto its work item.
  const prs: PrRef[] =
    row.repository !== null && row.pr_number !== null ? [{ repository: row.repository, number: row.pr_number }] : [];
  if (row.work_item_id !== null) prs.push(...(await listLinkedPullRequests(ctx, row.work_item_id)));
  await schedulePrComments(ctx, ctx.appId, prs);
  return { artifact: toWire(ctx, row), created: true };
}

export interface ArtifactContent {
  artifact: store.ArtifactRow;
  bytes: Buffer;
}

/** The stored bytes of one of the factory's artifacts; another factory's artifact is simply not found. */
export async function readContent(ctx: FactoryContext, id: string): Promise<ArtifactContent> {
  const artifact = await store.findById(ctx.db, ctx.appId, id);
  if (!artifact || !(await store.factoryOwnsBlob(ctx.db, ctx.appId, artifact.sha256))) {
    await assertNotDeleted(ctx.db, ctx.appId, 'artifact', id);
    throw apiError('artifact_not_found', 'No such artifact in this factory.');
  }
  const bytes = await ctx.gateway.blobs.get(artifact.sha256);
  if (!bytes) {
    ctx.log.error({ artifactId: id, sha256: artifact.sha256 }, 'artifact blob missing from the blob store');
    throw apiError('artifact_not_found', 'The bytes of this artifact are no longer stored.');
  }
  return { artifact, bytes };
}

export async function getArtifact(ctx: FactoryContext, id: string): Promise<Artifact> {
  const artifact = await store.findById(ctx.db, ctx.appId, id);
  if (!artifact) {
    await assertNotDeleted(ctx.db, ctx.appId, 'artifact', id);
    throw apiError('artifact_not_found', 'No such artifact in this factory.');
  }
  return toWire(ctx, artifact);
}

/**
 * An artifact found by its id alone, in whichever of the caller's factories holds it (where their role may
 * read artifacts): the dashboard's artifact page opens the `url` an artifact carries, which names no factory.
 * Another org's artifact is not found, exactly like one that does not exist.
 */
export async function findArtifactOfUser(
  ctx: RequestContext,
  id: string,
): Promise<{ appId: string; artifact: Artifact }> {
  const kind = ctx.principal?.kind;
  const userId = kind === 'login_token' || kind === 'dashboard_session' ? (ctx.principal?.userId ?? null) : null;
  if (!userId) throw apiError('internal_error', 'route is missing its login-token guard');
  const readable = (await factoriesOfUser(ctx.db, userId))
    .filter((f) => isRole(f.role) && ROLE_PERMISSIONS[f.role].includes('artifacts.read'))
    .map((f) => f.id);
  const row = readable.length === 0 ? undefined : await store.findByIdInFactories(ctx.db, readable, id);
  if (!row) throw apiError('artifact_not_found', 'No artifact with this id is in any factory you belong to.');
  return { appId: row.app_id, artifact: toWire(ctx, row) };
}

/**
 * The live artifacts of a set, oldest first (rows must come oldest first). A later artifact replaces an
 * earlier one when both have the same criterionId and filename, or when it names the earlier one (by id
 * or clientArtifactId) in `supersedes` (API.md §5).
 */
export function liveArtifacts(rows: readonly store.ArtifactRow[]): store.ArtifactRow[] {
  const replaced = new Set<string>();
  const latestByCriterionFile = new Map<string, store.ArtifactRow>();
  const byRef = new Map<string, store.ArtifactRow>();
  for (const row of rows) {
    byRef.set(row.id, row);
    byRef.set(`client:${row.client_artifact_id}`, row);
  }
  for (const row of rows) {
    if (row.criterion_id !== null) {
      const key = JSON.stringify([row.criterion_id, row.filename]);
      const earlier = latestByCriterionFile.get(key);
      if (earlier) replaced.add(earlier.id);
      latestByCriterionFile.set(key, row);
    }
    if (row.supersedes !== null) {
      const target = byRef.get(row.supersedes) ?? byRef.get(`client:${row.supersedes}`);
      if (target && target.id !== row.id) replaced.add(target.id);
    }
  }
  return rows.filter((row) => !replaced.has(row.id));
}

/** The live artifacts anchored to one pull request, oldest first. */
export async function listPullRequestArtifacts(
  ctx: FactoryContext,
  repository: string,
  prNumber: number,
): Promise<Artifact[]> {
  const rows = await store.listForPullRequest(ctx.db, ctx.appId, repository, prNumber);
  return liveArtifacts(rows).map((row) => toWire(ctx, row));
}

export interface ItemArtifacts {
  data: Artifact[];
  pagination: { truncated: boolean };
}

/** The live artifacts of a work item, oldest first, at most 200 (the oldest kept). */
export async function listItemArtifacts(ctx: FactoryContext, anchors: store.ItemAnchors): Promise<ItemArtifacts> {
  const live = liveArtifacts(await store.listForWorkItem(ctx.db, ctx.appId, anchors));
  return {
    data: live.slice(0, ITEM_LIST_LIMIT).map((row) => toWire(ctx, row)),
    pagination: { truncated: live.length > ITEM_LIST_LIMIT },
  };
}

// ---- deletion (issue 42) ---------------------------------------------------------------------------------

export type StoredArtifact = store.ArtifactRow;

export function findStoredArtifact(db: Db, appId: string, id: string): Promise<StoredArtifact | undefined> {
  return store.findById(db, appId, id);
}

/** Every stored artifact of one work item (the GET's ways in), replaced versions included: its evidence. */
export function storedArtifactsOfItem(db: Db, appId: string, anchors: store.ItemAnchors): Promise<StoredArtifact[]> {
  return store.listForWorkItem(db, appId, anchors);
}

/** The factory's oldest artifacts stored before `before` (the retention sweep's batches). */
export function artifactsCreatedBefore(
  db: Db,
  appId: string,
  before: number,
  limit: number,
): Promise<StoredArtifact[]> {
  return store.createdBefore(db, appId, before, limit);
}

/**
 * Delete these artifacts in the caller's transaction, and the factory's hold on each blob no artifact of it
 * still uses. Answers the blobs the factory let go of (for the blob store's reference check).
 */
export async function deleteStoredArtifacts(db: Db, appId: string, rows: readonly StoredArtifact[]): Promise<string[]> {
  if (!rows.length) return [];
  await store.deleteByIds(
    db,
    appId,
    rows.map((r) => r.id),
  );
  const shas = [...new Set(rows.map((r) => r.sha256))];
  const stillUsed = await store.shasStillUsed(db, appId, shas);
  const released = shas.filter((sha) => !stillUsed.has(sha));
  await store.forgetBlobs(db, appId, released);
  return released;
}

/** Of these blobs, the ones some factory still holds as an artifact's bytes. */
export function artifactBlobsHeldAnywhere(db: Db, shas: readonly string[]): Promise<Set<string>> {
  return store.blobsHeldAnywhere(db, shas);
}
