// The dashboard sign-in: the one private part of the API the dashboard uses (DASHBOARD-CONTRACT.md).
import { queryOptions } from '@tanstack/react-query';
import { ApiError } from './client';

export interface DashboardUser {
  id: string;
  email: string;
  name: string;
}
export interface DashboardSession {
  user: DashboardUser;
  expiresAt: string;
}

const HEADERS = { 'X-Attest-Dashboard': '1' } as const;

async function call<T>(method: string, path: string, body?: unknown): Promise<T | null> {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? HEADERS : { ...HEADERS, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status === 204) return null;
  const json = (await res.json().catch(() => null)) as { data?: T; error?: { code?: string; message?: string } } | null;
  if (!res.ok || !json?.data) {
    throw new ApiError(res.status, json?.error?.code ?? `http_${res.status}`, json?.error?.message ?? res.statusText);
  }
  return json.data;
}

/** Who is signed in, or null when nobody is (401). */
export const currentSessionQuery = queryOptions({
  queryKey: ['dashboard-session'],
  queryFn: async (): Promise<DashboardSession | null> => {
    try {
      return await call<DashboardSession>('GET', '/v1/dashboard/session');
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return null;
      throw err;
    }
  },
  staleTime: 60_000,
});

export async function signInWithToken(loginToken: string): Promise<DashboardSession> {
  const s = await call<DashboardSession>('POST', '/v1/dashboard/session', { loginToken });
  if (!s) throw new ApiError(500, 'internal', 'The gateway answered without a session');
  return s;
}

export async function signOut(): Promise<void> {
  await call('DELETE', '/v1/dashboard/session');
}
