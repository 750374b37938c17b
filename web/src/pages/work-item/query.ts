// Reads of one work item's page: the item (its 404 is the page's), then each section on its own, so a
// section the caller may not read (findings.read, artifacts.read) says so without hiding the rest.
import { queryOptions } from '@tanstack/react-query';
import { api, factory, unwrap, type paths } from '../../api/client';

type Json<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer B } } } };
}
  ? B
  : never;
export type WorkItem = Json<'/v1/work-items/{id}'>['data'];
export type Finding = Json<'/v1/work-items/{id}/findings'>['data'][number];
export type ItemArtifact = Json<'/v1/work-items/{id}/artifacts'>['data'][number];
export type ClaimHistoryEntry = Json<'/v1/work-items/{id}/claims'>['data'][number];

const path = (id: string) => ({ path: { id } });

export const itemQuery = (appId: string, id: string) =>
  queryOptions({
    queryKey: ['work-item', appId, id, 'item'],
    queryFn: () => unwrap(api.GET('/v1/work-items/{id}', { params: path(id), ...factory(appId) })).then((r) => r.data),
    refetchInterval: 10_000,
  });

export const criteriaQuery = (appId: string, id: string) =>
  queryOptions({
    queryKey: ['work-item', appId, id, 'criteria'],
    queryFn: () =>
      unwrap(api.GET('/v1/work-items/{id}/criteria', { params: path(id), ...factory(appId) })).then((r) => r.data),
  });

/** Every finding (the API pages them 100 at a time, oldest first; the page groups them by severity). */
export const findingsQuery = (appId: string, id: string) =>
  queryOptions({
    queryKey: ['work-item', appId, id, 'findings'],
    queryFn: async () => {
      const all: Finding[] = [];
      for (let offset = 0; offset <= 10_000; offset += 100) {
        const r = await unwrap(
          api.GET('/v1/work-items/{id}/findings', {
            params: { path: { id }, query: { limit: 100, offset } },
            ...factory(appId),
          }),
        );
        all.push(...r.data);
        if (offset + r.data.length >= r.pagination.total || r.data.length === 0)
          return { findings: all, total: r.pagination.total };
      }
      return { findings: all, total: all.length };
    },
  });

export const pullRequestsQuery = (appId: string, id: string) =>
  queryOptions({
    queryKey: ['work-item', appId, id, 'pull-requests'],
    queryFn: () =>
      unwrap(api.GET('/v1/work-items/{id}/pull-requests', { params: path(id), ...factory(appId) })).then((r) => r.data),
  });

export const artifactsQuery = (appId: string, id: string) =>
  queryOptions({
    queryKey: ['work-item', appId, id, 'artifacts'],
    queryFn: () => unwrap(api.GET('/v1/work-items/{id}/artifacts', { params: path(id), ...factory(appId) })),
  });

export const claimsQuery = (appId: string, id: string) =>
  queryOptions({
    queryKey: ['work-item', appId, id, 'claims'],
    queryFn: () =>
      unwrap(
        api.GET('/v1/work-items/{id}/claims', { params: { path: { id }, query: { limit: 100 } }, ...factory(appId) }),
      ),
    refetchInterval: 10_000,
  });
