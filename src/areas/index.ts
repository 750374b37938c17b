// Every area the gateway serves. An area is a folder with routes.ts, service.ts and store.ts; its routes
// are registered here, and the capabilities document reports which areas are present.
import type { AreaRoutes } from '../server/context.js';
import { adminRoutes } from './admin/routes.js';
import { apiKeysRoutes } from './api-keys/routes.js';
import { healthRoutes } from './health/routes.js';
import { workItemsRoutes } from './work-items/routes.js';
import { contextRoutes } from './context/routes.js';

export interface Area {
  name: string;
  routes: AreaRoutes;
}

export const AREAS: readonly Area[] = [
  { name: 'health', routes: healthRoutes },
  { name: 'admin', routes: adminRoutes },
  { name: 'api-keys', routes: apiKeysRoutes },
  { name: 'work-items', routes: workItemsRoutes },
  { name: 'context', routes: contextRoutes },
];
