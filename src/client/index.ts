// The CLI's view of the API client: the generated, typed client of ./api.ts with the CLI's credential, factory
// and version on every request (Authorization, X-Outerlayer-App-Id when a factory is known,
// X-Outerlayer-Runner-Version) and a 60 s timeout, plus the few calls the commands share. Request and answer
// types all come from the OpenAPI document (./openapi.d.ts); nothing here spells a wire shape by hand.
import { VERSION } from '../version.js';
import { APP_HEADER, RUNNER_HEADER, createApi, unwrap, type Api, type paths } from './api.js';

export { ApiClientError, parseRetryAfter } from './errors.js';
export { createApi, unwrap, type Api, type paths } from './api.js';

export interface ClientOptions {
  /** Gateway base URL, e.g. http://127.0.0.1:8787 */
  url: string;
  /** Bearer credential: factory key (sk_), login token (olu_), item key (oli_), admin token (ola_), ... */
  token?: string;
  /** Factory id sent as X-Outerlayer-App-Id. */
  appId?: string;
  /** Sent as X-Outerlayer-Runner-Version; defaults to this package's version. */
  runnerVersion?: string;
  /** Abort a request after this long (default 60 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** The JSON body of a route's answer with this status. */
export type Answer<P extends keyof paths, M extends keyof paths[P], S extends number = 200> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer B } } };
}
  ? B
  : never;
/** The JSON request body of a route. */
export type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

export type SyncBody = Body<'/v1/agents/sync', 'post'>;
export type SyncResult = Answer<'/v1/agents/sync', 'post'>['data'];
/** A work item as the list gives it (the read of one item adds fields). */
export type WorkItem = Answer<'/v1/work-items', 'get'>['data'][number];
export type Factory = Answer<'/v1/me/factories', 'get'>['data'][number];
export type SessionList = Answer<'/v1/sessions', 'get'>['data'];
export type SessionsQuery = NonNullable<paths['/v1/sessions']['get']['parameters']['query']>;

/** Request options that leave the factory header out (routes that take none). */
const NO_FACTORY = { headers: { [APP_HEADER]: null } };
/** Request options that send `token` instead of the client's credential (an item key on the claim routes). */
function as(token: string) {
  return { headers: { authorization: `Bearer ${token}` } };
}

export class AttestClient {
  readonly url: string;
  readonly appId: string | undefined;
  /** The typed client, for the calls without a helper below. */
  readonly api: Api;

