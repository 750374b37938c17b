// The dashboard's instance of the one API client (src/client/api.ts, shared with the CLI): openapi-fetch over
// the types generated from the gateway's own OpenAPI document. Same origin, the session cookie, and the header
// that marks a request as the dashboard's own (the guard refuses a cookie-authorized write without it). Pages
// call `api` only; nothing in web/src calls fetch itself.
import { DASHBOARD_HEADER, createApi } from '../../../src/client/api.js';

export { ApiClientError, type ApiErrorDetail } from '../../../src/client/errors.js';
export { factory, unwrap, type paths } from '../../../src/client/api.js';

export const api = createApi({ baseUrl: '', credentials: 'same-origin', headers: { [DASHBOARD_HEADER]: '1' } });

/** Where a media element loads an artifact's bytes: same origin, the cookie, the factory in the query. */
export function artifactContentUrl(artifactId: string, appId: string): string {
  return `/v1/artifacts/${encodeURIComponent(artifactId)}/content?appId=${encodeURIComponent(appId)}`;
}
