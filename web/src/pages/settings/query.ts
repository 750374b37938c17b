// Reads and writes of the settings page: the factory (GET/PATCH /v1/apps/{appId}), its API keys, its
// connected repositories and the GitHub App installations bound to it. What the caller may do is the organization
// page's orgQuery (GET /v1/orgs/{org}).
import { queryOptions } from '@tanstack/react-query';
import { api, factory, unwrap, type paths } from '../../api/client';

type CreateKeyBody = paths['/v1/api-keys']['post']['requestBody']['content']['application/json'];
/** The documented permission set (API.md §3), as the create-key route's schema names it. */
export type Permission = NonNullable<CreateKeyBody['permissions']>[number];
export type KeyPreset = NonNullable<CreateKeyBody['preset']>;
export type UpdateFactoryBody = paths['/v1/apps/{appId}']['patch']['requestBody']['content']['application/json'];
export type ApiKey = paths['/v1/api-keys']['get']['responses'][200]['content']['application/json']['data'][number];
export type CreatedKey = paths['/v1/api-keys']['post']['responses'][201]['content']['application/json']['data'];
export type Factory = paths['/v1/apps/{appId}']['get']['responses'][200]['content']['application/json']['data'];
export type Repository =
  paths['/v1/repositories']['get']['responses'][200]['content']['application/json']['data'][number];
export type Installation =
  paths['/v1/github/installations']['get']['responses'][200]['content']['application/json']['data'][number];
export type ConnectBody = paths['/v1/repositories']['post']['requestBody']['content']['application/json'];
export type Unbound =
  paths['/v1/github/installations/{installationId}']['delete']['responses'][200]['content']['application/json']['data'];

export const factorySettingsQuery = (appId: string) =>
  queryOptions({
    queryKey: ['app', appId],
    queryFn: () =>
      unwrap(api.GET('/v1/apps/{appId}', { params: { path: { appId } }, ...factory(appId) })).then((r) => r.data),
  });

export const apiKeysQuery = (appId: string) =>
  queryOptions({
    queryKey: ['api-keys', appId],
    queryFn: () =>
      unwrap(api.GET('/v1/api-keys', { params: { query: { limit: 500 } }, ...factory(appId) })).then((r) => r.data),
  });

export const repositoriesQuery = (appId: string) =>
  queryOptions({
    queryKey: ['repositories', appId],
    queryFn: () => unwrap(api.GET('/v1/repositories', factory(appId))).then((r) => r.data),
    // Read live from GitHub on every call: no retries on a refusal, GitHub's limits are shared.
    retry: false,
  });

export async function createKey(appId: string, body: CreateKeyBody): Promise<CreatedKey> {
  return (await unwrap(api.POST('/v1/api-keys', { body, ...factory(appId) }))).data;
}

export async function revokeKey(appId: string, id: string): Promise<void> {
  await api.DELETE('/v1/api-keys/{id}', { params: { path: { id } }, ...factory(appId) });
}

export async function updateFactory(appId: string, body: UpdateFactoryBody): Promise<Factory> {
  return (await unwrap(api.PATCH('/v1/apps/{appId}', { params: { path: { appId } }, body, ...factory(appId) }))).data;
}

export const installationsQuery = (appId: string) =>
  queryOptions({
    queryKey: ['installations', appId],
    queryFn: () => unwrap(api.GET('/v1/github/installations', factory(appId))).then((r) => r.data),
  });

export async function unbindInstallation(appId: string, installationId: number): Promise<Unbound> {
  return (
    await unwrap(
      api.DELETE('/v1/github/installations/{installationId}', {
        params: { path: { installationId } },
        ...factory(appId),
      }),
    )
  ).data;
}

/** The App's install page on GitHub with a state signed for this factory and the signed-in person. */
export async function installLink(appId: string): Promise<string> {
  return (await unwrap(api.POST('/v1/github/install-links', factory(appId)))).data.url;
}

/** `?installed=<id>`: the setup URL sent the browser here after binding that installation. */
export interface SettingsSearch {
  installed?: number;
}

export function parseSettingsSearch(s: Record<string, unknown>): SettingsSearch {
  const installed = typeof s.installed === 'number' ? s.installed : Number(s.installed);
  return Number.isSafeInteger(installed) && installed > 0 ? { installed } : {};
}

export async function connectRepository(appId: string, body: ConnectBody): Promise<Repository> {
  return (await unwrap(api.POST('/v1/repositories', { body, ...factory(appId) }))).data;
}

export async function disconnectRepository(appId: string, repository: string): Promise<void> {
  const [owner = '', repo = ''] = repository.split('/');
  await api.DELETE('/v1/repositories/{owner}/{repo}', { params: { path: { owner, repo } }, ...factory(appId) });
}
