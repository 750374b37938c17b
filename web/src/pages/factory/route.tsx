// `/f/$appId`: the frame of one factory's pages. A factory the user cannot read is "not found".
import { Outlet, createRoute, notFound, redirect } from '@tanstack/react-router';
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

/** `/f/$appId` itself: the factory home (part 2); until it exists, the sessions page. */
export const factoryIndexRoute = createRoute({
  getParentRoute: () => factoryRoute,
  path: '/',
  beforeLoad: ({ params }) => {
    throw redirect({ to: '/f/$appId/sessions', params });
  },
});
