// /o/$org: the organization page. Its plan and your role (GET /v1/orgs/{org}), its members, and for owners
// and admins the audit log. Sections and controls follow the permissions the API says the caller has; the
// routes refuse a forced request anyway. An org you are not a member of is "not found" (the API answers 403
// for any other org, existing or not, so the page cannot and does not tell them apart).
import { createRoute, lazyRouteComponent, notFound } from '@tanstack/react-router';
import { shellRoute } from '../shell/route';
import { ApiClientError } from '../../api/client';
import { factoriesQuery } from '../../api/queries';
import { NotFound } from '../../ui/states';
import { membersQuery, orgQuery, parseAuditSearch } from './query';

export const orgRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: 'o/$org',
  validateSearch: parseAuditSearch,
  loader: async ({ context, params }) => {
    try {
      await context.queryClient.ensureQueryData(orgQuery(params.org));
    } catch (err) {
      if (err instanceof ApiClientError && (err.status === 403 || err.status === 404)) throw notFound();
      throw err;
    }
    await Promise.all([
      context.queryClient.ensureQueryData(membersQuery(params.org)),
      context.queryClient.ensureQueryData(factoriesQuery),
    ]);
  },
  notFoundComponent: () => <NotFound what="There is no organization here that you are a member of." />,
  // Its own chunk: most visits are to factory pages and never load it.
  component: lazyRouteComponent(() => import('./OrgPage'), 'OrgPage'),
});
