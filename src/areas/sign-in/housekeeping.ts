// What housekeeping deletes of identity sign-in: flows a day past their 10 minutes (used or not; a replayed
// callback is refused the same way before and after), and GitHub user tokens once expired.
import type { Sweeps } from '../../server/housekeeping.js';
import * as store from './store.js';

export const SIGN_IN_FLOW_KEPT_MS = 86_400_000;

export const signInSweeps: Sweeps = {
  signInFlows: (gateway, now) => store.deleteFlowsExpiredBefore(gateway.db, now - SIGN_IN_FLOW_KEPT_MS),
  // A GitHub user token is of no use once expired: deleted at once, not kept for any record.
  githubUserTokens: (gateway, now) => store.deleteGitHubUserTokensExpired(gateway.db, now),
};
