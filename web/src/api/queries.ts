// Reads shared by several pages. A page's own reads live in its folder (query.ts).
import { queryOptions } from '@tanstack/react-query';
import { api, factory, unwrap } from './client';

export const factoriesQuery = queryOptions({
  queryKey: ['me', 'factories'],
  queryFn: () => unwrap(api.GET('/v1/me/factories')).then((r) => r.data),
  staleTime: 60_000,
});

/** The factory's budgets with their current period (the budgets page, and the Overview's factory budget). */
export const budgetsQuery = (appId: string) =>
  queryOptions({
    queryKey: ['budgets', appId],
    queryFn: () => unwrap(api.GET('/v1/budgets', factory(appId))).then((r) => r.data),
    retry: false,
  });
