// The one place that enforces what routes declare: runner version (426), credential kind and factory
// header (401/400/403), permission (403 with required_permission) and the rate-limit bucket (429).
// Handlers never check any of this by hand.
import crypto from 'node:crypto';
import semver from 'semver';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CredentialKind } from '../db/schema.js';
import { ApiError, apiError } from './errors.js';
import { parsePlaintext } from './credentials.js';
import type { App, Gateway, RouteGuard } from './context.js';
import { credentialRefused, type Plan, type Principal, type Target } from './auth/principal.js';
import type { BucketName, RateLimits } from './ratelimit.js';
import { recordAudit } from './audit.js';
import { verifyArtifactContentSignature } from './signed-urls.js';

export const APP_HEADER = 'x-outerlayer-app-id';
export const RUNNER_HEADER = 'x-outerlayer-runner-version';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FACTORY_KINDS: readonly CredentialKind[] = [
  'factory_key',
  'login_token',
  'item_key',
  'oauth_token',
  'dashboard_session',
];

/** The dashboard session cookie (DASHBOARD-CONTRACT.md) and the header the SPA sends on every request. */
export const SESSION_COOKIE = 'attest_session';
export const DASHBOARD_HEADER = 'x-attest-dashboard';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The kinds a route takes. A route that takes a login token also takes the dashboard session made from
 * one (it acts exactly as that token would), unless it opts out with `dashboardSession: false`.
 */
export function acceptedKinds(guard: RouteGuard): readonly CredentialKind[] {
  return routeRules(guard).kinds;
}

/** What the guard derives from a route's declaration, worked out once per route instead of on every request. */
interface RouteRules {
  kinds: readonly CredentialKind[];
  /** The route takes a credential that acts on a factory and does not opt out of naming one. */
  factoryKinds: boolean;
}

const rulesOfGuard = new WeakMap<RouteGuard, RouteRules>();

function routeRules(guard: RouteGuard): RouteRules {
  let rules = rulesOfGuard.get(guard);
  if (!rules) {
    let kinds: readonly CredentialKind[] = guard.credentials === 'public' ? [] : guard.credentials;
    if (kinds.includes('login_token') && guard.dashboardSession !== false && !kinds.includes('dashboard_session'))
      kinds = [...kinds, 'dashboard_session'];
    rules = {
      kinds,
      factoryKinds: kinds.some((k) => FACTORY_KINDS.includes(k)) && (guard.factory ?? 'header') !== 'none',
    };
    rulesOfGuard.set(guard, rules);
  }
  return rules;
}

/** The value of one cookie of the request, or null. */
export function cookieValue(req: FastifyRequest, name: string): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return value === '' ? null : value;
  }
  return null;
}

/**
 * The one CSRF rule: a state-changing request authorized by the cookie (or a sign-in) must carry the
 * header only the SPA sends; a cross-site form or fetch cannot set it without a CORS preflight we never grant.
 */
export function checkDashboardHeader(req: FastifyRequest): void {
  if (SAFE_METHODS.has(req.method)) return;
  if (singleHeader(req, DASHBOARD_HEADER) !== '1') {
    throw apiError(
      'csrf_rejected',
      'A request signed in by the dashboard cookie that changes something must carry the header X-Attest-Dashboard: 1.',
    );
  }
}

/**
 * MCP tools call their REST twins in process (app.inject) with the caller's own credential. An OAuth token
 * works on no REST route by itself; it does on such an in-process call, which carries this per-process
 * secret (never sent over the wire, so no outside request can carry it). The MCP route has already checked
 * the token's audience.
 */
