// What housekeeping (src/server/housekeeping.ts) deletes of the dashboard's sign-in, and how long each kind is
// kept past its end: for as long as its row still changes an answer.
import { inBatches, type Sweeps } from '../../server/housekeeping.js';
import * as store from './store.js';

/** A sign-in link, 7 days: until then a used or expired link says so ("used", "expired"); after, "invalid". */
export const SIGN_IN_LINK_KEPT_MS = 7 * 86_400_000;
/**
 * A dashboard session (signed out, past its 7 days or idle), 7 days: its cookie is refused with the same 401
 * before and after (one 401 for every refused credential), so the week only keeps when it ended.
 */
export const DASHBOARD_SESSION_KEPT_MS = 7 * 86_400_000;

export const dashboardSweeps: Sweeps = {
  signInLinks: (gateway, now) =>
    inBatches((limit) => store.deleteLinksExpiredBefore(gateway.db, now - SIGN_IN_LINK_KEPT_MS, limit)),
  dashboardSessions: (gateway, now) =>
    inBatches((limit) =>
      store.deleteSessionsEndedBefore(
        gateway.db,
        now - DASHBOARD_SESSION_KEPT_MS,
        gateway.config.dashboardIdleHours * 3_600_000,
        limit,
      ),
    ),
};
