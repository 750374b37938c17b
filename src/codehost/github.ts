// The gateway acting as a GitHub App (API.md §7): an app JWT for app-level routes, an installation token
// (cached until shortly before it expires) for repository routes, and only public GitHub REST routes.
// Every failure of the code host that is worth retrying (5xx, 429, a secondary rate limit, a network error
// or timeout) becomes 503 github_unavailable with Retry-After; a gateway without an App answers 503
// repository_tokens_unavailable. Other GitHub answers (404, 422) are returned to the caller as values.
import type { createAppAuth } from '@octokit/auth-app';
import type { Octokit } from '@octokit/rest';
import type { Clock } from '../server/clock.js';
import type { Config } from '../server/config.js';
import type { Gateway } from '../server/context.js';
import { apiError, ApiError } from '../server/errors.js';

/** A cached token is replaced this long before GitHub says it expires, so no call races the expiry. */
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60_000;
/** One GitHub call may take this long before it counts as a network failure. */
const REQUEST_TIMEOUT_MS = 15_000;
/** Retry-After when GitHub failed without saying how long to wait. */
const DEFAULT_RETRY_AFTER_S = { failure: 5, rateLimit: 60 } as const;

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

interface PullRequestAnswer {
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

function instant(iso: string | null): number | null {
  return iso === null ? null : Date.parse(iso);
}

function snapshotOf(data: PullRequestAnswer): PullRequestSnapshot {
  return {
    number: data.number, url: data.html_url, title: data.title, body: data.body ?? null, author: data.user?.login ?? null,
    headRef: data.head.ref, headSha: data.head.sha, baseRef: data.base.ref, open: data.state === 'open',
    merged: Boolean(data.merged ?? data.merged_at), createdAt: Date.parse(data.created_at), updatedAt: Date.parse(data.updated_at),
    closedAt: instant(data.closed_at), mergedAt: instant(data.merged_at),
  };
}

/** The parts of an Octokit RequestError this module reads. */
interface GitHubHttpError {
  status: number;
  message: string;
  response?: { headers?: Record<string, string | number | undefined>; data?: unknown };
}

function isHttpError(err: unknown): err is GitHubHttpError {
  return typeof err === 'object' && err !== null && typeof (err as { status?: unknown }).status === 'number';
}

function headerNumber(err: GitHubHttpError, name: string): number | null {
  const raw = err.response?.headers?.[name];
  if (raw === undefined || raw === '') return null;
  const n = Number(raw);
  return Number.isFinite(n) ? n : null;
}

function unavailable(message: string, retryAfterS: number): ApiError {
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
    return isNetworkFailure(err) ? unavailable('The code host could not be reached; safe to retry.', DEFAULT_RETRY_AFTER_S.failure) : null;
  }
  const retryAfter = headerNumber(err, 'retry-after');
  const remaining = headerNumber(err, 'x-ratelimit-remaining');
  const reset = headerNumber(err, 'x-ratelimit-reset');
  const resetIn = reset !== null ? reset - nowMs / 1000 : null;
  const rateLimited =
    err.status === 429 ||
    (err.status === 403 && (remaining === 0 || retryAfter !== null || /rate limit/i.test(err.message)));
  if (rateLimited) {
    return unavailable('The code host is rate limiting the App; safe to retry.', retryAfter ?? (resetIn !== null && resetIn > 0 ? resetIn : DEFAULT_RETRY_AFTER_S.rateLimit));
  }
  if (err.status >= 500) {
    // Octokit reports network failures and aborted (timed out) requests as status 500 too.
    return unavailable('The code host failed to answer; safe to retry.', retryAfter ?? DEFAULT_RETRY_AFTER_S.failure);
  }
  return null;
}

