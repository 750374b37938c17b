// /f/$appId/sessions: the filters are the URL's search params, named as GET /v1/sessions' query.
import { createRoute } from '@tanstack/react-router';
import { factoryRoute } from '../factory/route';
import { parseSessionsSearch, sessionsQuery } from './query';
import { SessionsPage } from './SessionsPage';

export const sessionsRoute = createRoute({
  getParentRoute: () => factoryRoute,
  path: 'sessions',
  validateSearch: parseSessionsSearch,
  loaderDeps: ({ search }) => search,
  loader: ({ context, params, deps }) => context.queryClient.ensureQueryData(sessionsQuery(params.appId, deps)),
  component: SessionsPage,
});
