// What housekeeping (src/server/housekeeping.ts) deletes of the OAuth authorization server.
import { inBatches, type Sweeps } from '../../server/housekeeping.js';
import { REFRESH_TOKEN_TTL_MS } from './provider.js';
import * as store from './store.js';

/**
 * An authorization code is kept 30 days past its expiry (a refresh token's lifetime): until then a replayed
 * code revokes the grant's tokens (OAuth 2.1 §4.1.3), after it is refused as unknown.
 */
export const OAUTH_CODE_KEPT_MS = REFRESH_TOKEN_TTL_MS;

export const oauthSweeps: Sweeps = {
  oauthCodes: (gateway, now) =>
    inBatches((limit) => store.deleteCodesExpiredBefore(gateway.db, now - OAUTH_CODE_KEPT_MS, limit)),
};