function isNetworkFailure(err: unknown): boolean {
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

function errorMessages(err: GitHubHttpError): string {
  const data = err.response?.data as { message?: unknown; errors?: Array<{ message?: unknown; code?: unknown; field?: unknown }> } | undefined;
  const parts = [String(data?.message ?? err.message)];
  for (const e of data?.errors ?? []) parts.push([e.message, e.code, e.field].filter((x) => typeof x === 'string').join(' '));
  return parts.join(' | ');
}

/** GitHub PEM keys are often pasted into env files with literal "\n"; accept both forms. */
export function normalizePrivateKey(raw: string): string {
  const trimmed = raw.trim();
  return trimmed.includes('\\n') ? trimmed.replace(/\\n/g, '\n') : trimmed;
}

/** Octokit logs every non-2xx answer; this module turns them into API errors, so it stays quiet. */
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

interface OctokitModules {
  Octokit: typeof Octokit;
  createAppAuth: typeof createAppAuth;
}

// Octokit loads on the first GitHub call, not at start-up: about 10 MB of resident memory that a gateway
// without a GitHub App (or one that is idle) never needs (docs/performance.md, Memory).
let octokitLoading: Promise<OctokitModules> | null = null;
function loadOctokit(): Promise<OctokitModules> {
  return (octokitLoading ??= Promise.all([import('@octokit/rest'), import('@octokit/auth-app')]).then(
    ([rest, auth]) => ({ Octokit: rest.Octokit, createAppAuth: auth.createAppAuth }),
    (err: unknown) => {
      octokitLoading = null;
      throw err;
    },
  ));
}

interface AppClients {
  appOctokit: Octokit;
  auth: ReturnType<typeof createAppAuth>;
}

function withTimeout(octokit: Octokit): Octokit {
  octokit.hook.before('request', (options) => {
    options.request = { ...(options.request ?? {}), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) };
  });
  return octokit;
}

/** The App, as configured for one gateway process. */
export class GitHubApp {
  private clients: Promise<AppClients> | null = null;
  private readonly tokens = new Map<number, InstallationToken>();
  private readonly pendingTokens = new Map<number, Promise<InstallationToken>>();
  /** How many installation tokens this process minted (observability and tests). */
  tokensMinted = 0;

  constructor(
    private readonly apiUrl: string,
    private readonly appId: string,
    private readonly privateKey: string,
    private readonly clock: Clock,
  ) {}

  /** The App's own client and its token minter, built on first use. */
  private appClients(): Promise<AppClients> {
    return (this.clients ??= loadOctokit().then(({ Octokit, createAppAuth }) => {
      const baseUrl = this.apiUrl.replace(/\/+$/, '');
      const auth = { appId: this.appId, privateKey: normalizePrivateKey(this.privateKey) };
      const appOctokit = withTimeout(new Octokit({ baseUrl, authStrategy: createAppAuth, auth, userAgent: 'attest-gateway', log: quiet }));
      return { appOctokit, auth: createAppAuth({ ...auth, request: appOctokit.request }) };
    }).catch((err: unknown) => {
      this.clients = null;
      throw err;
    }));
  }

