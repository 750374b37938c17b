// Work items, and the claim records other areas read (taking and ending claims is claims.ts). The rules:
// `number` is assigned per factory from 1 upward; an item is active or withdrawn; a claim is live while
// ended_at is null and expires_at > now (the gateway clock), so an expired lease frees the item without any
// background job.
import crypto from 'node:crypto';
import { isUniqueViolation } from '../../db/errors.js';
import type { FactoryContext, Gateway } from '../../server/context.js';
import { emitEvent } from '../notifications/service.js';
import { apiError } from '../../server/errors.js';
import { recordAudit } from '../../server/audit.js';
import { schedulePrComments } from '../pr-comments/outbox.js';
import type {
  ClaimWire,
  DeclarePullRequestInput,
  PatchWorkItemInput,
  UpsertWorkItemInput,
  WorkItemListEntry,
  WorkItemWire,
} from './schema.js';
import * as store from './store.js';

export const WORK_ITEM_PAGE_SIZE = 100;

/** A claim as other areas see it. Instants are epoch milliseconds. */
export interface ClaimRecord {
  id: string;
  workItemId: string;
  source: string;
  /** Null for a lease recorded before claims named a branch. */
  branch: string | null;
  ttlSeconds: number;
  claimedAt: number;
  expiresAt: number;
  /** The item key (credentials.id) minted for this claim; null for an imported legacy lease without one. */
  credentialId: string | null;
  /** When the claim was released or found expired by a later claim; null while it is open. */
  endedAt: number | null;
}

/** The newest claim an item ever had, with its state at the time of the call. */
export interface LatestClaimRecord extends ClaimRecord {
  live: boolean;
  /** The lease ran out (whether or not a later claim has ended it yet). */
  expired: boolean;
  released: boolean;
}

export interface WorkItemRecord {
  id: string;
  orgId: string;
  appId: string;
  number: number;
  tracker: string;
  trackerKey: string;
  title: string;
  specRepository: string;
  specNumber: number;
  stage: string;
  section: string;
  blockClass: string;
  /** `owner/repo`, or null when the item names no repository. */
  repository: string | null;
  withdrawn: boolean;
  withdrawnAt: number | null;
  createdAt: number;
  updatedAt: number;
  /** The live claim, or null. */
  claim: ClaimRecord | null;
}

export interface LinkedPullRequest {
  repository: string;
  number: number;
  url: string;
  linkedAt: number;
}

// ---- wire shapes ----

// The wire shapes are the routes' schemas (./schema.ts).
export type { ClaimWire, WorkItemListEntry, WorkItemWire };

export const iso = (ms: number) => new Date(ms).toISOString();

export function claimToWire(c: ClaimRecord): ClaimWire {
  return { id: c.id, source: c.source, branch: c.branch, claimedAt: iso(c.claimedAt), expiresAt: iso(c.expiresAt) };
}

export function isStartable(item: WorkItemRecord): boolean {
  return (
    !item.withdrawn &&
    (item.stage === 'backlog' || item.stage === 'ready') &&
    item.blockClass === 'none' &&
    item.claim === null
  );
}

export function toListEntry(item: WorkItemRecord): WorkItemListEntry {
  return {
    id: item.id,
    number: item.number,
    tracker: item.tracker,
    trackerKey: item.trackerKey,
    title: item.title,
    specRepository: item.specRepository,
    specNumber: item.specNumber,
    stage: item.stage,
    section: item.section,
    blockClass: item.blockClass,
    claim: item.claim ? claimToWire(item.claim) : null,
    startable: isStartable(item),
  };
}

export function toWire(item: WorkItemRecord): WorkItemWire {
  return {
    ...toListEntry(item),
    repository: item.repository,
    withdrawn: item.withdrawn,
    withdrawnAt: item.withdrawnAt === null ? null : iso(item.withdrawnAt),
    createdAt: iso(item.createdAt),
    updatedAt: iso(item.updatedAt),
  };
}

// ---- records from rows ----

export function claimRecord(row: store.ClaimRow): ClaimRecord {
  return {
    id: row.id,
    workItemId: row.work_item_id,
    source: row.source,
    branch: row.branch,
    ttlSeconds: Number(row.ttl_seconds),
    claimedAt: Number(row.claimed_at),
    expiresAt: Number(row.expires_at),
    credentialId: row.credential_id,
    endedAt: row.ended_at === null ? null : Number(row.ended_at),
  };
}

export function isLive(row: store.ClaimRow, now: number): boolean {
  return row.ended_at === null && Number(row.expires_at) > now;
}

