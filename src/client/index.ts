// The typed API client of the Attest gateway (fetch-based), shared by the CLI and the tests. Every request
// sends Authorization, X-Outerlayer-App-Id (when a factory is known) and X-Outerlayer-Runner-Version; every
// error answer becomes an ApiClientError carrying the envelope's code, message and Retry-After.
import { VERSION } from '../version.js';
import type { AgentSessionV1 } from '../capture/types.js';
import type { ArtifactInput } from '../areas/artifacts/service.js';
import { ApiClientError, parseRetryAfter } from './errors.js';

export { ApiClientError, parseRetryAfter } from './errors.js';

export interface ClientOptions {
  /** Gateway base URL, e.g. http://127.0.0.1:8787 */
  url: string;
  /** Bearer credential: factory key (sk_), login token (olu_), item key (oli_), ... */
  token?: string;
  /** Factory id sent as X-Outerlayer-App-Id. */
  appId?: string;
  /** Sent as X-Outerlayer-Runner-Version; defaults to this package's version. */
  runnerVersion?: string;
  /** Abort a request after this long (default 60 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  /** Use this credential instead of the client's (an item key for claim routes). */
  token?: string;
  /** false: leave the factory header out (routes that take none). */
  appId?: string | false;
}

export interface ApiResponse<T> {
  status: number;
  data: T;
  /** The whole body (data plus pagination, ...). */
  body: Record<string, unknown>;
  headers: Headers;
}

// ---- wire shapes (the parts the CLI reads; the gateway may send more) ----

export interface SyncBody {
  schemaVersion: 1;
  sessions: AgentSessionV1[];
  blobs?: { sha256: string; data: string; mediaType?: string }[];
}
export interface SyncResult {
  /** ids of the sessions stored (a re-send is idempotent). */
  accepted: string[];
  rejected: { index: number; id: string | null; reason: string }[];
  blobsStored: number;
  rejectedBlobs?: { index: number; sha256: string | null; reason: string }[];
  tenantTier?: string;
}

export interface Claim {
  id: string;
  source: string;
  branch: string | null;
  claimedAt: string;
  expiresAt: string;
}
export interface WorkItem {
  id: string;
  number: number;
  tracker: string;
  trackerKey: string;
  title: string;
  stage: string;
  section: string;
  blockClass: string;
  claim: Claim | null;
  startable: boolean;
  repository?: string | null;
  [k: string]: unknown;
}
export interface PullRequestResult {
  repository: string;
  number: number;
  url: string;
  created: boolean;
}
export interface Artifact {
  id: string;
  clientArtifactId: string;
  kind: string;
  filename: string;
  mediaType: string;
  bytes: number;
  sha256: string;
  url: string;
  [k: string]: unknown;
}
/** One check of a pull request (GET /v1/emitted-results): its latest result and the earlier ones. */
export interface EmittedCheck {
  id: string;
  name: string;
  result: 'pass' | 'fail';
  link: string;
  repository: string;
  prNumber: number;
  headSha: string | null;
  emittedAt: string;
  history: Omit<EmittedCheck, 'history'>[];
  [k: string]: unknown;
}
/** The body of POST /v1/artifacts: the artifact as the gateway takes it (API.md §6) and its bytes. */
export interface ArtifactBody {
  schemaVersion: 1;
  artifact: ArtifactInput;
  blob: { data: string };
}
export interface EmitBody {
  schemaVersion: 1;
  emit: {
    clientEmitId: string;
    name: string;
    result: 'pass' | 'fail';
    link: string;
    emittedAt: string;
    prNumber: number;
    repository: string;
    headSha?: string;
    ci?: Record<string, unknown>;
  };
}
export interface HeartbeatBody {
  hostId: string;
  name: string;
  runnerVersion: string;
  capacity: number;
  activeJobs: number;
  labels?: string[];
}
export interface Factory {
  id: string;
  name: string;
  display_name?: string;
  org: { id: string; name: string };
  role: string;
}

export class AttestClient {
  readonly url: string;
  readonly appId: string | undefined;
  private readonly token: string | undefined;
  private readonly runnerVersion: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(opts: ClientOptions) {
    this.url = opts.url.replace(/\/+$/, '');
    this.token = opts.token;
    this.appId = opts.appId;
    this.runnerVersion = opts.runnerVersion ?? VERSION;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.fetchImpl = opts.fetch ?? fetch;
  }

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    const url = new URL(this.url + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json', 'x-outerlayer-runner-version': this.runnerVersion };
    const token = opts.token ?? this.token;
    if (token) headers.authorization = `Bearer ${token}`;
    const appId = opts.appId === false ? undefined : (opts.appId ?? this.appId);
    if (appId) headers['x-outerlayer-app-id'] = appId;
    let payload: string | undefined;
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(opts.body);
    }
    let res: Response;
    try {
      res = await this.fetchImpl(url, { method, headers, body: payload, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : err instanceof Error ? err.message : String(err);
      const refused = !timedOut && isConnectionRefused(err);
      throw new ApiClientError({
        status: 0,
        code: timedOut ? 'timeout' : refused ? 'connection_refused' : 'network_error',
        message: timedOut
          ? `No answer from ${this.url} within ${this.timeoutMs} ms`
          : refused
            ? `Nothing is listening at ${this.url} (connection refused)`
            : `Cannot reach the gateway at ${this.url}: ${cause}`,
        method,
        path,
        cause: err,
      });
    }
    const text = await res.text();
    let body: unknown = undefined;
    if (text.length > 0) {
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        body = undefined;
      }
    }
    if (!res.ok) throw toError(res, body, text, method, path);
    const obj = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
    return { status: res.status, data: obj.data as T, body: obj, headers: res.headers };
  }

