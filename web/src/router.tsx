// The route tree. Each page exports its route from web/src/pages/<page>/route.tsx; this file only assembles
// them. To add a page: create its folder, export its route (parent: factoryRoute for a factory page), and
// add it below.
import type { QueryClient } from '@tanstack/react-query';
import { createRouter } from '@tanstack/react-router';
import { rootRoute } from './pages/root';
import { signInRoute } from './pages/sign-in/route';
import { inviteRoute } from './pages/invite/route';
import { shellRoute } from './pages/shell/route';
import { factoriesRoute } from './pages/factories/route';
import { factoryRoute } from './pages/factory/route';
import { overviewRoute } from './pages/overview/route';
import { sessionsRoute } from './pages/sessions/route';
import { sessionRoute } from './pages/session/route';
import { prsRoute } from './pages/prs/route';
import { prRoute } from './pages/pr/route';
import { artifactRoute } from './pages/artifact/route';
import { orgRoute } from './pages/org/route';
import { workRoute } from './pages/work/route';
import { workItemRoute } from './pages/work-item/route';
import { hostsRoute } from './pages/hosts/route';
import { budgetsRoute } from './pages/budgets/route';
import { settingsRoute } from './pages/settings/route';
import { cliLoginRoute } from './pages/cli-login/route';
import { deviceRoute } from './pages/device/route';
import { tokensRoute } from './pages/tokens/route';
import { turnOfHash } from './pages/session/turnAnchor';
import { ErrorView, Loading, NotFound } from './ui/states';

export const routeTree = rootRoute.addChildren([
  signInRoute,
  inviteRoute,
  shellRoute.addChildren([
    factoriesRoute,
    artifactRoute,
    orgRoute,
    cliLoginRoute,
    deviceRoute,
    tokensRoute,
    factoryRoute.addChildren([
      overviewRoute,
      sessionsRoute,
      sessionRoute,
      prsRoute,
      prRoute,
      workRoute,
      workItemRoute,
      hostsRoute,
      budgetsRoute,
      settingsRoute,
    ]),
  ]),
]);

/**
 * Plain query strings: every search value is a string as GET /v1/sessions takes it (`?includeSubagents=1`,
 * not the router's default JSON `?includeSubagents=%221%22`), so a page URL reads like the API call it makes.
 * Each page's validateSearch turns the strings into what it needs.
 */
function parseSearch(search: string): Record<string, unknown> {
  return Object.fromEntries(new URLSearchParams(search));
}
function stringifySearch(search: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(search)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const q = params.toString();
  return q ? `?${q}` : '';
}

export function makeRouter(queryClient: QueryClient) {
  return createRouter({
    routeTree,
    parseSearch,
    stringifySearch,
    context: { queryClient },
    defaultPreload: 'intent',
    defaultPreloadStaleTime: 0,
    defaultPendingComponent: Loading,
    defaultErrorComponent: ErrorView,
    defaultNotFoundComponent: () => <NotFound />,
    // A `#turn-N` location is scrolled by the session page itself (the virtualized transcript brings the turn
    // in); restoring the transcript box's previous offset after that would undo it.
    scrollRestoration: ({ location }) => turnOfHash(location.hash) === null,
  });
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof makeRouter>;
  }
}