function itemRecord(row: store.WorkItemRow, openClaim: store.ClaimRow | null | undefined, now: number): WorkItemRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    appId: row.app_id,
    number: Number(row.number),
    tracker: row.tracker,
    trackerKey: row.tracker_key,
    title: row.title,
    specRepository: row.spec_repository,
    specNumber: Number(row.spec_number),
    stage: row.stage,
    section: row.section,
    blockClass: row.block_class,
    repository: row.repository,
    withdrawn: row.withdrawn_at !== null,
    withdrawnAt: row.withdrawn_at === null ? null : Number(row.withdrawn_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    claim: openClaim && isLive(openClaim, now) ? claimRecord(openClaim) : null,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findItemRow(ctx: FactoryContext, idOrNumber: string): Promise<store.WorkItemRow> {
  let row: store.WorkItemRow | undefined;
  if (/^[1-9]\d{0,14}$/.test(idOrNumber)) row = await store.findItemByNumber(ctx.db, ctx.appId, Number(idOrNumber));
  else if (UUID.test(idOrNumber)) row = await store.findItemById(ctx.db, ctx.appId, idOrNumber.toLowerCase());
  if (!row) throw apiError('work_item_not_found', `No work item "${idOrNumber.slice(0, 64)}" in this factory.`);
  return row;
}

async function recordOf(ctx: FactoryContext, row: store.WorkItemRow): Promise<WorkItemRecord> {
  const open = await store.findOpenClaim(ctx.db, ctx.appId, row.id);
  return itemRecord(row, open, ctx.clock.now());
}

// ---- exported for other areas (stable) ----

/** The item named by its uuid or its number in the factory, with its live claim. 404 work_item_not_found. */
export async function getWorkItem(ctx: FactoryContext, idOrNumber: string): Promise<WorkItemRecord> {
  return recordOf(ctx, await findItemRow(ctx, idOrNumber));
}

/** The item's live claim (open and not past expiresAt at ctx.clock.now()), or null. */
export async function getLiveClaim(ctx: FactoryContext, workItemId: string): Promise<ClaimRecord | null> {
  const open = await store.findOpenClaim(ctx.db, ctx.appId, workItemId);
  return open && isLive(open, ctx.clock.now()) ? claimRecord(open) : null;
}

/** The newest claim the item ever had (live, expired or released), or null when it was never claimed. */
export async function getLatestClaim(ctx: FactoryContext, workItemId: string): Promise<LatestClaimRecord | null> {
  const row = await store.findLatestClaim(ctx.db, ctx.appId, workItemId);
  if (!row) return null;
  const now = ctx.clock.now();
  const released = row.end_reason === 'released';
  return { ...claimRecord(row), live: isLive(row, now), expired: !released && Number(row.expires_at) <= now, released };
}

/** The claim an item key was minted for (any state), or null. */
export async function getClaimForItemKey(ctx: FactoryContext, credentialId: string): Promise<ClaimRecord | null> {
  const row = await store.findClaimByCredential(ctx.db, ctx.appId, credentialId);
  return row ? claimRecord(row) : null;
}

/** Declare a pull request onto the item (idempotent; a later call updates the url). 404 for another factory's item. */
export async function linkPullRequest(
  ctx: FactoryContext,
  workItemId: string,
  pr: { repository: string; number: number; url: string },
): Promise<void> {
  const item = await store.findItemById(ctx.db, ctx.appId, workItemId);
  if (!item) throw apiError('work_item_not_found', 'No such work item in this factory.');
  await store.upsertPullRequest(ctx.db, {
    app_id: ctx.appId,
    work_item_id: item.id,
    repository: pr.repository,
    number: pr.number,
    url: pr.url,
    linked_at: ctx.clock.now(),
  });
  // The item's criteria and findings now show on the pull request's comment.
  await schedulePrComments(ctx, ctx.appId, [{ repository: pr.repository, number: pr.number }]);
}

/** Pull requests declared onto the item, oldest link first. */
export async function listLinkedPullRequests(ctx: FactoryContext, workItemId: string): Promise<LinkedPullRequest[]> {
  const rows = await store.listPullRequests(ctx.db, ctx.appId, workItemId);
  return rows.map((r) => ({
    repository: r.repository,
    number: Number(r.number),
    url: r.url,
    linkedAt: Number(r.linked_at),
  }));
}

/** The items a pull request is declared onto (for evidence that hangs off items: criteria, findings). */
export async function workItemsOfPullRequest(
  ctx: FactoryContext,
  repository: string,
  number: number,
): Promise<Array<{ id: string; number: number; title: string }>> {
  const rows = await store.itemsLinkedToPullRequest(ctx.db, ctx.appId, repository, number);
  return rows.map((r) => ({ id: r.id, number: Number(r.number), title: r.title }));
}

// ---- work items ----

const NUMBER_ATTEMPTS = 100;

/**
 * Creates the item, or updates the one with the same tracker + trackerKey (fields left out keep their
 * value). Re-stating a withdrawn item makes it active again: the source says it is live once more.
 */
export async function upsertWorkItem(
  ctx: FactoryContext,
  input: UpsertWorkItemInput,
): Promise<{ item: WorkItemRecord; created: boolean }> {
  for (let attempt = 0; attempt < NUMBER_ATTEMPTS; attempt++) {
    const now = ctx.clock.now();
    const existing = await store.findItemByTrackerKey(ctx.db, ctx.appId, input.tracker, input.trackerKey);
    if (existing) {
      const changes: store.ItemChanges = { title: input.title };
      if (input.specRepository !== undefined) changes.spec_repository = input.specRepository;
      if (input.specNumber !== undefined) changes.spec_number = input.specNumber;
      if (input.stage !== undefined) changes.stage = input.stage;
      if (input.section !== undefined) changes.section = input.section;
      if (input.blockClass !== undefined) changes.block_class = input.blockClass;
      if (input.repository !== undefined) changes.repository = input.repository;
      const restoring = existing.withdrawn_at !== null;
      if (restoring) changes.withdrawn_at = null;
      await store.updateItem(ctx.db, ctx.appId, existing.id, changes, now);
      if (restoring) await audit(ctx, 'work_item.restored', existing);
      return { item: await recordOf(ctx, { ...existing, ...changes, updated_at: now }), created: false };
    }
    const row: store.WorkItemRow = {
      id: crypto.randomUUID(),
      org_id: ctx.orgId,
      app_id: ctx.appId,
      number: 0,
      tracker: input.tracker,
      tracker_key: input.trackerKey,
      title: input.title,
      spec_repository: input.specRepository ?? input.repository ?? '',
      spec_number: input.specNumber ?? 0,
      stage: input.stage ?? 'backlog',
      section: input.section ?? '',
      block_class: input.blockClass ?? 'none',
      repository: input.repository ?? null,
      withdrawn_at: null,
      created_at: now,
      updated_at: now,
    };
    try {
      // Number and row in one transaction: a failed insert (the same tracker key created meanwhile) gives
      // the number back, so numbers stay gapless.
      row.number = await ctx.db.transaction().execute(async (trx) => {
        const number = await store.takeNextNumber(trx, ctx.appId);
        await store.insertItem(trx, { ...row, number });
        return number;
      });
      return { item: itemRecord(row, null, now), created: true };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // The same tracker key was created meanwhile (look again and update it), or the counter lags behind
      // the items (move it past them and take the next number).
      await store.bumpCounterTo(ctx.db, ctx.appId, await store.highestNumber(ctx.db, ctx.appId));
    }
  }
  throw apiError('store_unavailable', 'Could not assign a work item number; retry.', {}, { 'Retry-After': '1' });
}

export interface ListPage {
  items: WorkItemListEntry[];
  cursor: string | null;
}

function encodeCursor(afterNumber: number): string {
  return Buffer.from(JSON.stringify({ n: afterNumber })).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const bad = () =>
    apiError('invalid_cursor', 'The cursor is malformed; send pagination.cursor of the previous page unchanged.');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const n = (parsed as { n?: unknown } | null)?.n;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1 || Object.keys(parsed as object).length !== 1)
    throw bad();
  return n;
}