  constructor(opts: ClientOptions) {
    this.url = opts.url.replace(/\/+$/, '');
    this.appId = opts.appId;
    const headers: Record<string, string> = {
      accept: 'application/json',
      [RUNNER_HEADER]: opts.runnerVersion ?? VERSION,
    };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.appId) headers[APP_HEADER] = opts.appId;
    this.api = createApi({
      baseUrl: this.url,
      headers,
      timeoutMs: opts.timeoutMs ?? 60_000,
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
    });
  }

  // ---- account ----
  async myFactories(): Promise<Factory[]> {
    return (await unwrap(this.api.GET('/v1/me/factories', NO_FACTORY))).data;
  }
  /** `attest login` through the browser: a loopback code and its PKCE verifier → a login token. */
  async exchangeCliLoginCode(body: Body<'/v1/cli-login/token', 'post'>) {
    return (await unwrap(this.api.POST('/v1/cli-login/token', { ...NO_FACTORY, body }))).data;
  }
  async startDeviceLogin(clientName: string) {
    return (await unwrap(this.api.POST('/v1/cli-login/device', { ...NO_FACTORY, body: { clientName } }))).data;
  }
  /** One poll; throws ApiClientError `authorization_pending`, `slow_down`, ... until the code is confirmed. */
  async pollDeviceLogin(deviceCode: string) {
    return (await unwrap(this.api.POST('/v1/cli-login/device/token', { ...NO_FACTORY, body: { deviceCode } }))).data;
  }
  async createDashboardLink() {
    return (await unwrap(this.api.POST('/v1/me/dashboard-links', NO_FACTORY))).data;
  }
  async getFactory(appId: string) {
    return (await unwrap(this.api.GET('/v1/apps/{appId}', { params: { path: { appId } } }))).data;
  }

  // ---- sessions ----
  async syncSessions(body: SyncBody): Promise<SyncResult> {
    return (await unwrap(this.api.POST('/v1/agents/sync', { body }))).data;
  }
  async reportSyncFailures(failures: Body<'/v1/agents/sync-failures', 'post'>['failures']) {
    return (await unwrap(this.api.POST('/v1/agents/sync-failures', { body: { failures } }))).data;
  }
  /** The whole answer (`data` with the page and its facets). */
  async listSessions(query: SessionsQuery = {}) {
    return unwrap(this.api.GET('/v1/sessions', { params: { query } }));
  }
  async getSession(traceId: string) {
    return (await unwrap(this.api.GET('/v1/sessions/{traceId}', { params: { path: { traceId } } }))).data;
  }

  // ---- evidence ----
  async createArtifact(body: Body<'/v1/artifacts', 'post'>) {
    return (await unwrap(this.api.POST('/v1/artifacts', { body }))).data;
  }
  async emitResult(body: Body<'/v1/emitted-results', 'post'>) {
    return (await unwrap(this.api.POST('/v1/emitted-results', { body }))).data;
  }
  async listPullRequestArtifacts(repository: string, prNumber: number) {
    return (await unwrap(this.api.GET('/v1/artifacts', { params: { query: { repository, prNumber } } }))).data;
  }
  async listWorkItemArtifacts(workItem: string) {
    const res = await unwrap(this.api.GET('/v1/work-items/{id}/artifacts', { params: { path: { id: workItem } } }));
    return { artifacts: res.data, truncated: res.pagination.truncated };
  }
  async listEmittedResults(repository: string, prNumber: number) {
    return (await unwrap(this.api.GET('/v1/emitted-results', { params: { query: { repository, prNumber } } }))).data;
  }
  async workItemPullRequests(workItem: string) {
    return (await unwrap(this.api.GET('/v1/work-items/{id}/pull-requests', { params: { path: { id: workItem } } })))
      .data;
  }

  // ---- work ----
  async listWorkItems(cursor?: string): Promise<{ items: WorkItem[]; cursor: string | null }> {
    const res = await unwrap(this.api.GET('/v1/work-items', { params: { query: { cursor } } }));
    return { items: res.data, cursor: res.pagination.cursor ?? null };
  }
  async getWorkItem(id: string) {
    return (await unwrap(this.api.GET('/v1/work-items/{id}', { params: { path: { id } } }))).data;
  }
  async claimWorkItem(id: string, body: Body<'/v1/work-items/{id}/claims', 'post'>) {
    return (await unwrap(this.api.POST('/v1/work-items/{id}/claims', { params: { path: { id } }, body }))).data;
  }
  async renewClaim(id: string, itemKey: string) {
    return (
      await unwrap(this.api.PUT('/v1/work-items/{id}/claims/current', { params: { path: { id } }, ...as(itemKey) }))
    ).data;
  }
  async releaseClaim(id: string, itemKey?: string): Promise<void> {
    await this.api.DELETE('/v1/work-items/{id}/claims/current', {
      params: { path: { id } },
      ...(itemKey ? as(itemKey) : {}),
    });
  }
  async putPullRequest(
    workItemId: string,
    itemKey: string,
    body: Body<'/v1/work-items/{workItemId}/pull-request', 'put'>,
  ) {
    const res = await this.api.PUT('/v1/work-items/{workItemId}/pull-request', {
      params: { path: { workItemId } },
      body,
      ...as(itemKey),
    });
    return { status: res.response.status, pr: (await unwrap(Promise.resolve(res))).data };
  }

  // ---- hosts ----
  async heartbeat(body: Body<'/v1/hosts/heartbeat', 'post'>) {
    return (await unwrap(this.api.POST('/v1/hosts/heartbeat', { body }))).data;
  }
}
