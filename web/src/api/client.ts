// The one way the dashboard talks to the gateway: openapi-fetch over the types generated from the gateway's
// own OpenAPI document (web/scripts/gen-api.ts). Same origin, the session cookie, and the header that marks
// a request as the dashboard's own (the guard refuses a cookie-authorized write without it).
import createClient from 'openapi-fetch';
import type { paths } from './schema';

export type { paths };

export const api = createClient<paths>({
  baseUrl: '',
  credentials: 'same-origin',
  headers: { 'X-Attest-Dashboard': '1' },
});

/** One problem of a refused request body: the field's dotted path (`name`, `runner_updates.version`) and what is wrong. */
export interface ApiErrorDetail {
  path: string;
  message: string;
}

/** The gateway's error envelope as a thrown value: status, code, the message the API wrote and its field details. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details: readonly ApiErrorDetail[] = []) {
    super(message);
    this.name = 'ApiError';
  }
}

function detailsOf(raw: unknown): ApiErrorDetail[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((d: unknown) => {
    const o = (d ?? {}) as { path?: unknown; message?: unknown };
    return typeof o.path === 'string' && typeof o.message === 'string' ? [{ path: o.path, message: o.message }] : [];
  });
}

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** A non-2xx answer as an ApiError (for routes without a body to unwrap, e.g. a 204 DELETE). */
export function toApiError(error: unknown, response: Response): ApiError {
  const env = (error ?? {}) as { error?: { code?: unknown; message?: unknown; details?: unknown } };
  const code = typeof env.error?.code === 'string' ? env.error.code : `http_${response.status}`;
  const message = typeof env.error?.message === 'string' ? env.error.message : response.statusText || 'Request failed';
  return new ApiError(response.status, code, message, detailsOf(env.error?.details));
}

/** `{ data }` → data; an error envelope (or any non-2xx) → a thrown ApiError. */
export async function unwrap<T>(p: Promise<FetchResult<T>>): Promise<T> {
  const { data, error, response } = await p;
  if (!response.ok || data === undefined) throw toApiError(error, response);
  return data;
}

/** The header that names the factory on factory routes. */
export function factory(appId: string): { headers: { 'X-Outerlayer-App-Id': string } } {
  return { headers: { 'X-Outerlayer-App-Id': appId } };
}

/** Where a media element loads an artifact's bytes: same origin, the cookie, the factory in the query. */
export function artifactContentUrl(artifactId: string, appId: string): string {
  return `/v1/artifacts/${encodeURIComponent(artifactId)}/content?appId=${encodeURIComponent(appId)}`;
}
