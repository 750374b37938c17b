// What housekeeping (src/server/housekeeping.ts) deletes of the GitHub App install links.
import { inBatches, type Sweeps } from '../../server/housekeeping.js';
import * as store from './store.js';

/** A spent install state goes once expired: its signature carries its expiry, so it is refused anyway. */
export const repositoriesSweeps: Sweeps = {
  installStates: (gateway, now) => inBatches((limit) => store.deleteSpentStatesExpiredBefore(gateway.db, now, limit)),
};
