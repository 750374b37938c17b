// `attest login` through the browser (issue 43 §3). Both ways end in a normal login token for the person who
// confirmed on the dashboard, named after the machine the CLI runs on.
// - Loopback redirect (RFC 8252 with PKCE, RFC 7636): the signed-in dashboard page asks for a one-time code
//   bound to the CLI's code challenge and its exact `http://127.0.0.1:<port>/<path>` redirect; the CLI
//   exchanges code + verifier once, within a minute.
// - Device flow (RFC 8628): the CLI gets a device code and a short user code; a signed-in person confirms the
//   user code on the dashboard, which shows who asks (the machine's name, the address it asked from); the CLI
//   polls at the interval it was given, slowed down when it polls too soon.
import crypto from 'node:crypto';
import type { RequestContext } from '../../server/context.js';
import { digestOf } from '../../server/credentials.js';
import { apiError } from '../../server/errors.js';
import { mintCredential } from '../../server/auth/mint.js';
import { requireUser } from '../orgs/service.js';
import type { CliLoginRedirect, CliLoginToken, DeviceAuthorization, DeviceRequest, NewCliLoginCode } from './schema.js';
import * as store from './store.js';

export const CODE_TTL_MS = 60_000;
export const DEVICE_TTL_MS = 10 * 60_000;
export const DEVICE_INTERVAL_MS = 5_000;
/** RFC 8628 §3.5: each slow_down adds 5 seconds to the interval. */
const SLOW_DOWN_MS = 5_000;
/** RFC 8628 §6.1: no vowels (no words), no look-alikes; 20^8 ≈ 2.6e10 codes. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;
/** The loopback redirect's path: one segment of plain characters (the CLI uses /callback). */
const LOOPBACK_PATH = /^\/[A-Za-z0-9_-]{0,64}$/;

function userIdOf(ctx: RequestContext): string {
  const userId = ctx.principal?.kind === 'dashboard_session' ? ctx.principal.userId : null;
  if (!userId) throw apiError('internal_error', 'route is missing its dashboard-session guard');
  return userId;
}

/** Counts one attempt against the `cli-login` bucket; 429 with Retry-After past the limit. */
export async function rateLimit(ctx: RequestContext, key: string): Promise<void> {
  const decision = await ctx.gateway.rateLimits.consume('cli-login', key, 'free');
  if (!decision.allowed)
    throw apiError(
      'rate_limited',
      `Too many sign-in attempts (${decision.limit} a minute); wait and try again.`,
      {},
      { 'Retry-After': String(decision.retryAfterSeconds) },
    );
}

/**
 * The redirect URI exactly as given, when it is `http://127.0.0.1:<port>/<path>`: the loopback address by
 * number (a name could resolve elsewhere), an explicit port, no user, query or fragment, and nothing a URL
 * parser would rewrite (so what is stored is what the browser is sent to).
 */
export function loopbackRedirect(value: string): string {
  const refuse = () =>
    apiError('invalid_redirect_uri', 'redirectUri must be exactly http://127.0.0.1:<port>/<path>, with no query.');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse();
  }
  if (
    url.href !== value ||
    url.protocol !== 'http:' ||
    url.hostname !== '127.0.0.1' ||
    url.port === '' ||
    url.username !== '' ||
    url.password !== '' ||
    value.includes('?') ||
    value.includes('#') ||
    !LOOPBACK_PATH.test(url.pathname)
  )
    throw refuse();
  return value;
}

/** The one-time code a signed-in person hands to the CLI listening on the loopback redirect. */
export async function issueLoginCode(ctx: RequestContext, req: NewCliLoginCode): Promise<CliLoginRedirect> {
  const userId = userIdOf(ctx);
  const redirectUri = loopbackRedirect(req.redirectUri);
  const code = crypto.randomBytes(32).toString('base64url');
  const now = ctx.clock.now();
  await store.insertLoginCode(ctx.db, {
    code_digest: digestOf(code, ctx.gateway.pepper),
    user_id: userId,
    code_challenge: req.codeChallenge,
    redirect_uri: redirectUri,
    client_name: req.clientName,
    created_at: now,
    expires_at: now + CODE_TTL_MS,
    used_at: null,
  });
  const to = new URL(redirectUri);
  to.searchParams.set('code', code);
  to.searchParams.set('state', req.state);
  return { redirectTo: to.href, expiresAt: new Date(now + CODE_TTL_MS).toISOString() };
}

function pkceMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(crypto.createHash('sha256').update(verifier).digest('base64url'));
  const stored = Buffer.from(challenge);
  return computed.length === stored.length && crypto.timingSafeEqual(computed, stored);
}

async function mintFor(ctx: RequestContext, userId: string, clientName: string): Promise<CliLoginToken> {
  const user = await requireUser(ctx.db, userId);
  const name = `attest login (${clientName})`;
  const minted = await mintCredential(ctx.db, ctx.gateway.pepper, ctx.clock.now(), {
    kind: 'login_token',
    name,
    userId: user.id,
  });
  return { token: minted.plaintext, id: minted.id, name, user: { id: user.id, email: user.email, name: user.name } };
}

/**
 * Code + verifier → a login token, once. A wrong verifier or redirect uses the code up all the same (whoever
 * intercepted it gets one try, and the real CLI then fails loudly instead of racing them). Every refusal is
 * the same `invalid_grant`, so an answer does not tell which check failed.
 */
