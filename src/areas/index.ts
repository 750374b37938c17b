// Every area the gateway serves. An area is a folder with routes.ts, service.ts and store.ts; its routes
// are registered here, and the capabilities document reports which areas are present.
import type { Area, RouteDefaults } from '../server/area.js';
import { dashboardSweeps } from './dashboard/housekeeping.js';
import { oauthSweeps } from './oauth/housekeeping.js';
import { sessionsSweeps } from './sessions/housekeeping.js';
import { repositoriesSweeps } from './repositories/housekeeping.js';
import { adminRoutes } from './admin/routes.js';
import { apiKeysRoutes } from './api-keys/routes.js';
import { ApiKey } from './api-keys/schema.js';
import { accountRoutes } from './account/routes.js';
import { MyLoginToken } from './account/schema.js';
import { appsRoutes } from './apps/routes.js';
import { App, MyFactory } from './apps/schema.js';
import { orgsRoutes } from './orgs/routes.js';
import {
  AuditEntry,
  AuditVerify,
  AutoJoin,
  Erasure,
  Invitation,
  JoinedOrg,
  Member,
  NewInvitation,
  Org,
  OrgSelf,
  User,
} from './orgs/schema.js';
import { orgsSweeps } from './orgs/housekeeping.js';
import { healthRoutes } from './health/routes.js';
import { workItemsRoutes } from './work-items/routes.js';
import { criteriaRoutes } from './criteria/routes.js';
import { findingsRoutes } from './findings/routes.js';
import { Finding } from './findings/schema.js';
import { hostsRoutes } from './hosts/routes.js';
import { Host } from './hosts/schema.js';
import { capabilitiesRoutes } from './capabilities/routes.js';
import { pricingRoutes } from './pricing/routes.js';
import { oauthRoutes } from './oauth/routes.js';
import { contextRoutes } from './context/routes.js';
import { ContextCommit, ContextSource, ContextSyncResult } from './context/schema.js';
import { webhooksRoutes } from './webhooks/routes.js';
import { prsRoutes } from './prs/routes.js';
import { PullRequestDetail, PullRequestOutcome, PullRequestSession } from './prs/schema.js';
import { metricsRoutes } from './metrics/routes.js';
import { MetricsWindow, Model, ModelShare } from './metrics/schema.js';
import { artifactsRoutes } from './artifacts/routes.js';
import { Artifact } from './artifacts/schema.js';
import { resultsRoutes } from './results/routes.js';
import { Check, EmittedResult } from './results/schema.js';
import { repositoriesRoutes } from './repositories/routes.js';
import { workItemPullRequestRoutes } from './work-item-pr/routes.js';
import { agentsRoutes } from './agents/routes.js';
import { sessionsRoutes } from './sessions/routes.js';
import { mcpRoutes } from './mcp/routes.js';
import { dashboardRoutes } from './dashboard/routes.js';
import { verdictRoutes } from './verdict/routes.js';
import { otlpRoutes } from './otlp/routes.js';
import { DashboardSession } from './dashboard/schema.js';
import { budgetsRoutes } from './budgets/routes.js';
import { Budget } from './budgets/schema.js';
import { notificationsSweeps } from './notifications/housekeeping.js';
import { notificationsRoutes } from './notifications/routes.js';
import {
  BudgetForecastEvent,
  BudgetThresholdEvent,
  ClaimExpiredEvent,
  HostOfflineEvent,
  NotificationChannel,
  NotificationDelivery,
  PrVerdictEvent,
  SessionFailedSyncEvent,
  TestEvent,
} from './notifications/schema.js';
import { signInRoutes } from './sign-in/routes.js';
import {
  CliLoginRedirect,
  CliLoginToken,
  DeviceAuthorization,
  DeviceRequest,
  SignInProvider,
} from './sign-in/schema.js';
import { signInSweeps } from './sign-in/housekeeping.js';
import { workItemsSweeps } from './work-items/housekeeping.js';
import { lifecycleRoutes } from './lifecycle/routes.js';
import { blobSweep } from './lifecycle/blob-sweep.js';
import { retentionSweep } from './lifecycle/retention.js';

export type { Area };

/** The API's version prefix: an area whose routes all live under it declares them without it. */
const V1 = '/v1';
/** Factory routes: a factory key, or a login token (or its dashboard session) naming the factory. */
const FACTORY = { guard: { credentials: ['factory_key', 'login_token'] } } satisfies RouteDefaults;
const PUBLIC = { guard: { credentials: 'public' } } satisfies RouteDefaults;