export const INTERNAL_CALL_HEADER = 'x-attest-internal-call';
const INTERNAL_CALL_SECRET = crypto.randomBytes(32).toString('base64url');
export function internalCallHeaders(): Record<string, string> {
  return { [INTERNAL_CALL_HEADER]: INTERNAL_CALL_SECRET };
}
function isInternalCall(req: FastifyRequest): boolean {
  const given = singleHeader(req, INTERNAL_CALL_HEADER);
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(INTERNAL_CALL_SECRET);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/** The resource URL a request addresses (what an OAuth token's audience must equal). */
export function resourceUrlOf(gateway: Gateway, req: FastifyRequest): string {
  const path = (req.url.split('?')[0] ?? '').toLowerCase();
  return `${gateway.config.publicUrl}${path}`;
}

function bearer(req: FastifyRequest): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

function singleHeader(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function checkRunnerVersion(gateway: Gateway, req: FastifyRequest): void {
  const raw = singleHeader(req, RUNNER_HEADER);
  if (raw === undefined) return;
  const version = semver.valid(raw.trim());
  if (!version)
    throw apiError(
      'invalid_runner_version',
      `X-Outerlayer-Runner-Version "${raw.slice(0, 40)}" is not a semantic version.`,
    );
  const minimum = gateway.config.minRunnerVersion;
  if (minimum && semver.lt(version, minimum)) {
    throw apiError(
      'runner_upgrade_required',
      `This gateway accepts runners from version ${minimum}; upgrade the CLI.`,
      {
        minimum,
        docs: gateway.config.runnerUpgradeDocs,
      },
    );
  }
}

function pathParam(req: FastifyRequest, name: string): string | undefined {
  const params = req.params as Record<string, string | undefined> | undefined;
  return params?.[name];
}

/** Decide which factory the call acts on, before the credential is resolved (login tokens need it). */
function requestedFactory(req: FastifyRequest, guard: RouteGuard, kind: CredentialKind): string | null {
  const mode = guard.factory ?? 'header';
  if (mode === 'none') return null;
  if (mode === 'path') {
    const fromPath = pathParam(req, guard.appParam ?? 'appId');
    if (!fromPath || !UUID.test(fromPath)) throw apiError('invalid_path_params', 'appId must be a uuid.');
    return fromPath.toLowerCase();
  }
  let header = singleHeader(req, APP_HEADER);
  if (
    (header === undefined || header === '') &&
    kind === 'dashboard_session' &&
    guard.appIdFromQuery &&
    (req.method === 'GET' || req.method === 'HEAD')
  ) {
    // A media element cannot send headers: a cookie-authorized read may name its factory as ?appId=.
    const fromQuery = (req.query as Record<string, unknown> | undefined)?.appId;
    if (typeof fromQuery === 'string') header = fromQuery;
  }
  if (header === undefined || header === '') {
    if (kind === 'oauth_token') return null; // bound to its factory at consent
    if (kind === 'dashboard_session')
      throw apiError('app_id_required', 'A dashboard session needs the X-Outerlayer-App-Id header naming the factory.');
    if (kind === 'login_token')
      throw apiError('app_id_required', 'A login token needs the X-Outerlayer-App-Id header naming the factory.');
    if (kind === 'factory_key' && mode === 'header-optional-for-key') return null;
    if (kind === 'item_key') return null;
    throw apiError('unauthorized', 'The X-Outerlayer-App-Id header is required with a factory key.');
  }
  if (!UUID.test(header)) throw apiError('invalid_app_id', 'X-Outerlayer-App-Id must be the factory id (a uuid).');
  return header.toLowerCase();
}

async function authenticate(gateway: Gateway, req: FastifyRequest, guard: RouteGuard): Promise<Principal> {
  const rules = routeRules(guard);
  const kinds = rules.kinds;
  const fromBearer = bearer(req);
  // A bearer credential wins over the cookie: a script that sends one is not the browser's session.
  const fromCookie = fromBearer ? null : cookieValue(req, SESSION_COOKIE);
  const plaintext = fromBearer ?? fromCookie;
  if (!plaintext) throw apiError('unauthorized', 'Send Authorization: Bearer <credential>.');
  const claimed = parsePlaintext(plaintext);
  if (fromCookie !== null) {
    if (claimed !== 'dashboard_session')
      throw apiError('unauthorized', 'The dashboard session cookie is not valid; sign in again.');
    if (!kinds.includes('dashboard_session'))
      throw apiError('unauthorized', 'The dashboard session does not work on this route.');
    checkDashboardHeader(req);
  } else if (claimed === 'dashboard_session') {
    throw apiError('unauthorized', 'A dashboard session works only as its cookie, never as a bearer credential.');
  }
  if (!claimed) throw apiError('unauthorized', 'The credential is malformed or its checksum does not match.');
  const internalOAuth = claimed === 'oauth_token' && !kinds.includes(claimed) && isInternalCall(req);
  if (!kinds.includes(claimed) && !internalOAuth) {
    // Resolve first, so an unknown credential is still a plain 401 and not a hint about the route.
    await gateway.auth.resolve(plaintext, null);
    if (guard.wrongKindStatus === 403) {
      throw apiError('forbidden', 'This route does not accept this kind of credential.', {
        required_permission: guard.wrongKindPermission ?? guard.permission ?? 'item_key',
      });
    }
    throw apiError('unauthorized', 'This kind of credential does not work on this route.');
  }
  const isFactoryRoute = internalOAuth ? (guard.factory ?? 'header') !== 'none' : rules.factoryKinds;
  const wanted = isFactoryRoute ? requestedFactory(req, guard, claimed) : null;
  const target: Target = { appId: wanted };
  if (claimed === 'dashboard_session' && guard.orgParam)
    target.orgName = pathParam(req, guard.orgParam)?.toLowerCase() ?? null;
  const principal = await gateway.auth.resolve(plaintext, target, claimed);
  // A live credential aimed at another factory (header or path) or, for an OAuth token, another resource is
  // refused with the very answer an unknown, revoked or expired one gets (API.md §2: no oracle). The
  // resolver has already made the same number of store lookups for a dead credential as for this live one
  // (see PrincipalResolver.equalizeLookups), and this comparison is in memory, so neither the answer nor
  // the work done tells them apart.
  if (principal.kind === 'oauth_token' && !internalOAuth && principal.audience !== resourceUrlOf(gateway, req))
    throw credentialRefused();
  if (
    isFactoryRoute &&
    (principal.kind === 'factory_key' || principal.kind === 'item_key' || principal.kind === 'oauth_token')
  ) {
    if (wanted !== null && wanted !== principal.appId) throw credentialRefused();
  }
  if (isFactoryRoute && !principal.appId) throw apiError('unauthorized', 'The credential does not act on a factory.');
  if (guard.appParam && (guard.factory ?? 'header') !== 'path') {
    const fromPath = pathParam(req, guard.appParam);
    if (fromPath !== undefined && fromPath.toLowerCase() !== principal.appId) {
      throw apiError('forbidden', 'The path names a factory other than the one this request acts on.', {
        required_permission: guard.permission ?? 'apps.read',
      });
    }
  }
  if (guard.orgParam) {
    const fromPath = pathParam(req, guard.orgParam);
    if (fromPath !== undefined && fromPath.toLowerCase() !== principal.orgName) {
      throw apiError('forbidden', 'The path names an organization this credential does not belong to.', {
        required_permission: guard.permission ?? 'members.read',
      });
    }
  }
  return principal;
}

function queryOf(req: FastifyRequest): Record<string, unknown> {
  const q = req.query;
  return q !== null && typeof q === 'object' ? (q as Record<string, unknown>) : {};
}

/** A signed artifact URL instead of a credential; every use (and refusal) is logged. */
async function authenticateSigned(gateway: Gateway, req: FastifyRequest): Promise<Principal> {
  const artifactId = pathParam(req, 'id') ?? '';
  const query = queryOf(req);
  const check = verifyArtifactContentSignature(gateway.pepper, artifactId, query, gateway.clock.now());
  if (!check.ok) {
    req.log.info({ artifactId, reason: check.reason }, 'signed artifact URL refused');
    throw apiError(
      'unauthorized',
      check.reason === 'expired' ? 'This signed URL has expired.' : 'This signed URL is not valid.',
    );
  }
  const principal = await gateway.auth.signedUrl(check.appId, artifactId);
  if (!principal) throw apiError('unauthorized', 'This signed URL is not valid.');
  req.log.info({ artifactId, appId: check.appId, exp: check.exp }, 'artifact content served through a signed URL');
  return principal;
}

async function auditDenial(
  gateway: Gateway,
  req: FastifyRequest,
  principal: Principal,
  permission: string,
): Promise<void> {
  if (!principal.orgId) return;
  try {
    await recordAudit(gateway.db, gateway.clock, {
      orgId: principal.orgId,
      actionType: 'permission.denied',
      actor: principal,
      targetType: principal.appId ? 'app' : 'org',
      targetId: principal.appId ?? principal.orgId,
      targetIdentifier: `${req.method} ${req.routeOptions.url ?? req.url}`,
      details: { required_permission: permission },
    });
  } catch (err) {
    req.log.warn({ err }, 'could not record permission denial in the audit log');
  }
}

/** Takes one request from the org's bucket and says so in the headers; 429 `rate_limited` when it is empty. */
export async function consumeRateLimit(
  rateLimits: RateLimits,
  reply: FastifyReply,
  bucket: BucketName,
  orgId: string,
  plan: Plan,
): Promise<void> {
  const decision = await rateLimits.consume(bucket, orgId, plan);
  setRateHeaders(reply, decision.limit, decision.remaining, decision.resetAt);
  if (!decision.allowed) {
    throw new ApiError(
      429,
      'rate_limited',
      `Rate limit of ${decision.limit} requests a minute reached for this organization.`,
      {},
      { 'Retry-After': String(decision.retryAfterSeconds) },
    );
  }
}

export function setRateHeaders(reply: FastifyReply, limit: number, remaining: number, resetAt: number | null): void {
  reply.header('X-RateLimit-Limit', String(limit));
  reply.header('X-RateLimit-Remaining', String(Math.max(0, remaining)));
  if (resetAt !== null) reply.header('X-RateLimit-Reset', String(resetAt));
}

export function registerGuard(app: App): void {
  const gateway = app.attest;

  // Runs after app.ts has put an area's defaults under what its route declares: what is checked here is the
  // effective guard, the one every request of the route meets.
  app.addHook('onRoute', (route) => {
    if (route.config?.guard?.credentials === undefined && !String(route.url).startsWith('/documentation')) {
      throw new Error(`route ${route.method} ${route.url} declares no guard (no credentials, its own or its area's)`);
    }
  });

  app.addHook('onRequest', async (req, reply) => {
    req.ctx = {
      gateway,
      db: gateway.db,
      clock: gateway.clock,
      config: gateway.config,
      log: req.log,
      requestId: req.id,
      principal: null,
    };
    // routeOptions is a getter that builds a new object on every read: read it once.
    const route = req.routeOptions;
    // Complete: the onRoute check above refused any route whose guard names no credentials.
    const guard = route.config.guard as RouteGuard | undefined;
    if (!guard) return; // 404s and framework routes
    if ((route.url ?? '').startsWith('/v1/')) checkRunnerVersion(gateway, req);
    if (guard.credentials === 'public') {
      if (guard.dashboardHeader) checkDashboardHeader(req);
      return;
    }
    if (guard.signedUrl && req.headers.authorization === undefined && queryOf(req).sig !== undefined) {
      req.ctx.principal = await authenticateSigned(gateway, req);
      return;
    }

    const principal = await authenticate(gateway, req, guard);
    req.ctx.principal = principal;
    if (guard.permission && !principal.permissions.has(guard.permission)) {
      await auditDenial(gateway, req, principal, guard.permission);
      throw apiError('forbidden', `This credential lacks the permission ${guard.permission}.`, {
        required_permission: guard.permission,
      });
    }

    if (gateway.reads.enabled) {
      req.ctx.db = gateway.reads.storeFor(req.method, principal.credentialId, route.config.reads === 'replica');
    }

    const bucket = route.config.rateLimit;
    if (bucket && principal.orgId) {
      await consumeRateLimit(gateway.rateLimits, reply, bucket, principal.orgId, principal.plan ?? 'free');
    }
  });
}
