// Identity sign-in (issue 43): start a flow at a provider, finish it at the callback, and end in the same
// dashboard session a sign-in link opens (cookie, CSRF header, idle and absolute expiry). The first sign-in
// creates the user; an email that matches an existing user links to it only when the provider says the
// email is verified; an unverified email never signs in. The flow can carry an invitation, accepted once the
// user is known; a user created by this sign-in also auto-joins by email domain.
import crypto from 'node:crypto';
import type { RequestContext } from '../../server/context.js';
import { digestOf } from '../../server/credentials.js';
import { ApiError } from '../../server/errors.js';
import { mintCredential } from '../../server/auth/mint.js';
import { revokeCredential } from '../../server/auth/store.js';
import { startSession, type NewSession } from '../dashboard/service.js';
import { acceptInvitation, autoJoin, type Joiner } from '../orgs/invitations.js';
import { createUser, findUserByEmail } from '../orgs/service.js';
import type { UserToken } from '../../codehost/github-user.js';
import { keepGitHubUserToken } from './github.js';
import type { ProviderIdentity } from './oidc.js';
import type { SignInProvider } from './schema.js';
import * as store from './store.js';

export type ProviderId = SignInProvider['id'];
export const FLOW_TTL_MS = 10 * 60_000;
/** The cookie that binds a flow to the browser that started it (its value is the flow's state). */
export const FLOW_COOKIE = 'attest_sign_in';

export function providersOf(config: RequestContext['config']): SignInProvider[] {
  const out: SignInProvider[] = [];
  if (config.oidc) out.push({ id: 'oidc', name: config.oidc.name, url: '/auth/oidc/start' });
  if (config.github.clientId && config.github.clientSecret)
    out.push({ id: 'github', name: 'GitHub', url: '/auth/github/start' });
  return out;
}

export function redirectUriOf(config: RequestContext['config'], provider: ProviderId): string {
  return `${config.publicUrl}/auth/${provider}/callback`;
}

/** Why a sign-in did not end in a session: the sign-in page explains each, and none says whether an account exists. */
export type Refusal =
  | 'provider'
  | 'error'
  | 'state'
  | 'unverified-email'
  | 'no-org'
  | 'rate-limited'
  | 'invitation-invalid'
  | 'invitation-used'
  | 'invitation-expired'
  | 'invitation-revoked'
  | 'invitation-email';

export class SignInRefused extends Error {
  constructor(
    readonly reason: Refusal,
    /** For `rate-limited`: the seconds until the window resets (the answer's Retry-After). */
    readonly retryAfterSeconds = 0,
  ) {
    super(reason);
  }
}

/**
 * A dashboard path to land on after signing in, or null: one leading `/` and no second one or backslash
 * after it (`//host` and `/\\host` are other origins to a browser), so the callback never redirects off-site.
 */
export function dashboardPath(value: string | undefined): string | null {
  if (!value?.startsWith('/') || value.startsWith('//') || value.includes('\\')) return null;
  if (/[\u0000-\u001f\u007f]/.test(value)) return null;
  return value;
}

/** Records a new flow; what the browser is sent to is the caller's (the provider's authorization URL). */
export async function saveFlow(
  ctx: RequestContext,
  provider: ProviderId,
  flow: { state: string; codeVerifier: string; nonce: string | null },
  invitation: string | null,
  nextPath: string | null = null,
): Promise<void> {
  const now = ctx.clock.now();
  await store.insertFlow(ctx.db, {
    state_digest: digestOf(flow.state, ctx.gateway.pepper),
    provider,
    code_verifier: flow.codeVerifier,
    nonce: flow.nonce,
    invitation,
    created_at: now,
    expires_at: now + FLOW_TTL_MS,
    used_at: null,
    next_path: nextPath,
  });
}

/**
 * The flow a callback finishes: its state must equal the cookie the start set in this browser (so a link
 * made by someone else cannot sign this browser in), and the flow must be live and unused (single use).
 */
