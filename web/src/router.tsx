// The route tree. Each page exports its route from web/src/pages/<page>/route.tsx; this file only assembles
// them. To add a page: create its folder, export its route (parent: factoryRoute for a factory page), and
// add it below.
import { QueryClient } from '@tanstack/react-query';
import { createRouter } from '@tanstack/react-router';
import { rootRoute } from './pages/root';
import { signInRoute } from './pages/sign-in/route';
import { shellRoute } from './pages/shell/route';
import { factoriesRoute } from './pages/factories/route';
import { factoryRoute } from './pages/factory/route';
import { overviewRoute } from './pages/overview/route';
import { sessionsRoute } from './pages/sessions/route';
import { sessionRoute } from './pages/session/route';
import { prsRoute } from './pages/prs/route';
import { prRoute } from './pages/pr/route';
import { artifactRoute } from './pages/artifact/route';
import { ErrorView, Loading, NotFound } from './ui/states';

export const routeTree = rootRoute.addChildren([
  signInRoute,
  shellRoute.addChildren([
    factoriesRoute,
    artifactRoute,
    factoryRoute.addChildren([overviewRoute, sessionsRoute, sessionRoute, prsRoute, prRoute]),
  ]),
]);

export function makeRouter(queryClient: QueryClient) {
  return createRouter({
    routeTree,
    context: { queryClient },
    defaultPreload: 'intent',
    defaultPreloadStaleTime: 0,
    defaultPendingComponent: Loading,
    defaultErrorComponent: ErrorView,
    defaultNotFoundComponent: () => <NotFound />,
    scrollRestoration: true,
  });
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof makeRouter>;
  }
}
