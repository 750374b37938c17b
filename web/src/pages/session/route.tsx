import { createRoute } from '@tanstack/react-router';
import { factoryRoute } from '../factory/route';
import { sessionQuery } from './query';
import { SessionPage } from './SessionPage';

export const sessionRoute = createRoute({
  getParentRoute: () => factoryRoute,
  path: 'sessions/$traceId',
  validateSearch: (s: Record<string, unknown>): { view?: 'timeline' | 'verification' } =>
    s.view === 'timeline' || s.view === 'verification' ? { view: s.view } : {},
  loader: ({ context, params }) => context.queryClient.ensureQueryData(sessionQuery(params.appId, params.traceId)),
  component: SessionPage,
});
