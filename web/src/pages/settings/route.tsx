// /f/$appId/settings: the factory's settings. API keys, connected repositories and the factory itself, each
// with the controls the caller's permissions allow (GET /v1/orgs/{org}: a member's role in the organization
// is their role in each of its factories). Hidden controls are a courtesy; the API refuses the same requests.
import { createRoute, lazyRouteComponent, notFound } from '@tanstack/react-router';
import { factoryRoute } from '../factory/route';
import { factoriesQuery } from '../../api/queries';
import { factorySettingsQuery, parseSettingsSearch } from './query';
import { orgQuery } from '../org/query';

export const settingsRoute = createRoute({
  getParentRoute: () => factoryRoute,
  path: 'settings',
  validateSearch: parseSettingsSearch,
  loader: async ({ context, params }) => {
    const factories = await context.queryClient.ensureQueryData(factoriesQuery);
    const factory = factories.find((f) => f.id === params.appId);
    if (!factory) throw notFound();
    const [access] = await Promise.all([
      context.queryClient.ensureQueryData(orgQuery(factory.org.name)),
      context.queryClient.ensureQueryData(factorySettingsQuery(params.appId)),
    ]);
    return { orgName: factory.org.name, access };
  },
  // A page visited rarely: its forms load with it, not with the first page (the initial JS budget).
  component: lazyRouteComponent(() => import('./SettingsPage')),
});
