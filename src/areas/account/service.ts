// Account: reads about the person behind a login token, across every org they belong to.
import type { RequestContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import type { MyFactory } from '../apps/schema.js';
import { factoriesOfUser } from '../apps/service.js';

export async function myFactories(ctx: RequestContext): Promise<MyFactory[]> {
  const kind = ctx.principal?.kind;
  const userId = kind === 'login_token' || kind === 'dashboard_session' ? (ctx.principal?.userId ?? null) : null;
  if (!userId) throw apiError('internal_error', 'route is missing its login-token guard');
  return factoriesOfUser(ctx.db, userId);
}
