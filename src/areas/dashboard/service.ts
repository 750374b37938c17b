// Dashboard sign-in (DASHBOARD-CONTRACT.md): one-time links made with a login token, the session cookie
// they open, sign-in with a pasted login token, and sign-out. A session acts exactly as the login token it
// came from; the guard resolves it (src/server/auth/principal.ts) and enforces the CSRF header.
import crypto from 'node:crypto';
import type { Db } from '../../db/connection.js';
import type { RequestContext } from '../../server/context.js';
import type { Config } from '../../server/config.js';
import { credentialRefused, type Principal } from '../../server/auth/principal.js';
import { apiError } from '../../server/errors.js';
import { mintCredential } from '../../server/auth/mint.js';
import { digestOf, parsePlaintext } from '../../server/credentials.js';
import type { DashboardSession, SignInLink } from './schema.js';
import * as store from './store.js';

export const LINK_TTL_MS = 10 * 60_000;

/** A session just started: what its answer says, and what its cookie needs. */
export interface NewSession extends DashboardSession {
  /** The cookie value (shown once; only its digest is stored). */
  id: string;
  /** Seconds until the absolute expiry (the cookie's Max-Age). */
  maxAgeSeconds: number;
}

/** A single-use sign-in link for `userId`, acting as login token `loginTokenId`, valid 10 minutes. */
export async function mintSignInLink(
  db: Db,
  pepper: string,
  now: number,
  publicUrl: string,
  userId: string,
  loginTokenId: string,
): Promise<SignInLink> {
  const token = crypto.randomBytes(32).toString('base64url');
  await store.insertLink(db, {
    digest: digestOf(token, pepper),
    user_id: userId,
    login_token_id: loginTokenId,
    expires_at: now + LINK_TTL_MS,
    used_at: null,
    created_at: now,
  });
  return { url: `${publicUrl}/auth/link/${token}`, expiresAt: new Date(now + LINK_TTL_MS).toISOString() };
}

/** The login token behind a caller that is a login token or a dashboard session. */
function loginTokenOf(p: Principal | null): { userId: string; loginTokenId: string } {
  if (p?.kind === 'login_token' && p.userId) return { userId: p.userId, loginTokenId: p.credentialId };
  if (p?.kind === 'dashboard_session' && p.userId && p.parentId) return { userId: p.userId, loginTokenId: p.parentId };
  throw apiError('internal_error', 'route is missing its login-token guard');
}

export function createLink(ctx: RequestContext): Promise<SignInLink> {
  const { userId, loginTokenId } = loginTokenOf(ctx.principal);
  return mintSignInLink(ctx.db, ctx.gateway.pepper, ctx.clock.now(), ctx.config.publicUrl, userId, loginTokenId);
}

/** A dashboard session acting as login token `loginTokenId` of `userId`; null when that user is in no org. */
export async function startSession(
  ctx: RequestContext,
  userId: string,
  loginTokenId: string,
): Promise<NewSession | null> {
  const now = ctx.clock.now();
  const absoluteMs = ctx.config.dashboardMaxDays * 86_400_000;
  const minted = await mintCredential(ctx.db, ctx.gateway.pepper, now, {
    kind: 'dashboard_session',
    name: 'dashboard',
    userId,
    parentId: loginTokenId,
    expiresAt: now + absoluteMs,
  });
  // Resolve it as the guard will: a session whose login token is gone or whose user is in no org never starts.
  let principal: Principal;
  try {
    principal = await ctx.gateway.auth.resolve(minted.plaintext, null);
  } catch {
    await store.revokeSession(ctx.db, minted.id, now);
    return null;
  }
  const user = await store.findUser(ctx.db, userId);
  if (!user) return null;
  return {
    id: minted.plaintext,
    user,
    expiresAt: new Date(principal.expiresAt ?? now + absoluteMs).toISOString(),
    maxAgeSeconds: Math.floor(absoluteMs / 1000),
  };
}

export type LinkOutcome = { ok: true; session: NewSession } | { ok: false; reason: 'used' | 'expired' | 'invalid' };

/** Opens a sign-in link: a session when it is live and unused, else why not. */
export async function openLink(ctx: RequestContext, token: string): Promise<LinkOutcome> {
  if (token.length < 20 || token.length > 200) return { ok: false, reason: 'invalid' };
  const digest = digestOf(token, ctx.gateway.pepper);
  const now = ctx.clock.now();
  if (!(await store.useLink(ctx.db, digest, now))) {
    const row = await store.findLink(ctx.db, digest);
    if (!row) return { ok: false, reason: 'invalid' };
    return { ok: false, reason: row.used_at !== null ? 'used' : 'expired' };
  }
  const row = await store.findLink(ctx.db, digest);
  if (!row) return { ok: false, reason: 'invalid' };
  const session = await startSession(ctx, row.user_id, row.login_token_id);
  return session ? { ok: true, session } : { ok: false, reason: 'invalid' };
}

const ONLY_LOGIN_TOKENS =
  'Only a CLI login token (olu_…) signs in to the dashboard; API keys, item keys, management keys and admin tokens ' +
  'never do. Run `attest dashboard` for a sign-in link.';

/** Sign-in with a pasted login token. */
export async function signIn(ctx: RequestContext, loginToken: string): Promise<NewSession> {
  const token = loginToken.trim();
  const kind = parsePlaintext(token);
  if (kind !== 'login_token') {
    throw apiError(
      'unauthorized',
      kind === null ? `That is not a valid login token. ${ONLY_LOGIN_TOKENS}` : ONLY_LOGIN_TOKENS,
    );
  }
  const principal = await ctx.gateway.auth.resolve(token, null);
  if (!principal.userId) throw credentialRefused();
  const session = await startSession(ctx, principal.userId, principal.credentialId);
  if (!session) throw apiError('unauthorized', 'This login token belongs to a user who is in no organization.');
  return session;
}

export async function currentSession(ctx: RequestContext): Promise<DashboardSession> {
  const p = ctx.principal;
  if (p?.kind !== 'dashboard_session' || !p.userId)
    throw apiError('internal_error', 'route is missing its session guard');
  const user = await store.findUser(ctx.db, p.userId);
  if (!user) throw credentialRefused();
  return { user, expiresAt: new Date(p.expiresAt ?? ctx.clock.now()).toISOString() };
}

export async function signOut(ctx: RequestContext): Promise<void> {
  const p = ctx.principal;
  if (p?.kind !== 'dashboard_session') throw apiError('internal_error', 'route is missing its session guard');
  await store.revokeSession(ctx.db, p.credentialId, ctx.clock.now());
  ctx.gateway.auth.invalidate();
}

/** The Set-Cookie value for a session (Secure when the public URL is https). */
export function sessionCookie(config: Config, name: string, value: string, maxAgeSeconds: number): string {
  const secure = config.publicUrl.startsWith('https:') ? '; Secure' : '';
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}
