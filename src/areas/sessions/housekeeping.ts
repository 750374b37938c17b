// What housekeeping writes of sessions: the list entry (list-entry.ts) of each row stored before rows had one
// (migration 0053), or whose entry a later change of its shape set back to NULL. Until then the list makes
// those rows' entries from their columns on every read.
import { inBatches, type Sweeps } from '../../server/housekeeping.js';
import * as store from './store.js';

export const sessionsSweeps: Sweeps = {
  sessionListEntries: (gateway) => inBatches((limit) => store.fillMissingListEntries(gateway.db, limit)),
};