export async function takeFlow(
  ctx: RequestContext,
  provider: ProviderId,
  state: string | undefined,
  cookie: string | null,
): Promise<store.SignInFlowsTable> {
  if (!state || !cookie || state.length > 200) throw new SignInRefused('state');
  const a = Buffer.from(state);
  const b = Buffer.from(cookie);
  if (a.length !== b.length || !crypto.timingSafeEqual(a, b)) throw new SignInRefused('state');
  const flow = await store.useFlow(ctx.db, digestOf(state, ctx.gateway.pepper), provider, ctx.clock.now());
  if (!flow) throw new SignInRefused('state');
  return flow;
}

export async function rateLimit(ctx: RequestContext, key: string): Promise<void> {
  const decision = await ctx.gateway.rateLimits.consume('sign-in', key, 'free');
  if (!decision.allowed) throw new SignInRefused('rate-limited', Math.max(1, decision.retryAfterSeconds));
}

const INVITATION_REFUSALS: Record<string, Refusal> = {
  invitation_not_found: 'invitation-invalid',
  invitation_used: 'invitation-used',
  invitation_expired: 'invitation-expired',
  invitation_revoked: 'invitation-revoked',
  invitation_email_mismatch: 'invitation-email',
};

export interface SignedIn {
  session: NewSession;
  /** The org an invitation in the flow joined, to land on its page. */
  joinedOrg: string | null;
}

/** The user behind a provider identity: found by the identity, linked by verified email, or created. */
async function userOf(ctx: RequestContext, provider: ProviderId, who: ProviderIdentity) {
  const now = ctx.clock.now();
  const known = await store.findIdentity(ctx.db, provider, who.subject);
  if (known) {
    await store.touchIdentity(ctx.db, provider, who.subject, who.email, now);
    const user = await ctx.db.selectFrom('users').selectAll().where('id', '=', known.user_id).executeTakeFirst();
    if (user) return { user, created: false };
  }
  if (!who.email || !who.emailVerified) throw new SignInRefused('unverified-email');
  const actor = { db: ctx.db, clock: ctx.clock, principal: null };
  let user = await findUserByEmail(ctx.db, who.email);
  let created = false;
  if (!user) {
    const made = await createUser(actor, who.email, who.name ?? who.login ?? who.email);
    user = { id: made.id, email: made.email, name: made.name, created_at: now };
    created = true;
  }
  await store.insertIdentity(ctx.db, {
    provider,
    subject: who.subject,
    user_id: user.id,
    email: who.email,
    login: who.login,
    created_at: now,
    last_sign_in_at: now,
  });
  return { user, created };
}

/**
 * Ends a provider sign-in: the user, the GitHub user token (kept for installation binding), the invitation
 * the flow carried, auto-join, and the dashboard session.
 */
export async function completeSignIn(
  ctx: RequestContext,
  provider: ProviderId,
  who: ProviderIdentity,
  invitation: string | null,
  githubToken: UserToken | null = null,
): Promise<SignedIn> {
  await rateLimit(ctx, `subject:${provider}:${who.subject}`);
  const { user, created } = await userOf(ctx, provider, who);
  if (githubToken) await keepGitHubUserToken(ctx, user.id, who.subject, githubToken);
  const joiner: Joiner = {
    db: ctx.db,
    clock: ctx.clock,
    pepper: ctx.gateway.pepper,
    principal: null,
    invalidateAuth: () => ctx.gateway.auth.invalidate(),
  };
  let joinedOrg: string | null = null;
  if (invitation) {
    try {
      joinedOrg = (await acceptInvitation(joiner, user, invitation)).org.name;
    } catch (err) {
      const refusal = err instanceof ApiError ? INVITATION_REFUSALS[err.code] : undefined;
      if (err instanceof ApiError && err.code === 'already_member') joinedOrg = null;
      else if (refusal) throw new SignInRefused(refusal);
      else throw err;
    }
  }
  if (created) await autoJoin(joiner, user);
  // The session acts as a login token made for it, which ends when the session's absolute expiry does.
  const now = ctx.clock.now();
  const token = await mintCredential(ctx.db, ctx.gateway.pepper, now, {
    kind: 'login_token',
    name: `sign-in (${provider})`,
    userId: user.id,
    expiresAt: now + ctx.config.dashboardMaxDays * 86_400_000,
  });
  const session = await startSession(ctx, user.id, token.id);
  if (!session) {
    await revokeCredential(ctx.db, token.id, 'login_token', ctx.clock.now());
    throw new SignInRefused('no-org');
  }
  return { session, joinedOrg };
}
