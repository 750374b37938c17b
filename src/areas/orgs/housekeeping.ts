// What housekeeping deletes of the orgs area: invitations a week after they ended (used, revoked or expired),
// so until then opening one still says which ("used", "expired") instead of "not valid".
import type { Sweeps } from '../../server/housekeeping.js';
import * as invitations from './invitations-store.js';

export const INVITATION_KEPT_MS = 7 * 86_400_000;

export const orgsSweeps: Sweeps = {
  invitations: (gateway, now) => invitations.deleteEndedBefore(gateway.db, now - INVITATION_KEPT_MS),
};