export const AREAS: readonly Area[] = [
  { name: 'health', defaults: PUBLIC, routes: healthRoutes },
  { name: 'capabilities', prefix: V1, defaults: PUBLIC, routes: capabilitiesRoutes },
  { name: 'pricing', prefix: V1, routes: pricingRoutes },
  { name: 'oauth', defaults: PUBLIC, routes: oauthRoutes, sweeps: oauthSweeps },
  {
    name: 'admin',
    prefix: V1,
    defaults: { guard: { credentials: ['admin_token'], factory: 'none' } },
    routes: adminRoutes,
  },
  { name: 'api-keys', prefix: V1, defaults: FACTORY, schemas: [ApiKey], routes: apiKeysRoutes },
  { name: 'work-items', prefix: V1, defaults: FACTORY, routes: workItemsRoutes, sweeps: workItemsSweeps },
  { name: 'criteria', prefix: V1, defaults: FACTORY, routes: criteriaRoutes },
  { name: 'findings', prefix: V1, defaults: FACTORY, schemas: [Finding], routes: findingsRoutes },
  { name: 'hosts', prefix: V1, defaults: FACTORY, schemas: [Host], routes: hostsRoutes },
  { name: 'apps', prefix: V1, defaults: FACTORY, schemas: [App], routes: appsRoutes },
  { name: 'account', prefix: V1, schemas: [MyFactory, MyLoginToken], routes: accountRoutes },
  {
    name: 'orgs',
    prefix: V1,
    defaults: { guard: { credentials: ['management_key', 'dashboard_session'], factory: 'none', orgParam: 'orgName' } },
    schemas: [
      Org,
      AutoJoin,
      OrgSelf,
      User,
      Member,
      AuditEntry,
      AuditVerify,
      Invitation,
      NewInvitation,
      JoinedOrg,
      Erasure,
    ],
    routes: orgsRoutes,
    sweeps: orgsSweeps,
  },
  {
    name: 'context',
    prefix: V1,
    defaults: FACTORY,
    schemas: [ContextSyncResult, ContextCommit, ContextSource],
    routes: contextRoutes,
  },
  { name: 'webhooks', prefix: V1, routes: webhooksRoutes },
  {
    name: 'prs',
    prefix: V1,
    defaults: FACTORY,
    schemas: [PullRequestOutcome, PullRequestSession, PullRequestDetail],
    routes: prsRoutes,
  },
  // The verdict's routes keep their whole paths and guards (they sit under /v1/prs and /v1/sessions).
  { name: 'verdict', routes: verdictRoutes },
  {
    name: 'metrics',
    prefix: V1,
    defaults: { guard: { ...FACTORY.guard, permission: 'metrics.read' }, rateLimit: 'observability-read' },
    schemas: [MetricsWindow, Model, ModelShare],
    routes: metricsRoutes,
  },
  { name: 'artifacts', prefix: V1, defaults: FACTORY, schemas: [Artifact], routes: artifactsRoutes },
  { name: 'results', prefix: V1, defaults: FACTORY, schemas: [EmittedResult, Check], routes: resultsRoutes },
  { name: 'repositories', prefix: V1, defaults: FACTORY, routes: repositoriesRoutes, sweeps: repositoriesSweeps },
  { name: 'work-item-pr', prefix: V1, routes: workItemPullRequestRoutes },
  { name: 'agents', prefix: V1, defaults: FACTORY, routes: agentsRoutes },
  // OTLP/HTTP: its own body parsers (protobuf, and JSON as bytes) and OTLP's answers (otlp/routes.ts).
  { name: 'otlp', prefix: V1, defaults: FACTORY, routes: otlpRoutes },
  { name: 'sessions', prefix: V1, defaults: FACTORY, routes: sessionsRoutes, sweeps: sessionsSweeps },
  {
    name: 'lifecycle',
    prefix: V1,
    defaults: FACTORY,
    routes: lifecycleRoutes,
    sweeps: { retention: retentionSweep, blobs: blobSweep },
  },
  // The MCP endpoints and the dashboard's sign-in keep their whole paths and guards: their paths are
  // matched elsewhere (the resource metadata) or live outside /v1.
  { name: 'mcp', routes: mcpRoutes },
  {
    name: 'notifications',
    prefix: V1,
    defaults: FACTORY,
    // The events are listed for receivers: each is the body a webhook channel is sent.
    schemas: [
      NotificationChannel,
      NotificationDelivery,
      BudgetThresholdEvent,
      BudgetForecastEvent,
      PrVerdictEvent,
      SessionFailedSyncEvent,
      HostOfflineEvent,
      ClaimExpiredEvent,
      TestEvent,
    ],
    routes: notificationsRoutes,
    sweeps: notificationsSweeps,
  },
  { name: 'budgets', prefix: V1, defaults: FACTORY, schemas: [Budget], routes: budgetsRoutes },
  { name: 'dashboard', schemas: [DashboardSession], routes: dashboardRoutes, sweeps: dashboardSweeps },
  // Identity sign-in: its callbacks live outside /v1 (the redirect URIs the providers are given). With it,
  // `attest login` through the browser (/v1/cli-login/...).
  {
    name: 'sign-in',
    defaults: PUBLIC,
    schemas: [SignInProvider, CliLoginRedirect, CliLoginToken, DeviceAuthorization, DeviceRequest],
    routes: signInRoutes,
    sweeps: signInSweeps,
  },
];
