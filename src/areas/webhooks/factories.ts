// Which factories a webhook delivery belongs to: every factory that connected the repository through the
// same App installation (a repository may be connected by several factories; each gets its own PR state).
//
// INTERIM: the repositories area (src/areas/repositories/) exposes per-factory reads only
// (findConnectedRepository(ctx, fullName) needs the factory already known). Until it exports a lookup
// across factories, this one read of its `repositories` table lives here, behind this single function,
// so replacing it with `repositories/service.ts` is a one-line change. See docs/metrics-prs-context.md.
import type { RequestContext } from '../../server/context.js';
import type { FactoryRef } from '../prs/state.js';

export async function factoriesForRepository(ctx: RequestContext, fullName: string, installationId: number | null): Promise<FactoryRef[]> {
  let q = ctx.db
    .selectFrom('repositories')
    .innerJoin('apps', 'apps.id', 'repositories.app_id')
    .select(['repositories.org_id as orgId', 'repositories.app_id as appId'])
    .where('repositories.full_name_key', '=', fullName.toLowerCase())
    .where('apps.deleted_at', 'is', null);
  // A repository-level webhook (not the App's) carries no installation; the repository name decides then.
  if (installationId !== null) q = q.where('repositories.installation_id', '=', installationId);
  return q.orderBy('repositories.app_id').execute();
}
