// Reads shared by several pages. A page's own reads live in its folder (query.ts).
import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from './client';

export const factoriesQuery = queryOptions({
  queryKey: ['me', 'factories'],
  queryFn: () => unwrap(api.GET('/v1/me/factories')).then((r) => r.data),
  staleTime: 60_000,
});
