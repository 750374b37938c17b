import { createRoute } from '@tanstack/react-router';
import { factoryRoute } from '../factory/route';
import { sessionQuery } from './query';
import { SessionPage } from './SessionPage';

export const sessionRoute = createRoute({
  getParentRoute: () => factoryRoute,
  path: 'sessions/$traceId',
  validateSearch: (s: Record<string, unknown>): { view?: 'timeline' } => (s.view === 'timeline' ? { view: 'timeline' } : {}),
  loader: ({ context, params }) => context.queryClient.ensureQueryData(sessionQuery(params.appId, params.traceId)),
  component: SessionPage,
});
