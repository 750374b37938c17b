// What housekeeping deletes of the orgs area: invitations a week after they ended (used, revoked or expired),
// so until then opening one still says which ("used", "expired") instead of "not valid".
import { inBatches, type Sweeps } from '../../server/housekeeping.js';
import * as invitations from './invitations-store.js';

export const INVITATION_KEPT_MS = 7 * 86_400_000;

export const orgsSweeps: Sweeps = {
  invitations: async (gateway, now) => {
    let n = 0;
    for (const column of ['expires_at', 'accepted_at', 'revoked_at'] as const)
      n += await inBatches((limit) =>
        invitations.deleteEndedBefore(gateway.db, column, now - INVITATION_KEPT_MS, limit),
      );
    return n;
  },
};
