// Account: reads about the person behind a login token, across every org they belong to.
import type { RequestContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import type { MyFactory } from '../apps/schema.js';
import { factoriesOfUser } from '../apps/service.js';
import type { JoinedOrg } from '../orgs/schema.js';
import * as invitations from '../orgs/invitations.js';
import { requireUser } from '../orgs/service.js';
import type { MyLoginToken } from './schema.js';
import * as store from './store.js';

export async function myFactories(ctx: RequestContext): Promise<MyFactory[]> {
  const kind = ctx.principal?.kind;
  const userId = kind === 'login_token' || kind === 'dashboard_session' ? (ctx.principal?.userId ?? null) : null;
  if (!userId) throw apiError('internal_error', 'route is missing its login-token guard');
  return factoriesOfUser(ctx.db, userId);
}

export async function acceptInvitation(ctx: RequestContext, token: string): Promise<JoinedOrg> {
  const kind = ctx.principal?.kind;
  const userId = kind === 'login_token' || kind === 'dashboard_session' ? (ctx.principal?.userId ?? null) : null;
  if (!userId) throw apiError('internal_error', 'route is missing its login-token guard');
  const user = await requireUser(ctx.db, userId);
  return invitations.acceptInvitation(
    {
      db: ctx.db,
      clock: ctx.clock,
      pepper: ctx.gateway.pepper,
      principal: ctx.principal,
      invalidateAuth: () => ctx.gateway.auth.invalidate(),
    },
    user,
    token,
  );
}

/** The caller's user and the login token the call is made with (itself, or the one behind the session). */
function ownerOf(ctx: RequestContext): { userId: string; tokenId: string } {
  const p = ctx.principal;
  if (p?.kind === 'login_token' && p.userId) return { userId: p.userId, tokenId: p.credentialId };
  if (p?.kind === 'dashboard_session' && p.userId && p.parentId) return { userId: p.userId, tokenId: p.parentId };
  throw apiError('internal_error', 'route is missing its login-token guard');
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export async function myLoginTokens(ctx: RequestContext): Promise<MyLoginToken[]> {
  const { userId, tokenId } = ownerOf(ctx);
  const [tokens, sessions] = await Promise.all([
    store.liveLoginTokens(ctx.db, userId, ctx.clock.now()),
    store.sessionUseByToken(ctx.db, userId),
  ]);
  const sessionUse = new Map(
    sessions.map((s) => [s.parent_id, s.last_used_at === null ? null : Number(s.last_used_at)]),
  );
  return tokens.map((t) => {
    const own = t.last_used_at;
    const viaSession = sessionUse.get(t.id) ?? null;
    const last = own === null ? viaSession : viaSession === null ? own : Math.max(own, viaSession);
    return {
      id: t.id,
      name: t.name,
      prefix: t.prefix,
      createdAt: new Date(t.created_at).toISOString(),
      lastUsedAt: iso(last),
      expiresAt: iso(t.expires_at),
      current: t.id === tokenId,
    };
  });
}

/** Revokes one of the caller's own login tokens (and so every dashboard session made from it). */
export async function revokeMyLoginToken(ctx: RequestContext, id: string): Promise<void> {
  const { userId } = ownerOf(ctx);
  if (!(await store.revokeOwnLoginToken(ctx.db, userId, id, ctx.clock.now())))
    throw apiError('login_token_not_found', 'You have no live login token with this id.');
  ctx.gateway.auth.invalidate();
}
