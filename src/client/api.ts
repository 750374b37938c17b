// The one HTTP client of the gateway's API, shared by the CLI and the dashboard: openapi-fetch over the types
// generated from the gateway's own OpenAPI document (web/scripts/gen-api.ts writes ./openapi.d.ts), so paths,
// parameters, bodies and answers are checked against the route schemas at build time. It is the only module
// that sends requests; it runs in Node and in the browser alike (no Node imports here).
//
// Every non-2xx answer and every transport failure (nothing listening, timeout) is thrown as one
// ApiClientError, so a caller never handles `{ error }` by hand: `unwrap` gives the body of a 2xx.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { ApiClientError, parseRetryAfter } from './errors.js';
import type { paths } from './openapi.js';

export type { paths, components } from './openapi.js';

/** The header the dashboard sends on every request; the guard refuses a cookie-authorized write without it. */
export const DASHBOARD_HEADER = 'X-Attest-Dashboard';
/** The factory a request acts on. */
export const APP_HEADER = 'X-Outerlayer-App-Id';
/** The client's version, checked against the gateway's minimum. */
export const RUNNER_HEADER = 'X-Outerlayer-Runner-Version';

export type Api = Client<paths>;

export interface ApiOptions {
  /** Gateway base URL, e.g. http://127.0.0.1:8787; '' for the page's own origin. */
  baseUrl: string;
  headers?: Record<string, string>;
  /** 'same-origin' for the dashboard's cookie. */
  credentials?: RequestInit['credentials'];
  /** Abort a request after this long (none by default). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** The header that names the factory on factory routes, as a request option. */
export function factory(appId: string): { headers: Record<string, string> } {
  return { headers: { [APP_HEADER]: appId } };
}

/** A typed client of the gateway at `baseUrl` that throws ApiClientError for every failure. */
export function createApi(opts: ApiOptions): Api {
  const baseUrl = opts.baseUrl.replace(/\/+$/, '');
  const fetchImpl = opts.fetch ?? globalThis.fetch;
  const timeoutMs = opts.timeoutMs;
  const api = createClient<paths>({
    baseUrl,
    ...(opts.headers ? { headers: opts.headers } : {}),
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
    fetch: (request: Request) =>
      timeoutMs === undefined ? fetchImpl(request) : fetchImpl(request, { signal: AbortSignal.timeout(timeoutMs) }),
  });
  api.use(throwingMiddleware(baseUrl || 'this origin', timeoutMs));
  return api;
}

/** What a 2xx answered, or (for a 2xx without a body where one was expected) an invalid_response error. */
export async function unwrap<T>(p: Promise<{ data?: T; response: Response }>): Promise<T> {
  const { data, response } = await p;
  if (data === undefined) {
    const request = requestOf.get(response);
    const method = request?.method ?? 'GET';
    const path = pathOf(request?.url ?? response.url);
    throw new ApiClientError({
      status: response.status,
      code: 'invalid_response',
      message: `${method} ${path} answered ${response.status} without a body`,
      method,
      path,
    });
  }
  return data;
}

/** The request of each answer, so an error found after the answer still names what was asked. */
const requestOf = new WeakMap<Response, Request>();

function pathOf(url: string): string {
  try {
    return new URL(url, 'http://x').pathname;
  } catch {
    return url;
  }
}

function throwingMiddleware(target: string, timeoutMs: number | undefined): Middleware {
  return {
    async onResponse({ request, response }) {
      requestOf.set(response, request);
      if (response.ok) return undefined;
      const text = await response.text();
      throw errorOfAnswer(response, text, request.method, pathOf(request.url));
    },
    onError({ request, error }) {
      return transportError(error, target, timeoutMs, request.method, pathOf(request.url));
    },
  };
}

function errorOfAnswer(res: Response, text: string, method: string, path: string): ApiClientError {
  const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
  let body: unknown;
  try {
    body = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const envelope = body !== null && typeof body === 'object' ? (body as { error?: unknown }).error : undefined;
  if (envelope !== null && typeof envelope === 'object') {
    const { code, message, ...extra } = envelope as Record<string, unknown>;
    return new ApiClientError({
      status: res.status,
      code: typeof code === 'string' ? code : `http_${res.status}`,
      message: typeof message === 'string' ? message : `${method} ${path} answered ${res.status}`,
      ...(retryAfter !== undefined ? { retryAfter } : {}),
      extra,
      method,
      path,
    });
  }
  const excerpt = text ? `: ${text.slice(0, 200)}` : '';
  return new ApiClientError({
    status: res.status,
    code: 'invalid_response',
    message: `${method} ${path} answered ${res.status} without an error envelope${excerpt}`,
    ...(retryAfter !== undefined ? { retryAfter } : {}),
    method,
    path,
  });
}

function transportError(
  err: unknown,
  target: string,
  timeoutMs: number | undefined,
  method: string,
  path: string,
): ApiClientError {
  if (err instanceof ApiClientError) return err;
  const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
  const refused = !timedOut && isConnectionRefused(err);
  const cause =
    err instanceof Error && err.cause instanceof Error
      ? err.cause.message
      : err instanceof Error
        ? err.message
        : String(err);
  return new ApiClientError({
    status: 0,
    code: timedOut ? 'timeout' : refused ? 'connection_refused' : 'network_error',
    message: timedOut
      ? `No answer from ${target}${timeoutMs === undefined ? '' : ` within ${timeoutMs} ms`}`
      : refused
        ? `Nothing is listening at ${target} (connection refused)`
        : `Cannot reach the gateway at ${target}: ${cause}`,
    method,
    path,
    cause: err,
  });
}

/** fetch's failure when nothing listens on the port: ECONNREFUSED on the cause (or on every address tried). */
function isConnectionRefused(err: unknown): boolean {
  const cause =
    err instanceof Error ? (err.cause as { code?: unknown; errors?: { code?: unknown }[] } | undefined) : undefined;
  if (!cause) return false;
  if (cause.code === 'ECONNREFUSED') return true;
  return (
    Array.isArray(cause.errors) && cause.errors.length > 0 && cause.errors.every((e) => e?.code === 'ECONNREFUSED')
  );
}