/** Live (not withdrawn) items by number, 100 a page; with `withdrawn`, the withdrawn items instead. */
export async function listWorkItems(
  ctx: FactoryContext,
  cursor: string | undefined,
  withdrawn = false,
): Promise<ListPage> {
  const after = cursor === undefined ? 0 : decodeCursor(cursor);
  const rows = await store.listLiveItems(ctx.db, ctx.appId, after, WORK_ITEM_PAGE_SIZE + 1, withdrawn);
  const now = ctx.clock.now();
  const page = rows.slice(0, WORK_ITEM_PAGE_SIZE);
  const last = page[page.length - 1];
  return {
    items: page.map((r) => toListEntry(itemRecord(r.item, r.claim, now))),
    cursor: rows.length > WORK_ITEM_PAGE_SIZE && last ? encodeCursor(Number(last.item.number)) : null,
  };
}

export async function patchWorkItem(
  ctx: FactoryContext,
  idOrNumber: string,
  input: PatchWorkItemInput,
): Promise<WorkItemRecord> {
  const row = await findItemRow(ctx, idOrNumber);
  if (row.withdrawn_at !== null)
    throw apiError(
      'work_item_withdrawn',
      'The work item is withdrawn; re-state it with POST /v1/work-items to change it.',
    );
  const changes: store.ItemChanges = {};
  if (input.stage !== undefined) changes.stage = input.stage;
  if (input.section !== undefined) changes.section = input.section;
  if (input.blockClass !== undefined) changes.block_class = input.blockClass;
  if (input.title !== undefined) changes.title = input.title;
  if (input.repository !== undefined) changes.repository = input.repository;
  const now = ctx.clock.now();
  if (Object.keys(changes).length > 0) await store.updateItem(ctx.db, ctx.appId, row.id, changes, now);
  return recordOf(ctx, { ...row, ...changes, updated_at: Object.keys(changes).length > 0 ? now : row.updated_at });
}

