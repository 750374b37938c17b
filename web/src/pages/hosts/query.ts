import { queryOptions } from '@tanstack/react-query';
import { api, factory, unwrap, type paths } from '../../api/client';

export type Host = paths['/v1/hosts']['get']['responses']['200']['content']['application/json']['data'][number];

/** How often the open page asks again: runners heartbeat every 30 s or so, and status moves at 90 s and 10 min. */
export const HOSTS_REFRESH_MS = 5_000;

export const hostsQuery = (appId: string) =>
  queryOptions({
    queryKey: ['hosts', appId],
    queryFn: () => unwrap(api.GET('/v1/hosts', factory(appId))).then((r) => r.data),
    refetchInterval: HOSTS_REFRESH_MS,
  });