export async function exchangeLoginCode(
  ctx: RequestContext,
  ip: string,
  req: { code: string; codeVerifier: string; redirectUri: string },
): Promise<CliLoginToken> {
  await rateLimit(ctx, `ip:${ip}`);
  const invalid = () =>
    apiError('invalid_grant', 'The code is unknown, used or expired, or the verifier or redirect does not match.');
  const row = await store.useLoginCode(ctx.db, digestOf(req.code, ctx.gateway.pepper), ctx.clock.now());
  if (!row) throw invalid();
  const sameRedirect = row.redirect_uri === req.redirectUri;
  if (!pkceMatches(req.codeVerifier, row.code_challenge) || !sameRedirect) throw invalid();
  return mintFor(ctx, row.user_id, row.client_name);
}

/** `ABCD-EFGH` → `ABCDEFGH`; anything outside the alphabet makes it a code no row has. */
function normalizeUserCode(value: string): string | null {
  const plain = value.toUpperCase().replace(/[\s-]/g, '');
  if (plain.length !== USER_CODE_LENGTH) return null;
  for (const c of plain) if (!USER_CODE_ALPHABET.includes(c)) return null;
  return plain;
}

const shown = (plain: string) => `${plain.slice(0, 4)}-${plain.slice(4)}`;

export async function startDeviceLogin(
  ctx: RequestContext,
  ip: string,
  clientName: string,
): Promise<DeviceAuthorization> {
  await rateLimit(ctx, `ip:${ip}`);
  const deviceCode = crypto.randomBytes(32).toString('base64url');
  let userCode = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++)
    userCode += USER_CODE_ALPHABET[crypto.randomInt(USER_CODE_ALPHABET.length)];
  const now = ctx.clock.now();
  await store.insertDeviceCode(ctx.db, {
    device_digest: digestOf(deviceCode, ctx.gateway.pepper),
    user_code_digest: digestOf(userCode, ctx.gateway.pepper),
    client_name: clientName,
    requested_ip: ip,
    interval_ms: DEVICE_INTERVAL_MS,
    polled_at: null,
    user_id: null,
    decided_at: null,
    denied: 0,
    used_at: null,
    created_at: now,
    expires_at: now + DEVICE_TTL_MS,
  });
  const verificationUri = `${ctx.config.publicUrl}/device`;
  return {
    deviceCode,
    userCode: shown(userCode),
    verificationUri,
    verificationUriComplete: `${verificationUri}?code=${shown(userCode)}`,
    expiresIn: DEVICE_TTL_MS / 1000,
    interval: DEVICE_INTERVAL_MS / 1000,
  };
}

/** One poll of the device flow: the login token once confirmed, else the RFC 8628 answer for the state. */
export async function pollDeviceLogin(ctx: RequestContext, ip: string, deviceCode: string): Promise<CliLoginToken> {
  await rateLimit(ctx, `ip:${ip}`);
  const digest = digestOf(deviceCode, ctx.gateway.pepper);
  const row = await store.findDeviceCode(ctx.db, digest);
  const now = ctx.clock.now();
  if (!row || row.used_at !== null) throw apiError('invalid_grant', 'The device code is unknown or already used.');
  if (row.expires_at <= now)
    throw apiError('expired_token', 'The device code has expired; run `attest login --device` again.');
  if (row.polled_at !== null && now - row.polled_at < row.interval_ms) {
    const interval = row.interval_ms + SLOW_DOWN_MS;
    await store.recordDevicePoll(ctx.db, digest, now, interval);
    throw apiError('slow_down', `Polled too soon; wait ${interval / 1000} seconds between polls.`, {
      interval: interval / 1000,
    });
  }
  if (row.decided_at === null) {
    await store.recordDevicePoll(ctx.db, digest, now, row.interval_ms);
    throw apiError('authorization_pending', 'Not confirmed yet.', { interval: row.interval_ms / 1000 });
  }
  if (row.denied !== 0 || !row.user_id) throw apiError('access_denied', 'The sign-in was refused on the dashboard.');
  if (!(await store.useDeviceCode(ctx.db, digest, now)))
    throw apiError('invalid_grant', 'The device code is unknown or already used.');
  return mintFor(ctx, row.user_id, row.client_name);
}

async function pendingCode(ctx: RequestContext, userCode: string) {
  await rateLimit(ctx, `user:${userIdOf(ctx)}`);
  const plain = normalizeUserCode(userCode);
  const row = plain
    ? await store.findPendingUserCode(ctx.db, digestOf(plain, ctx.gateway.pepper), ctx.clock.now())
    : undefined;
  if (!plain || !row)
    throw apiError('device_code_not_found', 'No sign-in is waiting for this code (it may have expired or been used).');
  return { plain, row };
}

/** What the confirmation page shows of a pending code, so a person can tell a request they did not make. */
export async function describeUserCode(ctx: RequestContext, userCode: string): Promise<DeviceRequest> {
  const { plain, row } = await pendingCode(ctx, userCode);
  return {
    userCode: shown(plain),
    clientName: row.client_name,
    requestedIp: row.requested_ip,
    requestedAt: new Date(row.created_at).toISOString(),
    expiresAt: new Date(row.expires_at).toISOString(),
  };
}

/** The signed-in person confirms (or refuses) a pending code; the CLI's next poll gets the answer. */
export async function decideUserCode(ctx: RequestContext, userCode: string, approve: boolean): Promise<void> {
  const { plain } = await pendingCode(ctx, userCode);
  const decided = await store.decideUserCode(
    ctx.db,
    digestOf(plain, ctx.gateway.pepper),
    userIdOf(ctx),
    !approve,
    ctx.clock.now(),
  );
  if (!decided)
    throw apiError('device_code_not_found', 'No sign-in is waiting for this code (it may have expired or been used).');
}