  /**
   * Run one GitHub call, turning retryable failures into 503 github_unavailable. A 401 on an app call
   * means the App's id or key is wrong; on an installation call it is left to the caller (the token
   * was revoked: InstallationClient renews it).
   */
  private async call<T>(fn: () => Promise<T>, as: 'app' | 'installation' = 'app'): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      // X-RateLimit-Reset is an absolute instant on GitHub's clock: compare it with the wall clock.
      const failure = retryableFailure(err, Date.now());
      if (failure) throw failure;
      if (as === 'app' && isHttpError(err) && err.status === 401) {
        throw apiError('repository_tokens_unavailable', 'GitHub refused the App credentials (GITHUB_APP_ID / GITHUB_APP_PRIVATE_KEY).');
      }
      if (as === 'app' && !isHttpError(err)) {
        // Signing the App JWT failed before any request: the configured private key is unusable.
        throw apiError('repository_tokens_unavailable', 'The GitHub App private key (GITHUB_APP_PRIVATE_KEY) cannot sign the App JWT.');
      }
      throw err;
    }
  }

  /** The permissions the App itself requests (GET /app); an installation may not have accepted them yet. */
  async requestedPermissions(): Promise<Record<string, string>> {
    const { appOctokit } = await this.appClients();
    const { data } = await this.call(() => appOctokit.rest.apps.getAuthenticated());
    return (data?.permissions ?? {}) as Record<string, string>;
  }

  /**
   * The App's page on GitHub (GET /app `html_url`, e.g. https://github.com/apps/<slug>); its
   * `/installations/new` is where an install starts. GitHub Enterprise Server answers its own host.
   */
  async appPage(): Promise<string> {
    const { appOctokit } = await this.appClients();
    const { data } = await this.call(() => appOctokit.rest.apps.getAuthenticated());
    const page = (data as { html_url?: unknown; slug?: unknown } | null)?.html_url;
    if (typeof page === 'string' && /^https?:\/\//.test(page)) return page.replace(/\/+$/, '');
    const slug = (data as { slug?: unknown } | null)?.slug;
    return `https://github.com/apps/${typeof slug === 'string' ? slug : ''}`;
  }

  /** An installation of this App (GET /app/installations/{id}): its account login; null when it does not exist. */
  async installationAccount(installationId: number): Promise<{ account: string | null } | null> {
    try {
      const { appOctokit } = await this.appClients();
      const { data } = await this.call(() => appOctokit.rest.apps.getInstallation({ installation_id: installationId }));
      const account = (data.account as { login?: unknown } | null)?.login;
      return { account: typeof account === 'string' ? account : null };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  /** The permissions an installation has granted (GET /app/installations/{id}); null when it does not exist. */
  async installationPermissions(installationId: number): Promise<Record<string, string> | null> {
    try {
      const { appOctokit } = await this.appClients();
      const { data } = await this.call(() => appOctokit.rest.apps.getInstallation({ installation_id: installationId }));
      return (data.permissions ?? {}) as Record<string, string>;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  /**
   * An installation token, from the cache unless it is within TOKEN_REFRESH_MARGIN_MS of its expiry or
   * `fresh` is asked for. Concurrent callers share one mint. Null when the installation does not exist.
   */
  async installationToken(installationId: number, fresh = false): Promise<InstallationToken | null> {
    const cached = this.tokens.get(installationId);
    if (!fresh && cached && cached.expiresAt - TOKEN_REFRESH_MARGIN_MS > this.clock.now()) return cached;
    let pending = this.pendingTokens.get(installationId);
    if (!pending) {
      pending = this.mintToken(installationId).finally(() => this.pendingTokens.delete(installationId));
      this.pendingTokens.set(installationId, pending);
    }
    try {
      return await pending;
    } catch (err) {
      if (isNotFound(err)) {
        this.tokens.delete(installationId);
        return null;
      }
      throw err;
    }
  }

  private async mintToken(installationId: number): Promise<InstallationToken> {
    const { auth } = await this.appClients();
    const minted = await this.call(() => auth({ type: 'installation', installationId, refresh: true }));
    this.tokensMinted++;
    // GitHub states an absolute expiry in its own clock; keep the lifetime it grants, measured on ours,
    // so a skewed local clock (or a test clock) never keeps a dead token.
    const lifetimeMs = Date.parse(minted.expiresAt) - Date.now();
    const token: InstallationToken = {
      token: minted.token,
      expiresAt: this.clock.now() + lifetimeMs,
      permissions: { ...(minted.permissions as Record<string, string>) },
    };
    this.tokens.set(installationId, token);
    return token;
  }

  /** Repository routes, acting as the installation. */
  async installation(installationId: number, fresh = false): Promise<InstallationClient | null> {
    const session = await this.installationSession(installationId, fresh);
    if (!session) return null;
    return new InstallationClient(session, (fn) => this.call(fn, 'installation'), () => this.installationSession(installationId, true));
  }

  private async installationSession(installationId: number, fresh: boolean): Promise<InstallationSession | null> {
    const token = await this.installationToken(installationId, fresh);
    if (!token) return null;
    const { Octokit } = await loadOctokit();
    const octokit = withTimeout(new Octokit({ baseUrl: this.apiUrl.replace(/\/+$/, ''), auth: token.token, userAgent: 'attest-gateway', log: quiet }));
    return { octokit, token };
  }
}

/**
 * Whether the App may write the comment on a pull request: an issue comment on a pull request needs pull
 * requests write or issues write (either one; the App asks for pull requests write). Same three answers
 * as pullRequestWriteOf.
 */
export function commentWriteOf(installation: Record<string, string> | null, requested: Record<string, string>): PullRequestWrite {
  if (installation?.pull_requests === 'write' || installation?.issues === 'write') return 'granted';
  return requested.pull_requests === 'write' || requested.issues === 'write' ? 'pending' : 'missing';
}

export function pullRequestWriteOf(installation: Record<string, string> | null, requested: Record<string, string>): PullRequestWrite {
  if (installation?.pull_requests === 'write') return 'granted';
  return requested.pull_requests === 'write' ? 'pending' : 'missing';
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

interface IssueCommentAnswer {
  id: number;
  html_url: string;
  body?: string;
  user: { login: string; type?: string } | null;
}

function commentOf(c: IssueCommentAnswer): IssueComment {
  return { id: c.id, url: c.html_url, body: c.body ?? '', author: c.user?.login ?? null, authorType: c.user?.type ?? null };
}

/** Repository-level calls with one installation token. */
interface InstallationSession {
  octokit: Octokit;
  token: InstallationToken;
}

export class InstallationClient {
  private octokit: Octokit;
  private current: InstallationToken;
  private renewed = false;

  constructor(
    session: InstallationSession,
    private readonly run: <T>(fn: () => Promise<T>) => Promise<T>,
    private readonly renew: () => Promise<InstallationSession | null>,
  ) {
    this.octokit = session.octokit;
    this.current = session.token;
  }

  get token(): InstallationToken {
    return this.current;
  }

  /**
   * One call with the installation token. When GitHub no longer accepts a cached token (revoked before
   * its expiry), a fresh one is minted once and the call repeated; the calls read `this.octokit` when
   * they run, so the repeat carries the new token.
   */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await this.run(fn);
    } catch (err) {
      if (!isHttpError(err) || err.status !== 401) throw err;
      if (this.renewed) throw unavailable('GitHub refused a freshly minted installation token; safe to retry.', DEFAULT_RETRY_AFTER_S.failure);
      this.renewed = true;
      const session = await this.renew();
      if (!session) throw apiError('repository_not_in_installation', 'The App installation no longer exists.');
      this.octokit = session.octokit;
      this.current = session.token;
      return this.call(fn);
    }
  }

  /** One call of another module's GitHub route (github-verdict.ts) with this token and its renewal rule. */
  request<T>(fn: (octokit: Octokit) => Promise<T>): Promise<T> {
    return this.call(() => fn(this.octokit));
  }

  get pullRequestWrite(): boolean {
    return this.current.permissions.pull_requests === 'write';
  }

  /** Whether the installation lists the repository (GET /installation/repositories, every page). */
  /**
   * The repositories the installation lists (GET /installation/repositories, every page), by lower-cased
   * `owner/repo`. This, not GET /repos/{owner}/{repo}, says whether the installation includes a
   * repository: an installation token can read any public repository.
   */
  async listRepositories(): Promise<Map<string, RepositoryInfo>> {
    const repos = await this.call(() =>
      this.octokit.paginate(this.octokit.rest.apps.listReposAccessibleToInstallation, { per_page: 100 }),
    );
    return new Map(repos.map((r) => [r.full_name.toLowerCase(), { id: r.id, fullName: r.full_name, defaultBranch: r.default_branch }]));
  }

  /** The repository as the installation sees it; null when the installation cannot see it. */
  async repository(owner: string, repo: string): Promise<RepositoryInfo | null> {
    try {
      const { data } = await this.call(() => this.octokit.rest.repos.get({ owner, repo }));
      return { id: data.id, fullName: data.full_name, defaultBranch: data.default_branch };
    } catch (err) {
      if (isNotFound(err) || (isHttpError(err) && err.status === 403)) return null;
      throw err;
    }
  }

  /** The branch's head sha; null when the branch is not on the remote. */
  async branchHead(owner: string, repo: string, branch: string): Promise<string | null> {
    try {
      const { data } = await this.call(() => this.octokit.rest.repos.getBranch({ owner, repo, branch }));
      return data.commit.sha;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  /** How many commits `head` has that `base` lacks. */
  async aheadBy(owner: string, repo: string, base: string, head: string): Promise<number> {
    const { data } = await this.call(() =>
      this.octokit.rest.repos.compareCommitsWithBasehead({ owner, repo, basehead: `${base}...${head}`, per_page: 1 }),
    );
    return data.ahead_by;
  }

  /**
   * Whether the branch requires a pull request: a `pull_request` branch rule (rulesets, readable with
   * metadata permission) or classic protection with required reviews (readable only with administration
   * permission; when the App cannot read it, the rules alone decide).
   */
  async requiresPullRequest(owner: string, repo: string, branch: string): Promise<boolean> {
    const { data: rules } = await this.call(() => this.octokit.rest.repos.getBranchRules({ owner, repo, branch, per_page: 100 }));
    if (rules.some((r) => r.type === 'pull_request')) return true;
    try {
      const { data } = await this.call(() => this.octokit.rest.repos.getBranchProtection({ owner, repo, branch }));
      return Boolean(data.required_pull_request_reviews);
    } catch (err) {
      if (isHttpError(err) && (err.status === 404 || err.status === 403)) return false;
      throw err;
    }
  }

  /** The open pull request whose head is `branch` of this repository, if any (whoever opened it). */
  async openPullRequest(owner: string, repo: string, branch: string): Promise<PullRequestRef | null> {
    const { data } = await this.call(() =>
      this.octokit.rest.pulls.list({ owner, repo, state: 'open', head: `${owner}:${branch}`, per_page: 100 }),
    );
    // GitHub filters by head already; checking again keeps a fork's same-named branch out.
    const mine = data.find((p) => p.head.ref === branch && (p.head.repo?.full_name ?? '').toLowerCase() === `${owner}/${repo}`.toLowerCase());
    return mine ? { number: mine.number, url: mine.html_url } : null;
  }

  /**
   * Open a pull request. Returns 'exists' when GitHub says one is already open for the branch (a retried
   * or concurrent call won the race), 'no_commits' when GitHub finds nothing to merge, 'no_branch' when it
   * does not know the head.
   */
  async createPullRequest(
    owner: string, repo: string, input: { head: string; base: string; title: string; body: string },
  ): Promise<PullRequestSnapshot | 'exists' | 'no_commits' | 'no_branch' | 'not_accessible'> {
    try {
      const { data } = await this.call(() => this.octokit.rest.pulls.create({ owner, repo, ...input }));
      return snapshotOf(data);
    } catch (err) {
      if (isNotAccessible(err)) return 'not_accessible';
      if (isHttpError(err) && err.status === 422) {
        const text = errorMessages(err);
        if (/already exists/i.test(text)) return 'exists';
        if (/no commits between/i.test(text)) return 'no_commits';
        if (/head|invalid/i.test(text)) return 'no_branch';
      }
      throw err;
    }
  }

  /**
   * Every comment on an issue or pull request, oldest first (GET .../issues/{n}/comments, every page).
   * 'not_found' when the pull request does not exist or the installation cannot see it.
   */
  async listIssueComments(owner: string, repo: string, number: number): Promise<IssueComment[] | 'not_found' | 'not_accessible'> {
    try {
      const comments = await this.call(() =>
        this.octokit.paginate(this.octokit.rest.issues.listComments, { owner, repo, issue_number: number, per_page: 100 }),
      );
      return comments.map((c) => commentOf(c as IssueCommentAnswer));
    } catch (err) {
      if (isNotFound(err) || (isHttpError(err) && err.status === 410)) return 'not_found';
      if (isNotAccessible(err)) return 'not_accessible';
      throw err;
    }
  }

  /** Comment on an issue or pull request (POST .../issues/{n}/comments). */
  async createIssueComment(owner: string, repo: string, number: number, body: string): Promise<IssueComment | 'not_found' | 'not_accessible'> {
    try {
      const { data } = await this.call(() => this.octokit.rest.issues.createComment({ owner, repo, issue_number: number, body }));
      return commentOf(data as IssueCommentAnswer);
    } catch (err) {
      if (isNotFound(err) || (isHttpError(err) && err.status === 410)) return 'not_found';
      if (isNotAccessible(err)) return 'not_accessible';
      throw err;
    }
  }

  /** Replace a comment's body (PATCH .../issues/comments/{id}); 'not_found' when it was deleted. */
  async updateIssueComment(owner: string, repo: string, commentId: number, body: string): Promise<IssueComment | 'not_found' | 'not_accessible'> {
    try {
      const { data } = await this.call(() => this.octokit.rest.issues.updateComment({ owner, repo, comment_id: commentId, body }));
      return commentOf(data as IssueCommentAnswer);
    } catch (err) {
      if (isNotFound(err)) return 'not_found';
      if (isNotAccessible(err)) return 'not_accessible';
      throw err;
    }
  }

  /** Delete a comment (a duplicate of ours); a comment already gone counts as deleted. */
  async deleteIssueComment(owner: string, repo: string, commentId: number): Promise<'deleted' | 'not_accessible'> {
    try {
      await this.call(() => this.octokit.rest.issues.deleteComment({ owner, repo, comment_id: commentId }));
      return 'deleted';
    } catch (err) {
      if (isNotFound(err)) return 'deleted';
      if (isNotAccessible(err)) return 'not_accessible';
      throw err;
    }
  }

  /** Edit title and body; 'not_accessible' when the token may not write there (repository outside the installation). */
  async updatePullRequest(owner: string, repo: string, number: number, input: { title: string; body: string }): Promise<PullRequestSnapshot | 'not_accessible'> {
    try {
      const { data } = await this.call(() => this.octokit.rest.pulls.update({ owner, repo, pull_number: number, ...input }));
      return snapshotOf(data);
    } catch (err) {
      if (isNotAccessible(err)) return 'not_accessible';
      throw err;
    }
  }
}

const apps = new WeakMap<Gateway, { key: string; app: GitHubApp }>();

/** The gateway's App (one per process, so the token cache is shared); 503 when none is configured. */
export function githubApp(gateway: Gateway): GitHubApp {
  const github: Config['github'] = gateway.config.github;
  if (!github.appId || !github.privateKey) {
    throw apiError('repository_tokens_unavailable', 'This gateway has no GitHub App configured (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY).');
  }
  const key = `${github.apiUrl}|${github.appId}`;
  const existing = apps.get(gateway);
  if (existing && existing.key === key) return existing.app;
  const app = new GitHubApp(github.apiUrl, github.appId, github.privateKey, gateway.clock);
  apps.set(gateway, { key, app });
  return app;
}

export function isGitHubConfigured(gateway: Gateway): boolean {
  return Boolean(gateway.config.github.appId && gateway.config.github.privateKey);
}
