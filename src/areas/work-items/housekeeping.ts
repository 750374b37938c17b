// What housekeeping deletes of claims: the item key each claim minted, a week after the claim ended (its key is
// revoked then; an item key has no expiry of its own). The claim rows stay: they are the work item's history
// (GET /v1/work-items/{id}/claims), and nothing in them is a secret.
import { deleteEndedBefore } from '../../server/auth/store.js';
import { inBatches, type Sweeps } from '../../server/housekeeping.js';

export const CLAIM_KEY_KEPT_MS = 7 * 86_400_000;

export const workItemsSweeps: Sweeps = {
  claimKeys: (gateway, now) =>
    inBatches((limit) => deleteEndedBefore(gateway.db, 'item_key', now - CLAIM_KEY_KEPT_MS, limit)),
};
