// Account: reads about the person behind a login token, across every org they belong to.
import type { RequestContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import type { MyFactory } from '../apps/schema.js';
import { factoriesOfUser } from '../apps/service.js';
import type { JoinedOrg } from '../orgs/schema.js';
import * as invitations from '../orgs/invitations.js';
import { requireUser } from '../orgs/service.js';

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