  // ---- account ----
  async myFactories(): Promise<Factory[]> {
    return (await this.request<Factory[]>('GET', '/v1/me/factories', { appId: false })).data;
  }

  // ---- sessions ----
  async syncSessions(body: SyncBody): Promise<SyncResult> {
    return (await this.request<SyncResult>('POST', '/v1/agents/sync', { body })).data;
  }
  async listSessions(query: Record<string, string | number | boolean | undefined> = {}): Promise<ApiResponse<unknown>> {
    return this.request<unknown>('GET', '/v1/sessions', { query });
  }
  async getSession(traceId: string): Promise<unknown> {
    return (await this.request<unknown>('GET', `/v1/sessions/${encodeURIComponent(traceId)}`)).data;
  }

  // ---- evidence ----
  async createArtifact(body: ArtifactBody): Promise<Artifact> {
    return (await this.request<Artifact>('POST', '/v1/artifacts', { body })).data;
  }
  async emitResult(body: EmitBody): Promise<Record<string, unknown>> {
    return (await this.request<Record<string, unknown>>('POST', '/v1/emitted-results', { body })).data;
  }
  async listPullRequestArtifacts(repository: string, prNumber: number): Promise<Artifact[]> {
    return (await this.request<Artifact[]>('GET', '/v1/artifacts', { query: { repository, prNumber } })).data;
  }
  async listWorkItemArtifacts(workItem: string): Promise<{ artifacts: Artifact[]; truncated: boolean }> {
    const res = await this.request<Artifact[]>('GET', `/v1/work-items/${encodeURIComponent(workItem)}/artifacts`);
    return { artifacts: res.data, truncated: Boolean((res.body.pagination as { truncated?: boolean } | undefined)?.truncated) };
  }
  async listEmittedResults(repository: string, prNumber: number): Promise<EmittedCheck[]> {
    return (await this.request<EmittedCheck[]>('GET', '/v1/emitted-results', { query: { repository, prNumber } })).data;
  }
  async workItemPullRequests(workItem: string): Promise<{ repository: string; number: number; url: string; linkedAt: string }[]> {
    return (await this.request<{ repository: string; number: number; url: string; linkedAt: string }[]>('GET', `/v1/work-items/${encodeURIComponent(workItem)}/pull-requests`)).data;
  }

  // ---- work ----
  async listWorkItems(cursor?: string): Promise<{ items: WorkItem[]; cursor: string | null }> {
    const res = await this.request<WorkItem[]>('GET', '/v1/work-items', { query: { cursor } });
    const pagination = (res.body.pagination ?? {}) as { cursor?: string | null };
    return { items: res.data, cursor: pagination.cursor ?? null };
  }
  async getWorkItem(id: string): Promise<WorkItem> {
    return (await this.request<WorkItem>('GET', `/v1/work-items/${encodeURIComponent(id)}`)).data;
  }
  async claimWorkItem(id: string, body: { source: string; branch: string; ttlSeconds?: number }): Promise<{ claim: Claim; itemKey: string }> {
    return (await this.request<{ claim: Claim; itemKey: string }>('POST', `/v1/work-items/${encodeURIComponent(id)}/claims`, { body })).data;
  }
  async renewClaim(id: string, itemKey: string): Promise<{ claim: Claim }> {
    return (await this.request<{ claim: Claim }>('PUT', `/v1/work-items/${encodeURIComponent(id)}/claims/current`, { token: itemKey })).data;
  }
  async releaseClaim(id: string, itemKey?: string): Promise<void> {
    await this.request<void>('DELETE', `/v1/work-items/${encodeURIComponent(id)}/claims/current`, itemKey ? { token: itemKey } : {});
  }
  async putPullRequest(id: string, itemKey: string, body: { title: string; body: string }): Promise<{ status: number; pr: PullRequestResult }> {
    const res = await this.request<PullRequestResult>('PUT', `/v1/work-items/${encodeURIComponent(id)}/pull-request`, { token: itemKey, body });
    return { status: res.status, pr: res.data };
  }

  // ---- hosts ----
  async heartbeat(body: HeartbeatBody): Promise<Record<string, unknown>> {
    return (await this.request<Record<string, unknown>>('POST', '/v1/hosts/heartbeat', { body })).data;
  }
}

/** fetch's failure when nothing listens on the port: ECONNREFUSED on the cause (or on every address tried). */
function isConnectionRefused(err: unknown): boolean {
  const cause = err instanceof Error ? (err.cause as { code?: unknown; errors?: { code?: unknown }[] } | undefined) : undefined;
  if (!cause) return false;
  if (cause.code === 'ECONNREFUSED') return true;
  return Array.isArray(cause.errors) && cause.errors.length > 0 && cause.errors.every((e) => e?.code === 'ECONNREFUSED');
}

function toError(res: Response, body: unknown, text: string, method: string, path: string): ApiClientError {
  const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
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
  return new ApiClientError({
    status: res.status,
    code: 'invalid_response',
    message: `${method} ${path} answered ${res.status} without an error envelope${text ? `: ${text.slice(0, 200)}` : ''}`,
    ...(retryAfter !== undefined ? { retryAfter } : {}),
    method,
    path,
  });
}
