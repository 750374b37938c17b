// Every area the gateway serves. An area is a folder with routes.ts, service.ts and store.ts; its routes
// are registered here, and the capabilities document reports which areas are present.
import type { AreaRoutes } from '../server/context.js';
import type { Sweeps } from '../server/housekeeping.js';
import { dashboardSweeps } from './dashboard/housekeeping.js';
import { oauthSweeps } from './oauth/housekeeping.js';
import { repositoriesSweeps } from './repositories/housekeeping.js';
import { adminRoutes } from './admin/routes.js';
import { apiKeysRoutes } from './api-keys/routes.js';
import { accountRoutes } from './account/routes.js';
import { appsRoutes } from './apps/routes.js';
import { orgsRoutes } from './orgs/routes.js';
import { healthRoutes } from './health/routes.js';
import { workItemsRoutes } from './work-items/routes.js';
import { criteriaRoutes } from './criteria/routes.js';
import { findingsRoutes } from './findings/routes.js';
import { hostsRoutes } from './hosts/routes.js';
import { capabilitiesRoutes } from './capabilities/routes.js';
import { pricingRoutes } from './pricing/routes.js';
import { oauthRoutes } from './oauth/routes.js';
import { contextRoutes } from './context/routes.js';
import { webhooksRoutes } from './webhooks/routes.js';
import { prsRoutes } from './prs/routes.js';
import { metricsRoutes } from './metrics/routes.js';
import { artifactsRoutes } from './artifacts/routes.js';
import { resultsRoutes } from './results/routes.js';
import { repositoriesRoutes } from './repositories/routes.js';
import { workItemPullRequestRoutes } from './work-item-pr/routes.js';
import { agentsRoutes } from './agents/routes.js';
import { sessionsRoutes } from './sessions/routes.js';
import { mcpRoutes } from './mcp/routes.js';
import { dashboardRoutes } from './dashboard/routes.js';
import { verdictRoutes } from './verdict/routes.js';

export interface Area {
  name: string;
  routes: AreaRoutes;
  /** What the housekeeping loop deletes of this area's rows once they are past keeping. */
  sweeps?: Sweeps;
}

export const AREAS: readonly Area[] = [
  { name: 'health', routes: healthRoutes },
  { name: 'capabilities', routes: capabilitiesRoutes },
  { name: 'pricing', routes: pricingRoutes },
  { name: 'oauth', routes: oauthRoutes, sweeps: oauthSweeps },
  { name: 'admin', routes: adminRoutes },
  { name: 'api-keys', routes: apiKeysRoutes },
  { name: 'work-items', routes: workItemsRoutes },
  { name: 'criteria', routes: criteriaRoutes },
  { name: 'findings', routes: findingsRoutes },
  { name: 'hosts', routes: hostsRoutes },
  { name: 'apps', routes: appsRoutes },
  { name: 'account', routes: accountRoutes },
  { name: 'orgs', routes: orgsRoutes },
  { name: 'context', routes: contextRoutes },
  { name: 'webhooks', routes: webhooksRoutes },
  { name: 'prs', routes: prsRoutes },
  { name: 'verdict', routes: verdictRoutes },
  { name: 'metrics', routes: metricsRoutes },
  { name: 'artifacts', routes: artifactsRoutes },
  { name: 'results', routes: resultsRoutes },
  { name: 'repositories', routes: repositoriesRoutes, sweeps: repositoriesSweeps },
  { name: 'work-item-pr', routes: workItemPullRequestRoutes },
  { name: 'agents', routes: agentsRoutes },
  { name: 'sessions', routes: sessionsRoutes },
  { name: 'mcp', routes: mcpRoutes },
  { name: 'dashboard', routes: dashboardRoutes, sweeps: dashboardSweeps },
];
