// `/f/$appId`: the frame of one factory's pages. A factory the user cannot read is "not found".
import { Outlet, createRoute, notFound } from '@tanstack/react-router';
import { shellRoute } from '../shell/route';
import { factoriesQuery } from '../../api/queries';

export const factoryRoute = createRoute({
  getParentRoute: () => shellRoute,
  path: 'f/$appId',
  loader: async ({ context, params }) => {
    const factories = await context.queryClient.ensureQueryData(factoriesQuery);
    const factory = factories.find((f) => f.id === params.appId);
    if (!factory) throw notFound();
    return { factory };
  },
  component: Outlet,
});
