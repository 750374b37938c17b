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
import { apiError } from '../server/errors.js';
import {
  type PullRequestWrite,
  type InstallationToken,
  isHttpError,
  retryableFailure,
  isNotFound,
} from './github-answers.js';
import { InstallationClient, type InstallationSession } from './github-installation.js';

export { InstallationClient } from './github-installation.js';
export type {
  InstallationToken,
  IssueComment,
  PullRequestRef,
  PullRequestSnapshot,
  PullRequestWrite,
  RepositoryInfo,
} from './github-answers.js';
export { retryableFailure } from './github-answers.js';

/** A cached token is replaced this long before GitHub says it expires, so no call races the expiry. */
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60_000;
/** One GitHub call may take this long before it counts as a network failure. */
const REQUEST_TIMEOUT_MS = 15_000;

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
    return (this.clients ??= loadOctokit()
      .then(({ Octokit, createAppAuth }) => {
        const baseUrl = this.apiUrl.replace(/\/+$/, '');
        const auth = { appId: this.appId, privateKey: normalizePrivateKey(this.privateKey) };
        const appOctokit = withTimeout(
          new Octokit({ baseUrl, authStrategy: createAppAuth, auth, userAgent: 'attest-gateway', log: quiet }),
        );
        return { appOctokit, auth: createAppAuth({ ...auth, request: appOctokit.request }) };
      })
      .catch((err: unknown) => {
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
        throw apiError(
          'repository_tokens_unavailable',
          'GitHub refused the App credentials (GITHUB_APP_ID / GITHUB_APP_PRIVATE_KEY).',
        );
      }
      if (as === 'app' && !isHttpError(err)) {
        // Signing the App JWT failed before any request: the configured private key is unusable.
        throw apiError(
          'repository_tokens_unavailable',
          'The GitHub App private key (GITHUB_APP_PRIVATE_KEY) cannot sign the App JWT.',
        );
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
    return new InstallationClient(
      session,
      (fn) => this.call(fn, 'installation'),
      () => this.installationSession(installationId, true),
    );
  }

  private async installationSession(installationId: number, fresh: boolean): Promise<InstallationSession | null> {
    const token = await this.installationToken(installationId, fresh);
    if (!token) return null;
    const { Octokit } = await loadOctokit();
    const octokit = withTimeout(
      new Octokit({
        baseUrl: this.apiUrl.replace(/\/+$/, ''),
        auth: token.token,
        userAgent: 'attest-gateway',
        log: quiet,
      }),
    );
    return { octokit, token };
  }
}

/**
 * Whether the App may write the comment on a pull request: an issue comment on a pull request needs pull
 * requests write or issues write (either one; the App asks for pull requests write). Same three answers
 * as pullRequestWriteOf.
 */
export function commentWriteOf(
  installation: Record<string, string> | null,
  requested: Record<string, string>,
): PullRequestWrite {
  if (installation?.pull_requests === 'write' || installation?.issues === 'write') return 'granted';
  return requested.pull_requests === 'write' || requested.issues === 'write' ? 'pending' : 'missing';
}

export function pullRequestWriteOf(
  installation: Record<string, string> | null,
  requested: Record<string, string>,
): PullRequestWrite {
  if (installation?.pull_requests === 'write') return 'granted';
  return requested.pull_requests === 'write' ? 'pending' : 'missing';
}

const apps = new WeakMap<Gateway, { key: string; app: GitHubApp }>();

/** The gateway's App (one per process, so the token cache is shared); 503 when none is configured. */
export function githubApp(gateway: Gateway): GitHubApp {
  const github: Config['github'] = gateway.config.github;
  if (!github.appId || !github.privateKey) {
    throw apiError(
      'repository_tokens_unavailable',
      'This gateway has no GitHub App configured (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY).',
    );
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