/**
 * Withdraws the item (idempotent). Its claim, if any, stays as it is: its key still reaches the item, and gets 409
 * work_item_withdrawn.
 */
export async function withdrawWorkItem(ctx: FactoryContext, idOrNumber: string): Promise<WorkItemRecord> {
  const row = await findItemRow(ctx, idOrNumber);
  const now = ctx.clock.now();
  if (await store.withdrawItem(ctx.db, ctx.appId, row.id, now)) {
    await audit(ctx, 'work_item.withdrawn', row);
    return recordOf(ctx, { ...row, withdrawn_at: now, updated_at: now });
  }
  return recordOf(ctx, (await store.findItemById(ctx.db, ctx.appId, row.id)) ?? row);
}

export async function audit(
  ctx: FactoryContext,
  actionType: string,
  row: store.WorkItemRow,
  details: Record<string, unknown> = {},
): Promise<void> {
  await recordAudit(ctx.db, ctx.clock, {
    orgId: ctx.orgId,
    actionType,
    actor: ctx.principal,
    targetType: 'work_item',
    targetId: row.id,
    targetIdentifier: `#${Number(row.number)} ${row.tracker}:${row.tracker_key}`,
    details: { appId: ctx.appId, ...details },
  });
}

// ---- pull requests declared over the API ----

export async function declarePullRequest(
  ctx: FactoryContext,
  idOrNumber: string,
  pr: DeclarePullRequestInput,
): Promise<LinkedPullRequest> {
  const item = await findItemRow(ctx, idOrNumber);
  if (item.withdrawn_at !== null) throw apiError('work_item_withdrawn', 'The work item is withdrawn.');
  const url = pr.url ?? `https://github.com/${pr.repository}/pull/${pr.number}`;
  await linkPullRequest(ctx, item.id, { repository: pr.repository, number: pr.number, url });
  const linked = (await listLinkedPullRequests(ctx, item.id)).find(
    (p) => p.repository === pr.repository && p.number === pr.number,
  );
  return linked ?? { repository: pr.repository, number: pr.number, url, linkedAt: ctx.clock.now() };
}

export async function listPullRequestsOf(ctx: FactoryContext, idOrNumber: string): Promise<LinkedPullRequest[]> {
  const item = await findItemRow(ctx, idOrNumber);
  return listLinkedPullRequests(ctx, item.id);
}

/** A lease that ran out this long before the sweep first sees it is not announced (e.g. old claims at upgrade). */
export const EXPIRY_LOOKBACK_MS = 24 * 3600_000;
const SWEEP_BATCH = 200;

/**
 * work_item.claim_expired: each claim whose lease ran out without a release is announced once. The event is
 * named by the claim and queued before the claim is marked, so a crash in between or a second replica
 * sweeping at once queues nothing twice. Returns how many claims were announced.
 */
export async function announceExpiredClaims(gateway: Gateway, now: number): Promise<number> {
  const claims = await store.unannouncedExpiredClaims(gateway.db, now, now - EXPIRY_LOOKBACK_MS, SWEEP_BATCH);
  for (const c of claims) {
    await emitEvent(
      gateway.db,
      { orgId: c.org_id, appId: c.app_id },
      'work_item.claim_expired',
      c.id,
      {
        workItem: { id: c.item_id, number: Number(c.item_number), title: c.item_title },
        claim: {
          id: c.id,
          source: c.source,
          branch: c.branch,
          claimedAt: iso(Number(c.claimed_at)),
          expiresAt: iso(Number(c.expires_at)),
        },
        url: `${gateway.config.publicUrl}/f/${c.app_id}/work/${c.item_id}`,
      },
      now,
    );
    await store.markExpiryNoticed(gateway.db, c.app_id, c.id, now);
  }
  return claims.length;
}
