// What housekeeping (src/server/housekeeping.ts) forgets of notification deliveries: their bodies after 7 days.
import type { Sweeps } from '../../server/housekeeping.js';
import { KEEP_BODIES_MS } from './service.js';
import * as store from './store.js';

export const notificationsSweeps: Sweeps = {
  notificationBodies: (gateway, now) => store.dropOldBodies(gateway.db, now - KEEP_BODIES_MS),
};
