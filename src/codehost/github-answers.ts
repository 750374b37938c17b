// What the GitHub REST API answers, as the gateway keeps it (pull requests, comments, tokens), and how its
// failures are classified: every failure worth retrying (5xx, 429, a secondary rate limit, a network error
// or timeout) becomes 503 github_unavailable with Retry-After (API.md §7).
import { apiError, ApiError } from '../server/errors.js';

/** Retry-After when GitHub failed without saying how long to wait. */
export const DEFAULT_RETRY_AFTER_S = { failure: 5, rateLimit: 60 } as const;

export type PullRequestWrite = 'granted' | 'pending' | 'missing';

export interface InstallationToken {
  token: string;
  expiresAt: number;
  /** What the installation has granted (GitHub's permissions object of the token, e.g. pull_requests: write). */
  permissions: Record<string, string>;
}

export interface RepositoryInfo {
  id: number;
  fullName: string;
  defaultBranch: string;
}

export interface PullRequestRef {
  number: number;
  url: string;
}

/** A pull request as GitHub answered a create or an update (what a pull_request webhook would carry). */
export interface PullRequestSnapshot extends PullRequestRef {
  title: string;
  body: string | null;
  author: string | null;
  headRef: string;
  headSha: string;
  baseRef: string;
  open: boolean;
  merged: boolean;
  createdAt: number;
  updatedAt: number;
  closedAt: number | null;
  mergedAt: number | null;
}

export interface PullRequestAnswer {
  number: number;
  html_url: string;
  title: string;
  body?: string | null;
  user: { login: string } | null;
  head: { ref: string; sha: string };
  base: { ref: string };
  state: string;
  merged?: boolean;
  merged_at: string | null;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
}

export function instant(iso: string | null): number | null {
  return iso === null ? null : Date.parse(iso);
}

export function snapshotOf(data: PullRequestAnswer): PullRequestSnapshot {
  return {
    number: data.number,
    url: data.html_url,
    title: data.title,
    body: data.body ?? null,
    author: data.user?.login ?? null,
    headRef: data.head.ref,
    headSha: data.head.sha,
    baseRef: data.base.ref,
    open: data.state === 'open',
    merged: Boolean(data.merged ?? data.merged_at),
    createdAt: Date.parse(data.created_at),
    updatedAt: Date.parse(data.updated_at),
    closedAt: instant(data.closed_at),
    mergedAt: instant(data.merged_at),
  };
}

/** The parts of an Octokit RequestError this module reads. */
export interface GitHubHttpError {
  status: number;
  message: string;
  response?: { headers?: Record<string, string | number | undefined>; data?: unknown };
}

export function isHttpError(err: unknown): err is GitHubHttpError {
  return typeof err === 'object' && err !== null && typeof (err as { status?: unknown }).status === 'number';
}

export function headerNumber(err: GitHubHttpError, name: string): number | null {
  const raw = err.response?.headers?.[name];
  if (raw === undefined || raw === '') return null;
  const n = Number(raw);
  return Number.isFinite(n) ? n : null;
}

export function unavailable(message: string, retryAfterS: number): ApiError {
  const seconds = String(Math.max(1, Math.ceil(retryAfterS)));
  return apiError('github_unavailable', message, {}, { 'Retry-After': seconds });
}

/**
 * A GitHub failure the caller should retry later, as the 503 it becomes; null when the answer is a real
 * answer (404, 422, ...) that the caller interprets.
 */
export function retryableFailure(err: unknown, nowMs: number): ApiError | null {
  if (err instanceof ApiError) return err;
  if (!isHttpError(err)) {
    // Octokit reports fetch failures as status 500; what else reaches here from the wire (a body cut
    // off mid-read, a timeout) is a network failure too. Anything else is not GitHub's doing.
    return isNetworkFailure(err)
      ? unavailable('The code host could not be reached; safe to retry.', DEFAULT_RETRY_AFTER_S.failure)
      : null;
  }
  const retryAfter = headerNumber(err, 'retry-after');
  const remaining = headerNumber(err, 'x-ratelimit-remaining');
  const reset = headerNumber(err, 'x-ratelimit-reset');
  const resetIn = reset !== null ? reset - nowMs / 1000 : null;
  const rateLimited =
    err.status === 429 ||
    (err.status === 403 && (remaining === 0 || retryAfter !== null || /rate limit/i.test(err.message)));
  if (rateLimited) {
    return unavailable(
      'The code host is rate limiting the App; safe to retry.',
      retryAfter ?? (resetIn !== null && resetIn > 0 ? resetIn : DEFAULT_RETRY_AFTER_S.rateLimit),
    );
  }
  if (err.status >= 500) {
    // Octokit reports network failures and aborted (timed out) requests as status 500 too.
    return unavailable('The code host failed to answer; safe to retry.', retryAfter ?? DEFAULT_RETRY_AFTER_S.failure);
  }
  return null;
}

export function isNetworkFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (['AbortError', 'TimeoutError', 'FetchError'].includes(err.name)) return true;
  if (err.name === 'TypeError' && 'cause' in err) return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_\w+)$/.test(code)) return true;
  return /fetch failed|terminated|socket hang up|other side closed/i.test(err.message);
}

/** A 404 (or 451, blocked for legal reasons) means "not there for this App". */
export function isNotFound(err: unknown): boolean {
  return isHttpError(err) && (err.status === 404 || err.status === 451);
}

/** GitHub's refusal of a write the installation does not cover ("Resource not accessible by integration"). */
export function isNotAccessible(err: unknown): boolean {
  return isHttpError(err) && err.status === 403;
}

export function errorMessages(err: GitHubHttpError): string {
  const data = err.response?.data as
    | { message?: unknown; errors?: Array<{ message?: unknown; code?: unknown; field?: unknown }> }
    | undefined;
  const parts = [String(data?.message ?? err.message)];
  for (const e of data?.errors ?? [])
    parts.push([e.message, e.code, e.field].filter((x) => typeof x === 'string').join(' '));
  return parts.join(' | ');
}

/** A comment on an issue or pull request, as the gateway needs it. */
export interface IssueComment {
  id: number;
  url: string;
  body: string;
  /** The login of who wrote it (our App: `<slug>[bot]`). */
  author: string | null;
  authorType: string | null;
}

export interface IssueCommentAnswer {
  id: number;
  html_url: string;
  body?: string;
  user: { login: string; type?: string } | null;
}

export function commentOf(c: IssueCommentAnswer): IssueComment {
  return {
    id: c.id,
    url: c.html_url,
    body: c.body ?? '',
    author: c.user?.login ?? null,
    authorType: c.user?.type ?? null,
  };
}
