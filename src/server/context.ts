// What a handler and a service know about the call: who, which factory, the store, a clock.
// Services take a RequestContext and never read headers.
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Db, Dialect } from '../db/connection.js';
import type { CredentialKind } from '../db/schema.js';
import type { Config } from './config.js';
import type { Clock } from './clock.js';
import type { Housekeeping } from './housekeeping.js';
import type { Permission } from './permissions.js';
import type { Principal, PrincipalResolver } from './auth/principal.js';
import type { BucketName, RateLimits } from './ratelimit.js';
import type { BlobStore } from '../blobs/store.js';
import type { ReadRouting } from './read-routing.js';
import { apiError } from './errors.js';

export interface BootstrapResult {
  created: boolean;
  orgName: string;
  orgId: string;
  appId: string;
  userId: string;
  userEmail: string;
  /** Present only on the boot that created them. */
  adminToken?: string;
  loginToken?: string;
  /** The bootstrap login token's credential id (for the owner's first sign-in link). */
  loginTokenId?: string;
}

/** Work that must happen later, from durable job rows (the PR comment worker). */
export interface JobRunner {
  /** Run every job due now by the gateway's clock; the server's loop calls it, and tests call it directly. */
  runDueJobs(): Promise<{ claimed: number; posted: number; skipped: number; retried: number; failed: number }>;
  start(intervalMs: number): void;
  stop(): Promise<void>;
}

/** What one run of the notification jobs did: notices queued, watches fired, deliveries attempted. */
export interface NotificationReport {
  notices: number;
  hostsOffline: number;
  claimsExpired: number;
  claimed: number;
  succeeded: number;
  retried: number;
  failed: number;
}

/** Budget evaluation and notification delivery (src/jobs/notifications), from durable rows. */
export interface NotificationRunner {
  /** Evaluate changed budgets, watch hosts and claims, send due deliveries by the gateway's clock (tests call it). */
  runDueJobs(): Promise<NotificationReport>;
  start(intervalMs: number): void;
  stop(): Promise<void>;
}

/** Everything one gateway process shares across requests. */
export interface Gateway {
  config: Config;
  /** The primary: every write, and every read but those `reads` sends to the replica. */
  db: Db;
  dialect: Dialect;
  /** Which store a request reads (read-routing.ts): the replica of DATABASE_READ_URL or the primary. */
  reads: ReadRouting;
  clock: Clock;
  pepper: string;
  /** Secret for actor pseudonyms (derived from the pepper). */
  anonSecret: string;
  auth: PrincipalResolver;
  rateLimits: RateLimits;
  blobs: BlobStore;
  bootstrap: BootstrapResult;
  /** Names of the areas whose routes are registered (capabilities). */
  areas: Set<string>;
  startedAt: number;
  /** The background job worker (started when the server is ready, stopped on close). */
  jobs: JobRunner;
  /** The notification worker (budgets and deliveries), started and stopped with the job worker. */
  notifications: NotificationRunner;
  /** Deletes expired single-use secrets (housekeeping.ts): the server runs it hourly, tests call run(). */
  housekeeping: Housekeeping;
}

export interface RequestContext {
  gateway: Gateway;
  /** The store this request reads and writes: the primary, or the replica on a `reads: 'replica'` route. */
  db: Db;
  clock: Clock;
  config: Config;
  log: FastifyBaseLogger;
  requestId: string;
  principal: Principal | null;
}

/** A context whose caller is known to act on one factory. */
export interface FactoryContext extends RequestContext {
  principal: Principal;
  orgId: string;
  appId: string;
}

export interface OrgContext extends RequestContext {
  principal: Principal;
  orgId: string;
}

export function factoryContext(ctx: RequestContext): FactoryContext {
  const p = ctx.principal;
  if (!p?.orgId || !p.appId) throw apiError('internal_error', 'route is missing its factory guard');
  // Spelled out rather than spread: this runs on every factory request, and a literal of known shape is cheaper.
  return {
    gateway: ctx.gateway,
    db: ctx.db,
    clock: ctx.clock,
    config: ctx.config,
    log: ctx.log,
    requestId: ctx.requestId,
    principal: p,
    orgId: p.orgId,
    appId: p.appId,
  };
}

export function orgContext(ctx: RequestContext): OrgContext {
  const p = ctx.principal;
  if (!p?.orgId) throw apiError('internal_error', 'route is missing its org guard');
  // A spread is fine here: org routes are few and rare, unlike the factory routes above.
  return { ...ctx, principal: p, orgId: p.orgId };
}

/** How a route declares who may call it (read by the guard plugin; no handler checks auth by hand). */
export interface RouteGuard {
  /** Credential kinds accepted, or 'public' for no credential. */
  credentials: readonly CredentialKind[] | 'public';
  permission?: Permission;
  /**
   * Where the factory comes from. 'header' (default for factory credentials): X-Outerlayer-App-Id, required;
   * 'header-optional-for-key': a factory key may leave the header out (/v1/mcp);
   * 'path': the `appId` path parameter (/v1/apps/{appId}/mcp); 'none': the route is not a factory route.
   */
  factory?: 'header' | 'header-optional-for-key' | 'path' | 'none';
  /** Path parameter that names a factory the caller must be acting on (403 otherwise). */
  appParam?: string;
  /** Path parameter that names the org a management key must belong to (403 otherwise). */
  orgParam?: string;
  /** Status for a credential of a kind the route does not take: 401 by default. */
  wrongKindStatus?: 401 | 403;
  /** The permission reported when wrongKindStatus is 403. */
  wrongKindPermission?: string;
  /**
   * A route that takes a login token also takes the dashboard session cookie (acting as that token);
   * `false` opts out (MCP, which forwards the bearer credential to the routes it mirrors).
   */
  dashboardSession?: boolean;
  /** A cookie-authorized GET may name its factory as `?appId=` instead of the header (media elements). */
  appIdFromQuery?: boolean;
  /** A public route that still needs the dashboard's X-Attest-Dashboard header (sign-in). */
  dashboardHeader?: boolean;
  /**
   * 'artifact-content': a request without Authorization that carries `sig` in its query is authorized by
   * a signed artifact URL (src/server/signed-urls.ts) for the `id` path parameter instead of a credential.
   */
  signedUrl?: 'artifact-content';
}

/**
 * The guard a route declares: the fields its area's defaults (area.ts) leave out or that differ from them.
 * Once registered, a route's config holds the whole guard (credentials included; the guard plugin refuses
 * a route without them).
 */
export type RouteGuardDeclaration = Partial<RouteGuard>;

declare module 'fastify' {
  interface FastifyContextConfig {
    guard?: RouteGuardDeclaration;
    rateLimit?: BucketName;
    /** The area a route belongs to; set by the area registry. */
    area?: string;
    /**
     * 'replica': a read-only route whose answer may lag the primary by the replica's lag (the dashboard's
     * aggregates and lists), read from DATABASE_READ_URL unless its caller wrote lately (read-routing.ts).
     */
    reads?: 'replica';
    /** An OAuth protocol endpoint: refused input answers RFC 6749's `{ error, error_description }`. */
    oauthErrors?: boolean;
  }
  interface FastifyRequest {
    ctx: RequestContext;
  }
  interface FastifyInstance {
    attest: Gateway;
  }
}

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** An area registers its routes on the typed app. */
export type AreaRoutes = (app: App) => void;
