// The dashboard sign-in: the one private part of the API the dashboard uses (DASHBOARD-CONTRACT.md).
import { queryOptions } from '@tanstack/react-query';
import { ApiClientError, api, unwrap, type paths } from './client';

export type DashboardSession =
  paths['/v1/dashboard/session']['get']['responses']['200']['content']['application/json']['data'];
export type DashboardUser = DashboardSession['user'];

/** Who is signed in, or null when nobody is (401). */
export const currentSessionQuery = queryOptions({
  queryKey: ['dashboard-session'],
  queryFn: async (): Promise<DashboardSession | null> => {
    try {
      return (await unwrap(api.GET('/v1/dashboard/session'))).data;
    } catch (err) {
      if (err instanceof ApiClientError && err.status === 401) return null;
      throw err;
    }
  },
  staleTime: 60_000,
});

export async function signInWithToken(loginToken: string): Promise<DashboardSession> {
  return (await unwrap(api.POST('/v1/dashboard/session', { body: { loginToken } }))).data;
}

export async function signOut(): Promise<void> {
  await api.DELETE('/v1/dashboard/session');
}

/** The identity providers the gateway signs in with (a button each). */
export const providersQuery = queryOptions({
  queryKey: ['sign-in-providers'],
  queryFn: async () => (await unwrap(api.GET('/v1/sign-in/providers'))).data,
  staleTime: 300_000,
});

/** Accepts an invitation as the signed-in user; the org it joined. */
export async function acceptInvitation(token: string) {
  return (await unwrap(api.POST('/v1/invitations/accept', { body: { token } }))).data;
}
