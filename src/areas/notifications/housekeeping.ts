// What housekeeping (src/server/housekeeping.ts) forgets of notification deliveries: their bodies after 7 days,
// and the finished deliveries themselves after 30 (the channel's delivery list shows the last month).
import { inBatches, type Sweeps } from '../../server/housekeeping.js';
import { KEEP_BODIES_MS } from './service.js';
import * as store from './store.js';

export const KEEP_DELIVERIES_MS = 30 * 86_400_000;

export const notificationsSweeps: Sweeps = {
  notificationBodies: (gateway, now) =>
    inBatches((limit) => store.dropOldBodies(gateway.db, now - KEEP_BODIES_MS, limit)),
  notificationDeliveries: (gateway, now) =>
    inBatches((limit) => store.deleteFinishedBefore(gateway.db, now - KEEP_DELIVERIES_MS, limit)),
};
