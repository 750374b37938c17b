// What housekeeping deletes of sign-in: identity sign-in flows a day past their 10 minutes (used or not; a
// replayed callback is refused the same way before and after), GitHub user tokens once expired, and login tokens
// (one is minted per sign-in) a week after they expired or were revoked (refused with the same 401 before and
// after; the week keeps when).
import { deleteEndedBefore } from '../../server/auth/store.js';
import { inBatches, type Sweeps } from '../../server/housekeeping.js';
import * as store from './store.js';

export const SIGN_IN_FLOW_KEPT_MS = 86_400_000;
export const LOGIN_TOKEN_KEPT_MS = 7 * 86_400_000;

export const signInSweeps: Sweeps = {
  // The identity provider's flows and the CLI's loopback and device codes: the same 10 minutes, the same day.
  signInFlows: async (gateway, now) => {
    let n = 0;
    for (const table of ['sign_in_flows', 'cli_login_codes', 'cli_device_codes'] as const)
      n += await inBatches((limit) =>
        store.deleteFlowsExpiredBefore(gateway.db, table, now - SIGN_IN_FLOW_KEPT_MS, limit),
      );
    return n;
  },
  // A GitHub user token is of no use once expired: deleted at once, not kept for any record.
  githubUserTokens: (gateway, now) => inBatches((limit) => store.deleteGitHubUserTokensExpired(gateway.db, now, limit)),
  loginTokens: (gateway, now) =>
    inBatches((limit) => deleteEndedBefore(gateway.db, 'login_token', now - LOGIN_TOKEN_KEPT_MS, limit)),
};
