import { queryOptions } from '@tanstack/react-query';
import { api, factory, unwrap, type paths } from '../../api/client';

export type PrDetail =
  paths['/v1/prs/{owner}/{repo}/{number}']['get']['responses']['200']['content']['application/json']['data'];

export const prQuery = (appId: string, owner: string, repo: string, number: number) =>
  queryOptions({
    queryKey: ['pr', appId, owner, repo, number],
    queryFn: () =>
      unwrap(
        api.GET('/v1/prs/{owner}/{repo}/{number}', { params: { path: { owner, repo, number } }, ...factory(appId) }),
      ).then((r) => r.data),
  });

export const workItemQuery = (appId: string, id: string) =>
  queryOptions({
    queryKey: ['work-item', appId, id],
    queryFn: async () => {
      const [item, criteria, findings] = await Promise.all([
        unwrap(api.GET('/v1/work-items/{id}', { params: { path: { id } }, ...factory(appId) })).then((r) => r.data),
        unwrap(api.GET('/v1/work-items/{id}/criteria', { params: { path: { id } }, ...factory(appId) })).then(
          (r) => r.data,
        ),
        unwrap(
          api.GET('/v1/work-items/{id}/findings', {
            params: { path: { id }, query: { limit: 100 } },
            ...factory(appId),
          }),
        ),
      ]);
      return { item, criteria, findings };
    },
  });

/** The pull request's evidence as a file. */
export function exportPr(appId: string, owner: string, repo: string, number: number, format: 'csv' | 'json') {
  return api.GET('/v1/prs/{owner}/{repo}/{number}/export', {
    params: { path: { owner, repo, number }, query: { format } },
    parseAs: 'blob',
    ...factory(appId),
  });
}

export type PrVerdict =
  paths['/v1/prs/{owner}/{repo}/{number}/verdict']['get']['responses']['200']['content']['application/json']['data'];

export const verdictQuery = (appId: string, owner: string, repo: string, number: number) =>
  queryOptions({
    queryKey: ['pr', appId, owner, repo, number, 'verdict'],
    queryFn: () =>
      unwrap(
        api.GET('/v1/prs/{owner}/{repo}/{number}/verdict', {
          params: { path: { owner, repo, number } },
          ...factory(appId),
        }),
      ).then((r) => r.data),
  });
