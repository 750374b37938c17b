// Which factories a webhook delivery belongs to: every factory that connected the repository through the
// same App installation (a repository may be connected by several factories; each gets its own PR state).
// A repository-level webhook (not the App's) carries no installation; the repository name decides then.
import type { RequestContext } from '../../server/context.js';
import { factoriesConnectedTo } from '../repositories/service.js';
import type { FactoryRef } from '../prs/state.js';

export function factoriesForRepository(
  ctx: RequestContext,
  fullName: string,
  installationId: number | null,
): Promise<FactoryRef[]> {
  return factoriesConnectedTo(ctx, fullName, installationId);
}
