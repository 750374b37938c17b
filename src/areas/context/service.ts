// The `.outerlayer/` context tree history: sync a whole tree at a commit (file bytes content-addressed in
// the blob store, so an unchanged file is stored once), list what each synced commit changed, read a tree
// or a file at a commit, and tell sessions whether their commit is a synced context commit (API.md §5).
import crypto from 'node:crypto';
import { isUniqueViolation } from '../../db/errors.js';
import type { FactoryContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import type {
  ChangesQuery,
  ContextChange,
  ContextCommit,
  ContextCommitSummary,
  ContextSource,
  ContextSyncResult as SyncResult,
  SyncInput,
} from './schema.js';
import * as store from './store.js';

export type ContextVerification = 'verified' | 'unverified' | 'absent';

export const MAX_CONTEXT_FILES = 2000;
export const MAX_CONTEXT_FILE_BYTES = 2 * 1024 * 1024;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function bodyError(path: string, message: string) {
  return apiError('invalid_request_body', `${path} ${message}`, { details: [{ path, message }] });
}

/** A tree path: relative, '/'-separated, no empty, '.' or '..' segments (it names a file in the repository). */
export function isSafePath(path: string): boolean {
  if (path.length === 0 || path.length > 1024 || path.startsWith('/') || path.includes('\\') || path.includes('\0'))
    return false;
  return path.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

/**
 * The longest path a sync stores, in UTF-8 bytes. A path is a key of `context_files` and `context_changes`
 * ((commit_id, path)), and PostgreSQL's btree refuses an entry over 2,704 bytes: 1,024 characters of three bytes
 * each answered 500 there. 2,048 bytes keep every ASCII path of 1,024 characters.
 */
export const MAX_CONTEXT_PATH_BYTES = 2048;

function sha256(bytes: Buffer | string): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

interface DecodedFile {
  path: string;
  bytes: Buffer;
  sha256: string;
}

function decodeFiles(files: SyncInput['files']): DecodedFile[] {
  if (files.length > MAX_CONTEXT_FILES) throw bodyError('files', `must hold at most ${MAX_CONTEXT_FILES} files`);
  const seen = new Set<string>();
  return files.map((f, i) => {
    if (!isSafePath(f.path))
      throw bodyError(`files.${i}.path`, 'must be a relative path without empty, "." or ".." segments');
    if (Buffer.byteLength(f.path, 'utf8') > MAX_CONTEXT_PATH_BYTES)
      throw bodyError(`files.${i}.path`, `must be at most ${MAX_CONTEXT_PATH_BYTES} bytes of UTF-8`);
    if (seen.has(f.path)) throw bodyError(`files.${i}.path`, 'is listed twice');
    seen.add(f.path);
    if (!BASE64.test(f.content)) throw bodyError(`files.${i}.content`, 'must be base64');
    const bytes = Buffer.from(f.content, 'base64');
    if (bytes.length > MAX_CONTEXT_FILE_BYTES)
      throw bodyError(`files.${i}.content`, `must decode to at most ${MAX_CONTEXT_FILE_BYTES} bytes`);
    return { path: f.path, bytes, sha256: sha256(bytes) };
  });
}

function treeDigest(files: readonly { path: string; sha256: string }[]): string {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return sha256(sorted.map((f) => `${f.path}\0${f.sha256}\n`).join(''));
}

function diff(
  previous: readonly store.FileRow[],
  current: readonly DecodedFile[],
): Omit<store.ContextChangesTable, 'commit_id' | 'app_id'>[] {
  const before = new Map(previous.map((f) => [f.path, f.sha256]));
  const out: Omit<store.ContextChangesTable, 'commit_id' | 'app_id'>[] = [];
  for (const f of current) {
    const old = before.get(f.path);
    if (old === undefined) out.push({ path: f.path, change: 'added', sha256: f.sha256, previous_sha256: null });
    else if (old !== f.sha256) out.push({ path: f.path, change: 'modified', sha256: f.sha256, previous_sha256: old });
    before.delete(f.path);
  }
  for (const [path, old] of before) out.push({ path, change: 'removed', sha256: null, previous_sha256: old });
  return out;
}

function commitSummary(row: store.CommitRow): ContextCommitSummary {
  return {
    commitSha: row.commit_sha,
    branch: row.branch,
    syncedAt: new Date(row.synced_at).toISOString(),
    previousCommitSha: row.previous_commit_sha,
    fileCount: row.file_count,
    totalBytes: row.total_bytes,
  };
}

function syncResult(
  row: store.CommitRow,
  created: boolean,
  newBlobs: number,
  changes: { change: string }[],
): SyncResult {
  const count = (kind: string) => changes.filter((c) => c.change === kind).length;
  return {
    ...commitSummary(row),
    created,
    newBlobs,
    changes: { added: count('added'), modified: count('modified'), removed: count('removed') },
  };
}

async function alreadySynced(ctx: FactoryContext, existing: store.CommitRow, tree: string): Promise<SyncResult> {
  if (existing.tree_sha256 !== tree) {
    throw apiError('conflict', `Commit ${existing.commit_sha} was already synced with a different .outerlayer/ tree.`);
  }
  const changes = await store.changesOf(ctx.db, ctx.appId, [existing.id]);
  return syncResult(existing, false, 0, changes);
}

export async function syncContext(ctx: FactoryContext, input: SyncInput): Promise<SyncResult> {
  const commitSha = input.commitSha.toLowerCase();
  const files = decodeFiles(input.files);
  const tree = treeDigest(files);

  const existing = await store.findCommit(ctx.db, ctx.appId, commitSha);
  if (existing) return alreadySynced(ctx, existing, tree);

  // Bytes first: a row never points at a blob that is not durable yet. Identical bytes are stored once.
  let newBlobs = 0;
  const unique = new Map(files.map((f) => [f.sha256, f.bytes]));
  for (const [digest, bytes] of unique) {
    if (await ctx.gateway.blobs.has(digest)) continue;
    await ctx.gateway.blobs.put(digest, bytes);
    newBlobs++;
  }

  // The next seq is taken optimistically; a concurrent sync of the same factory makes the insert fail on
  // (app_id, seq) and this one re-reads the history and tries again.
  for (let attempt = 0; attempt < 8; attempt++) {
    const previous = await store.latestCommit(ctx.db, ctx.appId);
    const previousFiles = previous ? await store.filesOf(ctx.db, ctx.appId, previous.id) : [];
    const id = crypto.randomUUID();
    const changes = diff(previousFiles, files);
    const commit: store.ContextCommitsTable = {
      id,
      org_id: ctx.orgId,
      app_id: ctx.appId,
      seq: (previous?.seq ?? 0) + 1,
      commit_sha: commitSha,
      branch: input.branch ?? null,
      tree_sha256: tree,
      file_count: files.length,
      total_bytes: files.reduce((n, f) => n + f.bytes.length, 0),
      previous_commit_sha: previous?.commit_sha ?? null,
      synced_at: ctx.clock.now(),
      synced_by: ctx.principal.credentialId,
    };
    try {
      await store.insertCommit(ctx.db, {
        commit,
        files: files.map((f) => ({
          commit_id: id,
          app_id: ctx.appId,
          path: f.path,
          sha256: f.sha256,
          bytes: f.bytes.length,
        })),
        changes: changes.map((c) => ({ ...c, commit_id: id, app_id: ctx.appId })),
      });
      return syncResult(commit, true, newBlobs, changes);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const raced = await store.findCommit(ctx.db, ctx.appId, commitSha);
      if (raced) return alreadySynced(ctx, raced, tree);
    }
  }
  throw apiError('store_unavailable', 'Too many concurrent context syncs; retry.', {}, { 'Retry-After': '1' });
}

export async function listChanges(
  ctx: FactoryContext,
  query: ChangesQuery,
): Promise<{ data: ContextCommit[]; total: number }> {
  const [total, commits] = await Promise.all([
    store.countCommits(ctx.db, ctx.appId, query.branch),
    store.pageOfCommits(ctx.db, ctx.appId, query.branch, query.limit, query.offset),
  ]);
  const changes = await store.changesOf(
    ctx.db,
    ctx.appId,
    commits.map((c) => c.id),
  );
  const byCommit = new Map<string, ContextChange[]>();
  for (const c of changes) {
    const list = byCommit.get(c.commit_id) ?? [];
    if (list.length === 0) byCommit.set(c.commit_id, list);
    list.push({ path: c.path, change: c.change, sha256: c.sha256, previousSha256: c.previous_sha256 });
  }
  return {
    total,
    data: commits.map((c) => ({ ...commitSummary(c), changes: byCommit.get(c.id) ?? [] })),
  };
}

export async function readSource(
  ctx: FactoryContext,
  commitSha: string | undefined,
  path: string | undefined,
): Promise<ContextSource> {
  const commit =
    commitSha === undefined
      ? await store.latestCommit(ctx.db, ctx.appId)
      : await store.findCommit(ctx.db, ctx.appId, commitSha.toLowerCase());
  if (!commit) {
    throw apiError(
      'context_not_found',
      commitSha === undefined
        ? 'No context commit has been synced to this factory.'
        : `Commit ${commitSha} has not been synced to this factory.`,
    );
  }
  const head = {
    commitSha: commit.commit_sha,
    branch: commit.branch,
    syncedAt: new Date(commit.synced_at).toISOString(),
  };
  const wanted = path?.replace(/\/+$/, '');
  if (wanted === undefined || wanted === '') {
    return {
      ...head,
      path: null,
      kind: 'tree',
      files: await store.filesOf(ctx.db, ctx.appId, commit.id),
      content: null,
    };
  }
  const file = await store.fileAt(ctx.db, ctx.appId, commit.id, wanted);
  if (file) {
    const bytes = await ctx.gateway.blobs.get(file.sha256);
    if (!bytes) throw apiError('internal_error', `The blob of ${file.path} is missing from the blob store.`);
    return { ...head, path: file.path, kind: 'file', files: [file], content: bytes.toString('base64') };
  }
  // A directory: the files under it.
  const prefix = `${wanted}/`;
  const under = (await store.filesOf(ctx.db, ctx.appId, commit.id)).filter((f) => f.path.startsWith(prefix));
  if (under.length === 0)
    throw apiError('context_not_found', `No file or directory ${wanted} at commit ${commit.commit_sha}.`);
  return { ...head, path: wanted, kind: 'tree', files: under, content: null };
}

/**
 * `contextSourceVerification` of a session (API.md §5): `verified` when its commit is a synced context
 * commit of the factory, `unverified` when a commit is known but not synced, `absent` when there is none.
 */
export async function contextVerification(ctx: FactoryContext, commitSha: string | null): Promise<ContextVerification> {
  if (!commitSha) return 'absent';
  return (await store.findCommit(ctx.db, ctx.appId, commitSha.toLowerCase())) ? 'verified' : 'unverified';
}

/** The same for many commits in one query (a session list page): commit sha → verification. */
export async function contextVerifications(
  ctx: FactoryContext,
  commitShas: readonly (string | null)[],
): Promise<Map<string | null, ContextVerification>> {
  const shas = [...new Set(commitShas.filter((s): s is string => Boolean(s)).map((s) => s.toLowerCase()))];
  return verificationsOf(commitShas, await store.syncedShas(ctx.db, ctx.appId, shas));
}

/** contextVerifications from the synced commits already read (lower case): commit sha → verification. */
export function verificationsOf(
  commitShas: readonly (string | null)[],
  synced: ReadonlySet<string>,
): Map<string | null, ContextVerification> {
  const out = new Map<string | null, ContextVerification>();
  for (const sha of commitShas) {
    out.set(sha, !sha ? 'absent' : synced.has(sha.toLowerCase()) ? 'verified' : 'unverified');
  }
  return out;
}
