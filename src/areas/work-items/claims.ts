// Claims of work items (leases): claim, renew, release, the legacy claim of a CLI that predates claims, and
// the claim history. At most one claim per item is open at a time (the database enforces it, see migration
// 0002); a claim is live while ended_at is null and expires_at > now (the gateway clock); a claim's item key
// authenticates only as its own item and is revoked when the claim ends.
import crypto from 'node:crypto';
import { isUniqueViolation } from '../../db/errors.js';
import { mintCredential } from '../../server/auth/mint.js';
import type { FactoryContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import {
  audit,
  claimRecord,
  claimToWire,
  findItemRow,
  getLiveClaim,
  iso,
  isLive,
  type ClaimRecord,
} from './service.js';
import {
  CLAIM_DEFAULT_TTL_SECONDS,
  CLAIM_MAX_TTL_SECONDS,
  type ClaimHistoryEntryWire,
  type ClaimInput,
} from './schema.js';
import * as store from './store.js';

function assertTtl(ctx: FactoryContext, ttl: number): void {
  const min = ctx.config.claimMinTtlSeconds;
  if (!Number.isInteger(ttl) || ttl < min || ttl > CLAIM_MAX_TTL_SECONDS) {
    throw apiError('invalid_request_body', `ttlSeconds must be an integer from ${min} to ${CLAIM_MAX_TTL_SECONDS}.`, {
      details: [{ path: 'ttlSeconds', message: `must be from ${min} to ${CLAIM_MAX_TTL_SECONDS}` }],
    });
  }
}

/** The lease a new claim holds: who, on which branch (null for a legacy claim), from when, for how long. */
interface Lease {
  source: string;
  branch: string | null;
  claimedAt: number;
  ttlSeconds: number;
}

/**
 * Opens a claim on the item: ends an expired open claim (revoking its key), inserts the new claim and mints
 * its item key, all in one transaction. The unique index on open claims decides races: every loser's insert
 * fails and answers 409 work_item_claimed (with the holder's expiresAt), on one node or many.
 */
async function openClaim(
  ctx: FactoryContext,
  item: store.WorkItemRow,
  lease: Lease,
): Promise<{ claim: ClaimRecord; itemKey: string }> {
  const now = ctx.clock.now();
  const claim: ClaimRecord = {
    id: crypto.randomUUID(),
    workItemId: item.id,
    source: lease.source,
    branch: lease.branch,
    ttlSeconds: lease.ttlSeconds,
    claimedAt: lease.claimedAt,
    expiresAt: lease.claimedAt + lease.ttlSeconds * 1000,
    credentialId: null,
    endedAt: null,
  };
  let revoked: string[] = [];
  let minted: { id: string; plaintext: string };
  try {
    minted = await ctx.db.transaction().execute(async (trx) => {
      revoked = await store.endExpiredClaim(trx, ctx.appId, item.id, now);
      await store.revokeItemKeys(trx, ctx.appId, revoked, now);
      const key = await mintCredential(trx, ctx.gateway.pepper, now, {
        kind: 'item_key',
        name: `claim ${claim.id}`,
        orgId: ctx.orgId,
        appId: ctx.appId,
        workItemId: item.id,
        createdBy: ctx.principal.userId,
      });
      await store.insertClaim(trx, {
        id: claim.id,
        org_id: ctx.orgId,
        app_id: ctx.appId,
        work_item_id: item.id,
        source: claim.source,
        branch: claim.branch,
        ttl_seconds: claim.ttlSeconds,
        claimed_at: claim.claimedAt,
        expires_at: claim.expiresAt,
        credential_id: key.id,
        ended_at: null,
        end_reason: null,
      });
      return key;
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      const holder = await getLiveClaim(ctx, item.id);
      throw apiError(
        'work_item_claimed',
        'Another live claim holds this work item.',
        holder ? { expiresAt: iso(holder.expiresAt) } : {},
      );
    }
    throw err;
  }
  if (revoked.length > 0) ctx.gateway.auth.invalidate();
  return { claim: { ...claim, credentialId: minted.id }, itemKey: minted.plaintext };
}

/** Claims the item for the caller's branch, for ttlSeconds from now. 409 work_item_withdrawn, work_item_claimed. */
export async function claimWorkItem(
  ctx: FactoryContext,
  idOrNumber: string,
  input: ClaimInput,
): Promise<{ claim: ClaimRecord; itemKey: string }> {
  const ttl = input.ttlSeconds ?? CLAIM_DEFAULT_TTL_SECONDS;
  assertTtl(ctx, ttl);
  const item = await findItemRow(ctx, idOrNumber);
  if (item.withdrawn_at !== null)
    throw apiError('work_item_withdrawn', 'The work item is withdrawn; it cannot be claimed.');
  return openClaim(ctx, item, {
    source: input.source,
    branch: input.branch,
    claimedAt: ctx.clock.now(),
    ttlSeconds: ttl,
  });
}

/** An item key reaches only its own work item. */
function assertOwnItem(ctx: FactoryContext, item: store.WorkItemRow): void {
  if (ctx.principal.kind === 'item_key' && ctx.principal.workItemId !== item.id) {
    throw apiError('forbidden', 'This item key belongs to another work item.', { required_permission: 'item_key' });
  }
}

/** Renews the claim of the calling item key by its ttl, counted from now. 410 claim_expired once the lease ran out. */
export async function renewClaim(ctx: FactoryContext, idOrNumber: string): Promise<ClaimRecord> {
  const item = await findItemRow(ctx, idOrNumber);
  assertOwnItem(ctx, item);
  if (item.withdrawn_at !== null)
    throw apiError('work_item_withdrawn', 'The work item is withdrawn; its claim cannot be renewed.');
  const row = await store.findClaimByCredential(ctx.db, ctx.appId, ctx.principal.credentialId);
  const now = ctx.clock.now();
  const expired = () => apiError('claim_expired', 'The claim has expired; claim the item again.');
  if (!row || row.work_item_id !== item.id || !isLive(row, now)) throw expired();
  const expiresAt = now + Number(row.ttl_seconds) * 1000;
  if (!(await store.extendClaim(ctx.db, ctx.appId, row.id, now, expiresAt))) throw expired();
  return { ...claimRecord(row), expiresAt };
}

/**
 * Releases the item's claim. An item key releases its own claim; a credential with work.write releases
 * whatever claim is open on the item (an operator freeing a stuck item). The claim's key is revoked.
 */
export async function releaseClaim(ctx: FactoryContext, idOrNumber: string): Promise<void> {
  const item = await findItemRow(ctx, idOrNumber);
  let row: store.ClaimRow | undefined;
  if (ctx.principal.kind === 'item_key') {
    assertOwnItem(ctx, item);
    row = await store.findClaimByCredential(ctx.db, ctx.appId, ctx.principal.credentialId);
    if (row && row.ended_at !== null) row = undefined;
  } else {
    // Item keys carry no permissions, so the route's guard cannot name work.write; other credentials need it.
    if (!ctx.principal.permissions.has('work.write')) {
      throw apiError('forbidden', 'This credential lacks the permission work.write.', {
        required_permission: 'work.write',
      });
    }
    row = await store.findOpenClaim(ctx.db, ctx.appId, item.id);
  }
  if (!row) throw apiError('claim_not_found', 'No open claim on this work item.');
  const claim = row;
  const now = ctx.clock.now();
  const reason = Number(claim.expires_at) <= now ? 'expired' : 'released';
  const ended = await ctx.db.transaction().execute(async (trx) => {
    if (!(await store.endClaim(trx, ctx.appId, claim.id, now, reason))) return false;
    await store.revokeItemKeys(trx, ctx.appId, claim.credential_id ? [claim.credential_id] : [], now);
    return true;
  });
  ctx.gateway.auth.invalidate();
  // Someone other than the holder taking a lease away is worth a trace; a holder letting go is routine.
  if (ended && ctx.principal.kind !== 'item_key') {
    await audit(ctx, 'work_item.claim_released', item, {
      claimId: claim.id,
      source: claim.source,
      branch: claim.branch,
    });
  }
}

/**
 * Records a lease as it was before claims named a branch (branch null), e.g. when importing claims from
 * an older runner's records. Not reachable over HTTP: new claims always name a branch. Returns the claim
 * and an item key so the importer can hand the key to the runner that holds the lease.
 */
export async function recordLegacyClaim(
  ctx: FactoryContext,
  workItemId: string,
  input: { source: string; claimedAt: number; ttlSeconds: number },
): Promise<{ claim: ClaimRecord; itemKey: string }> {
  const item = await findItemRow(ctx, workItemId);
  return openClaim(ctx, item, { ...input, branch: null });
}

// ---- claim history ----

/** A claim as the history reads it: `live`, `released` (let go before its lease ran out) or `expired`. */
export type ClaimState = ClaimHistoryEntryWire['state'];

function historyEntry(row: store.ClaimRow, now: number): ClaimHistoryEntryWire {
  // end_reason 'released' is only written while the lease still ran (releaseClaim records 'expired' otherwise).
  const state: ClaimState = isLive(row, now) ? 'live' : row.end_reason === 'released' ? 'released' : 'expired';
  return { ...claimToWire(claimRecord(row)), state, endedAt: row.ended_at === null ? null : iso(Number(row.ended_at)) };
}

/** Every claim the item ever had, newest first, withdrawn items too. 404 work_item_not_found. */
export async function listClaimHistory(
  ctx: FactoryContext,
  idOrNumber: string,
  page: { limit: number; offset: number },
): Promise<{ claims: ClaimHistoryEntryWire[]; total: number }> {
  const item = await findItemRow(ctx, idOrNumber);
  const [rows, total] = await Promise.all([
    store.listClaims(ctx.db, ctx.appId, item.id, page.limit, page.offset),
    store.countClaims(ctx.db, ctx.appId, item.id),
  ]);
  const now = ctx.clock.now();
  return { claims: rows.map((r) => historyEntry(r, now)), total };
}
