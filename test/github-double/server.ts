// A GitHub test double: a real HTTP server speaking the GitHub REST routes the gateway calls, with the
// JSON shapes real GitHub returns (templates from GitHub's OpenAPI examples), GitHub's authentication
// (an RS256 app JWT verified with the App's public key; installation tokens it minted) and GitHub's
// rules where the gateway depends on them (one open pull request per head and base, 422 texts,
// "Resource not accessible by integration" without a permission, 404 for repositories outside the
// installation). Faults (5xx, 429, secondary rate limit, a dropped connection) can be queued per route.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { example, recorded, retarget, type Json } from './templates.js';

export interface DoubleRepository {
  owner: string;
  name: string;
  id: number;
  defaultBranch: string;
  /** Branch name → commit shas, oldest first. */
  branches: Map<string, string[]>;
  /** Branch name → rule types (rulesets) that apply to it, e.g. ['pull_request']. */
  rules: Map<string, string[]>;
  /** Branch name → classic protection; requiredReviews = a pull request is required. */
  protection: Map<string, { requiredReviews: boolean }>;
  nextNumber: number;
  /** Any installation token can read a public repository; writing needs the installation to include it. */
  visibility: 'public' | 'private';
  /** Commit sha → path → text: the files GET .../contents/{path}?ref=<sha> reads. */
  contents: Map<string, Map<string, string>>;
}

export interface DoubleInstallation {
  id: number;
  account: string;
  /** Permissions the installation has granted (what its tokens carry). */
  permissions: Record<string, string>;
  /** full names (lower case) the installation lists. */
  repositories: Set<string>;
}

export interface DoublePull {
  repo: string;
  number: number;
  id: number;
  state: 'open' | 'closed';
  title: string;
  body: string | null;
  head: string;
  headSha: string;
  base: string;
  user: string;
  createdAt: string;
  updatedAt: string;
  /** The files the pull request changes, as GET .../pulls/{n}/files lists them. */
  files: Array<{ filename: string; status: 'added' | 'modified' | 'removed' | 'renamed' }>;
}

export interface DoubleCheckRun {
  repo: string;
  id: number;
  name: string;
  headSha: string;
  status: string;
  conclusion: string | null;
  title: string | null;
  summary: string | null;
  text: string | null;
  detailsUrl: string | null;
  externalId: string | null;
  startedAt: string;
  completedAt: string | null;
}

export interface DoubleComment {
  repo: string;
  /** The issue (pull request) number it is on. */
  number: number;
  id: number;
  body: string;
  user: string;
  createdAt: string;
  updatedAt: string;
}

export interface DoubleUser {
  id: number;
  login: string;
  name: string | null;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
  /** Installations of the App this user can reach. */
  installations: number[];
}

export interface Fault {
  /** Matched against "METHOD /path" (path without query). */
  route: RegExp;
  /**
   * status: answer with it; network: drop the connection unanswered; lost-answer: do the work, then drop the
   * connection.
   */
  kind: 'status' | 'network' | 'lost-answer';
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface RecordedCall {
  method: string;
  path: string;
  query: URLSearchParams;
  auth: 'jwt' | 'token' | 'none';
  status: number;
  body: unknown;
  /** The OpenAPI path template this call was routed to, e.g. /repos/{owner}/{repo}. */
  route: string | null;
}

interface TokenGrant {
  installationId: number;
  expiresAt: number;
  permissions: Record<string, string>;
}

const DOCS = 'https://docs.github.com/rest';

class HttpAnswer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

function notFound(): HttpAnswer {
  return new HttpAnswer(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
}

function forbiddenByIntegration(): HttpAnswer {
  return new HttpAnswer(403, {
    message: 'Resource not accessible by integration',
    documentation_url: DOCS,
    status: '403',
  });
}

function validationFailed(errors: unknown[]): HttpAnswer {
  return new HttpAnswer(422, {
    message: 'Validation Failed',
    errors,
    documentation_url: `${DOCS}/pulls/pulls#create-a-pull-request`,
    status: '422',
  });
}

function sha(): string {
  return crypto.randomBytes(20).toString('hex');
}

export interface AppKeys {
  privateKeyPem: string;
  publicKey: crypto.KeyObject;
}

/** An RSA key pair in the form GitHub hands out for an App (PKCS#1 PEM). */
export function generateAppKeys(): AppKeys {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privateKeyPem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), publicKey };
}

export class GitHubDouble {
  readonly appId: number;
  readonly slug = 'attest-test-app';
  /** What the App requests; an installation may lag behind (pending). */
  appPermissions: Record<string, string> = {
    contents: 'read',
    pull_requests: 'write',
    metadata: 'read',
    checks: 'read',
  };
  readonly installations = new Map<number, DoubleInstallation>();
  readonly repositories = new Map<string, DoubleRepository>();
  readonly pulls: DoublePull[] = [];
  readonly comments: DoubleComment[] = [];
  readonly checkRuns: DoubleCheckRun[] = [];
  readonly faults: Fault[] = [];
  readonly calls: RecordedCall[] = [];
  private readonly tokens = new Map<string, TokenGrant>();
  /** The App's OAuth client (user authorization). */
  readonly oauthClient = { clientId: 'Iv1.attestdouble01', clientSecret: crypto.randomBytes(20).toString('hex') };
  /** GitHub users by login, and who is signed in to "github.com" in the browser the tests drive. */
  readonly users = new Map<string, DoubleUser>();
  browserUser: string | null = null;
  private readonly oauthCodes = new Map<string, { login: string; redirectUri: string; challenge: string }>();
  private readonly userTokens = new Map<string, string>();
  private server: http.Server | null = null;
  private nextRepoId = 1_296_269;
  private nextPullId = 1_000;
  private nextCommentId = 2_000_000_001;
  private nextCheckRunId = 4_000_000_001;
  /** Milliseconds an installation token lives (GitHub: one hour). */
  tokenLifetimeMs = 60 * 60_000;
  url = '';

  constructor(
    private readonly publicKey: crypto.KeyObject,
    appId = 424_242,
  ) {
    this.appId = appId;
  }

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.handle(req, res, Buffer.concat(chunks).toString('utf8'));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this.url;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.server = null;
  }

  // ---- state helpers for tests -------------------------------------------------------------------

  addInstallation(
    account: string,
    permissions: Record<string, string> = { ...this.appPermissions },
  ): DoubleInstallation {
    const id = 31_000_000 + this.installations.size + 1;
    const installation: DoubleInstallation = { id, account, permissions, repositories: new Set() };
    this.installations.set(id, installation);
    return installation;
  }

  /** A repository with a default branch holding `baseCommits` commits, listed by `installation` if given. */
  addRepository(
    fullName: string,
    opts: {
      installation?: DoubleInstallation;
      defaultBranch?: string;
      baseCommits?: number;
      visibility?: 'public' | 'private';
    } = {},
  ): DoubleRepository {
    const [owner, name] = fullName.split('/') as [string, string];
    const defaultBranch = opts.defaultBranch ?? 'main';
    const repo: DoubleRepository = {
      owner,
      name,
      id: this.nextRepoId++,
      defaultBranch,
      branches: new Map([[defaultBranch, Array.from({ length: opts.baseCommits ?? 3 }, sha)]]),
      rules: new Map(),
      protection: new Map(),
      nextNumber: 1,
      visibility: opts.visibility ?? 'private',
      contents: new Map(),
    };
    this.repositories.set(fullName.toLowerCase(), repo);
    opts.installation?.repositories.add(fullName.toLowerCase());
    return repo;
  }

  /** Push `branch` with `commits` new commits on top of the default branch (0 = same as the default). */
  pushBranch(fullName: string, branch: string, commits = 1): string {
    const repo = this.repo(fullName);
    const base = repo.branches.get(repo.defaultBranch) ?? [];
    const shas = [...base, ...Array.from({ length: commits }, sha)];
    repo.branches.set(branch, shas);
    return shas[shas.length - 1]!;
  }

  /** Put files (path → text) at a commit of the repository, as GET .../contents reads them there. */
  putFiles(fullName: string, commitSha: string, files: Record<string, string>): void {
    const repo = this.repo(fullName);
    const tree = repo.contents.get(commitSha) ?? new Map<string, string>();
    for (const [path, text] of Object.entries(files)) tree.set(path, text);
    repo.contents.set(commitSha, tree);
  }

  /** The head sha of a branch. */
  headOf(fullName: string, branch: string): string {
    const shas = this.repo(fullName).branches.get(branch);
    if (!shas?.length) throw new Error(`double has no branch ${branch} in ${fullName}`);
    return shas[shas.length - 1]!;
  }

  /** The check runs on a commit of the repository, oldest first. */
  checkRunsOn(fullName: string, headSha: string): DoubleCheckRun[] {
    return this.checkRuns.filter((c) => c.repo === fullName.toLowerCase() && c.headSha === headSha);
  }

  /** A pull request opened by someone else (a person), as GitHub would hold it. */
  openPullAs(user: string, fullName: string, head: string, title: string): DoublePull {
    const repo = this.repo(fullName);
    const pull = this.newPull(repo, { head, base: repo.defaultBranch, title, body: null, user });
    return pull;
  }

  /** The comments on a pull request, oldest first. */
  commentsOn(fullName: string, number: number): DoubleComment[] {
    return this.comments.filter((c) => c.repo === fullName.toLowerCase() && c.number === number);
  }

  /** A comment written by someone else (a person, another bot). */
  commentAs(user: string, fullName: string, number: number, body: string): DoubleComment {
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const comment: DoubleComment = {
      repo: fullName.toLowerCase(),
      number,
      id: this.nextCommentId++,
      body,
      user,
      createdAt: now,
      updatedAt: now,
    };
    this.comments.push(comment);
    return comment;
  }

  /** How many answered calls went to `METHOD template` with the given status class (e.g. 2 for 2xx). */
  countCalls(method: string, template: string, statusClass = 2): number {
    return this.calls.filter(
      (c) => c.method === method && c.route === template && Math.floor(c.status / 100) === statusClass,
    ).length;
  }

  openPulls(fullName: string, head?: string): DoublePull[] {
    return this.pulls.filter(
      (p) => p.repo === fullName.toLowerCase() && p.state === 'open' && (head === undefined || p.head === head),
    );
  }

  /** Fail the next request matching `route` the given way. */
  fail(route: RegExp, fault: Omit<Fault, 'route'>): void {
    this.faults.push({ route, ...fault });
  }

  /** Revoke every installation token issued so far (as DELETE /installation/token or an admin would). */
  revokeTokens(): void {
    this.tokens.clear();
  }

  tokenRequests(): number {
    return this.calls.filter(
      (c) => c.method === 'POST' && /^\/app\/installations\/\d+\/access_tokens$/.test(c.path) && c.status === 201,
    ).length;
  }

  calledRoutes(): Set<string> {
    return new Set(this.calls.filter((c) => c.route).map((c) => `${c.method} ${c.route}`));
  }

  repo(fullName: string): DoubleRepository {
    const repo = this.repositories.get(fullName.toLowerCase());
    if (!repo) throw new Error(`double has no repository ${fullName}`);
    return repo;
  }

  // ---- HTTP --------------------------------------------------------------------------------------

  private handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): void {
    const url = new URL(req.url ?? '/', 'http://double');
    const method = (req.method ?? 'GET').toUpperCase();
    const pathname = url.pathname.replace(/^\/api\/v3/, '');
    const faultIndex = this.faults.findIndex((f) => f.route.test(`${method} ${pathname}`));
    let loseAnswer = false;
    if (faultIndex >= 0 && this.faults[faultIndex]!.kind === 'lost-answer') {
      this.faults.splice(faultIndex, 1);
      loseAnswer = true;
    } else if (faultIndex >= 0) {
      const [fault] = this.faults.splice(faultIndex, 1);
      this.calls.push({
        method,
        path: pathname,
        query: url.searchParams,
        auth: 'none',
        status: fault!.kind === 'network' ? 0 : fault!.status!,
        body: fault!.body ?? null,
        route: null,
      });
      if (fault!.kind === 'network') {
        req.socket.destroy();
        return;
      }
      this.send(res, new HttpAnswer(fault!.status!, fault!.body ?? { message: 'Server Error' }, fault!.headers));
      return;
    }
    if (pathname.startsWith('/login/oauth/')) {
      const answer = this.oauthWebFlow(method, pathname, url.searchParams, new URLSearchParams(raw));
      this.calls.push({
        method,
        path: pathname,
        query: url.searchParams,
        auth: 'none',
        status: answer.status,
        body: answer.body,
        route: null,
      });
      this.send(res, answer);
      return;
    }
    let body: Json = {};
    if (raw) {
      try {
        body = JSON.parse(raw) as Json;
      } catch {
        this.send(
          res,
          new HttpAnswer(400, { message: 'Problems parsing JSON', documentation_url: DOCS, status: '400' }),
        );
        return;
      }
    }
    const call: RecordedCall = {
      method,
      path: pathname,
      query: url.searchParams,
      auth: 'none',
      status: 0,
      body: null,
      route: null,
    };
    let answer: HttpAnswer;
    try {
      answer = this.route(req, method, pathname, url.searchParams, body, call);
    } catch (err) {
      answer = err instanceof HttpAnswer ? err : new HttpAnswer(500, { message: String(err) });
    }
    call.status = answer.status;
    call.body = answer.body;
    this.calls.push(call);
    if (loseAnswer) {
      req.socket.destroy();
      return;
    }
    this.send(res, answer);
  }

  private send(res: http.ServerResponse, answer: HttpAnswer): void {
    const text = answer.status === 204 ? '' : JSON.stringify(answer.body);
    res.writeHead(answer.status, {
      'content-type': 'application/json; charset=utf-8',
      'x-github-api-version-selected': '2022-11-28',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': answer.status === 429 ? '0' : '4999',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      ...answer.headers,
    });
    res.end(text);
  }

  private authorization(req: http.IncomingMessage): { scheme: string; value: string } | null {
    const header = req.headers.authorization;
    if (!header) return null;
    const [scheme, value] = header.split(/\s+/, 2);
    return scheme && value ? { scheme: scheme.toLowerCase(), value } : null;
  }

  /** The App JWT: RS256, signed with the App's key, iss = app id, not expired, at most 10 minutes long. */
  private requireJwt(req: http.IncomingMessage, call: RecordedCall): void {
    const auth = this.authorization(req);
    const refuse = (message: string) => new HttpAnswer(401, { message, documentation_url: DOCS, status: '401' });
    if (auth?.scheme !== 'bearer') throw refuse('A JSON web token could not be decoded');
    const parts = auth.value.split('.');
    if (parts.length !== 3) throw refuse('A JSON web token could not be decoded');
    const [h, p, s] = parts as [string, string, string];
    const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg?: string };
    if (header.alg !== 'RS256') throw refuse("'alg' must be RS256");
    const ok = crypto.verify('RSA-SHA256', Buffer.from(`${h}.${p}`), this.publicKey, Buffer.from(s, 'base64url'));
    if (!ok) throw refuse('A JSON web token could not be decoded');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as { iss?: unknown; iat?: number; exp?: number };
    const now = Math.floor(Date.now() / 1000);
    if (String(claims.iss) !== String(this.appId)) throw refuse("'Issuer' claim ('iss') must be an Integer");
    if (typeof claims.exp !== 'number' || claims.exp < now)
      throw refuse("'Expiration time' claim ('exp') is too far in the future");
    if (typeof claims.iat !== 'number' || claims.iat > now + 60 || claims.exp - claims.iat > 600)
      throw refuse("'Issued at' claim ('iat') must be an Integer representing a time in the past.");
    call.auth = 'jwt';
  }

  private requireToken(req: http.IncomingMessage, call: RecordedCall): TokenGrant {
    const auth = this.authorization(req);
    const grant =
      auth && (auth.scheme === 'token' || auth.scheme === 'bearer') ? this.tokens.get(auth.value) : undefined;
    if (!grant || grant.expiresAt <= Date.now())
      throw new HttpAnswer(401, { message: 'Bad credentials', documentation_url: DOCS, status: '401' });
    call.auth = 'token';
    return grant;
  }

  /**
   * The repository as the token may use it: the installation's repositories fully; public ones only for
   * reading (a write answers 403 "Resource not accessible by integration"); anything else is 404.
   */
  private visibleRepo(
    grant: TokenGrant,
    owner: string,
    name: string,
    access: 'read' | 'write' = 'read',
  ): DoubleRepository {
    const key = `${owner}/${name}`.toLowerCase();
    const installation = this.installations.get(grant.installationId);
    const repo = this.repositories.get(key);
    if (!repo) throw notFound();
    if (installation?.repositories.has(key)) return repo;
    if (repo.visibility !== 'public') throw notFound();
    if (access === 'write') throw forbiddenByIntegration();
    return repo;
  }

  private route(
    req: http.IncomingMessage,
    method: string,
    pathname: string,
    query: URLSearchParams,
    body: Json,
    call: RecordedCall,
  ): HttpAnswer {
    const seg = pathname
      .split('/')
      .slice(1)
      .map((s) => decodeURIComponent(s));
    const at = (template: string) => {
      call.route = template;
    };

    if (
      method === 'GET' &&
      (pathname === '/user' || pathname === '/user/emails' || pathname === '/user/installations')
    ) {
      at(pathname);
      const user = this.requireUserToken(req, call);
      if (pathname === '/user') {
        const body = example('private-user-response-with-public-and-private-profile-information');
        return new HttpAnswer(200, {
          ...body,
          id: user.id,
          login: user.login,
          name: user.name,
          email: user.emails.find((e) => e.primary)?.email ?? null,
        });
      }
      if (pathname === '/user/emails')
        return new HttpAnswer(
          200,
          user.emails.map((e) => ({ ...e, visibility: e.primary ? 'private' : null })),
        );
      const installations = user.installations
        .map((id) => this.installations.get(id))
        .filter((i): i is DoubleInstallation => i !== undefined)
        .map((i) => this.installationBody(i));
      return new HttpAnswer(200, { total_count: installations.length, installations });
    }
    if (method === 'GET' && pathname === '/app') {
      at('/app');
      this.requireJwt(req, call);
      return new HttpAnswer(200, this.appBody());
    }
    if (seg[0] === 'app' && seg[1] === 'installations' && seg[2] && /^\d+$/.test(seg[2])) {
      const installation = this.installations.get(Number(seg[2]));
      if (method === 'GET' && seg.length === 3) {
        at('/app/installations/{installation_id}');
        this.requireJwt(req, call);
        if (!installation) return notFound();
        return new HttpAnswer(200, this.installationBody(installation));
      }
      if (method === 'POST' && seg[3] === 'access_tokens' && seg.length === 4) {
        at('/app/installations/{installation_id}/access_tokens');
        this.requireJwt(req, call);
        if (!installation) return notFound();
        return new HttpAnswer(201, this.mintToken(installation));
      }
    }
    if (method === 'GET' && pathname === '/installation/repositories') {
      at('/installation/repositories');
      const grant = this.requireToken(req, call);
      return this.installationRepositories(grant, query);
    }
    if (seg[0] === 'repos' && seg.length >= 3) {
      const owner = seg[1]!;
      const name = seg[2]!;
      const rest = seg.slice(3);
      if (method === 'GET' && rest.length === 0) {
        at('/repos/{owner}/{repo}');
        const repo = this.visibleRepo(this.requireToken(req, call), owner, name);
        return new HttpAnswer(200, this.fullRepositoryBody(repo));
      }
      if (method === 'GET' && rest[0] === 'branches' && rest.length >= 2) {
        // Branch names may hold slashes; GitHub takes them encoded or not.
        const grant = this.requireToken(req, call);
        const repo = this.visibleRepo(grant, owner, name);
        if (rest[rest.length - 1] === 'protection' && rest.length >= 3) {
          at('/repos/{owner}/{repo}/branches/{branch}/protection');
          if (grant.permissions.administration !== 'read' && grant.permissions.administration !== 'write')
            return forbiddenByIntegration();
          const branch = rest.slice(1, -1).join('/');
          const protection = repo.protection.get(branch);
          if (!repo.branches.has(branch)) return notFound();
          if (!protection)
            return new HttpAnswer(404, { message: 'Branch not protected', documentation_url: DOCS, status: '404' });
          return new HttpAnswer(200, this.protectionBody(repo, branch, protection.requiredReviews));
        }
        at('/repos/{owner}/{repo}/branches/{branch}');
        const branch = rest.slice(1).join('/');
        if (!repo.branches.has(branch))
          return new HttpAnswer(404, { message: 'Branch not found', documentation_url: DOCS, status: '404' });
        return new HttpAnswer(200, this.branchBody(repo, branch));
      }
      if (method === 'GET' && rest[0] === 'rules' && rest[1] === 'branches' && rest.length >= 3) {
        at('/repos/{owner}/{repo}/rules/branches/{branch}');
        const repo = this.visibleRepo(this.requireToken(req, call), owner, name);
        const branch = rest.slice(2).join('/');
        return new HttpAnswer(
          200,
          (repo.rules.get(branch) ?? []).map((type, i) => this.ruleBody(repo, type, i)),
        );
      }
      if (method === 'GET' && rest[0] === 'compare' && rest.length >= 2) {
        at('/repos/{owner}/{repo}/compare/{basehead}');
        const repo = this.visibleRepo(this.requireToken(req, call), owner, name);
        const basehead = rest.slice(1).join('/');
        const split = basehead.indexOf('...');
        if (split < 0) return notFound();
        return this.compare(repo, basehead.slice(0, split), basehead.slice(split + 3));
      }
      if (rest[0] === 'issues') {
        const grant = this.requireToken(req, call);
        const write = method !== 'GET';
        const repo = this.visibleRepo(grant, owner, name, write ? 'write' : 'read');
        // An issue comment on a pull request: pull requests or issues permission, either one (GitHub's rule).
        const level = (p: string | undefined) => (p === 'write' ? 2 : p === 'read' ? 1 : 0);
        const access = Math.max(level(grant.permissions.pull_requests), level(grant.permissions.issues));
        if (
          rest.length === 3 &&
          /^\d+$/.test(rest[1]!) &&
          rest[2] === 'comments' &&
          (method === 'GET' || method === 'POST')
        ) {
          at('/repos/{owner}/{repo}/issues/{issue_number}/comments');
          if (access < (write ? 2 : 1) && !(repo.visibility === 'public' && !write)) return forbiddenByIntegration();
          const number = Number(rest[1]);
          if (!this.pulls.some((p) => p.repo === this.key(repo) && p.number === number)) return notFound();
          if (method === 'GET') return this.listComments(repo, number, query);
          if (typeof body.body !== 'string' || body.body === '') {
            return new HttpAnswer(422, {
              message: 'Validation Failed',
              errors: [{ resource: 'IssueComment', field: 'body', code: 'missing_field' }],
              documentation_url: `${DOCS}/issues/comments#create-an-issue-comment`,
              status: '422',
            });
          }
          if (body.body.length > 65_536) {
            return new HttpAnswer(422, {
              message: 'Validation Failed',
              errors: [
                {
                  resource: 'IssueComment',
                  code: 'custom',
                  field: 'body',
                  message: 'body is too long (maximum is 65536 characters)',
                },
              ],
              documentation_url: `${DOCS}/issues/comments#create-an-issue-comment`,
              status: '422',
            });
          }
          const comment = this.commentAs(`${this.slug}[bot]`, this.key(repo), number, body.body);
          return new HttpAnswer(201, this.commentBody(repo, comment));
        }
        if (
          rest.length === 3 &&
          rest[1] === 'comments' &&
          /^\d+$/.test(rest[2]!) &&
          (method === 'PATCH' || method === 'DELETE')
        ) {
          at('/repos/{owner}/{repo}/issues/comments/{comment_id}');
          if (access < 2) return forbiddenByIntegration();
          const comment = this.comments.find((c) => c.repo === this.key(repo) && c.id === Number(rest[2]));
          if (!comment) return notFound();
          if (method === 'DELETE') {
            this.comments.splice(this.comments.indexOf(comment), 1);
            return new HttpAnswer(204, null);
          }
          if (typeof body.body !== 'string' || body.body === '') {
            return new HttpAnswer(422, {
              message: 'Validation Failed',
              errors: [{ resource: 'IssueComment', field: 'body', code: 'missing_field' }],
              documentation_url: `${DOCS}/issues/comments#update-an-issue-comment`,
              status: '422',
            });
          }
          if (body.body.length > 65_536) {
            return new HttpAnswer(422, {
              message: 'Validation Failed',
              errors: [
                {
                  resource: 'IssueComment',
                  code: 'custom',
                  field: 'body',
                  message: 'body is too long (maximum is 65536 characters)',
                },
              ],
              documentation_url: `${DOCS}/issues/comments#update-an-issue-comment`,
              status: '422',
            });
          }
          comment.body = body.body;
          comment.updatedAt = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
          return new HttpAnswer(200, this.commentBody(repo, comment));
        }
      }
      if (rest[0] === 'check-runs') {
        const grant = this.requireToken(req, call);
        const repo = this.visibleRepo(grant, owner, name, 'write');
        if (method === 'POST' && rest.length === 1) {
          at('/repos/{owner}/{repo}/check-runs');
          if (grant.permissions.checks !== 'write') return forbiddenByIntegration();
          return this.createCheckRun(repo, body);
        }
        if (method === 'PATCH' && rest.length === 2 && /^\d+$/.test(rest[1]!)) {
          at('/repos/{owner}/{repo}/check-runs/{check_run_id}');
          if (grant.permissions.checks !== 'write') return forbiddenByIntegration();
          const run = this.checkRuns.find((c) => c.repo === this.key(repo) && c.id === Number(rest[1]));
          if (!run) return notFound();
          return this.updateCheckRun(repo, run, body);
        }
      }
      if (method === 'GET' && rest[0] === 'contents' && rest.length >= 2) {
        at('/repos/{owner}/{repo}/contents/{path}');
        const grant = this.requireToken(req, call);
        const repo = this.visibleRepo(grant, owner, name);
        const readable = grant.permissions.contents === 'read' || grant.permissions.contents === 'write';
        if (!readable && repo.visibility !== 'public') return forbiddenByIntegration();
        return this.contents(repo, rest.slice(1).join('/'), query.get('ref'));
      }
      if (rest[0] === 'pulls') {
        const grant = this.requireToken(req, call);
        const repo = this.visibleRepo(grant, owner, name, method === 'GET' ? 'read' : 'write');
        if (
          method === 'GET' &&
          rest.length === 3 &&
          /^\d+$/.test(rest[1]!) &&
          (rest[2] === 'commits' || rest[2] === 'files')
        ) {
          at(`/repos/{owner}/{repo}/pulls/{pull_number}/${rest[2]}`);
          const readable = grant.permissions.pull_requests === 'read' || grant.permissions.pull_requests === 'write';
          if (!readable && repo.visibility !== 'public') return forbiddenByIntegration();
          const pull = this.pulls.find((p) => p.repo === this.key(repo) && p.number === Number(rest[1]));
          if (!pull) return notFound();
          return rest[2] === 'commits' ? this.pullCommits(repo, pull, query) : this.pullFiles(repo, pull, query);
        }
        if (method === 'GET' && rest.length === 1) {
          at('/repos/{owner}/{repo}/pulls');
          return this.listPulls(repo, query);
        }
        if (method === 'POST' && rest.length === 1) {
          at('/repos/{owner}/{repo}/pulls');
          if (grant.permissions.pull_requests !== 'write') return forbiddenByIntegration();
          return this.createPull(repo, body);
        }
        if (method === 'PATCH' && rest.length === 2 && /^\d+$/.test(rest[1]!)) {
          at('/repos/{owner}/{repo}/pulls/{pull_number}');
          if (grant.permissions.pull_requests !== 'write') return forbiddenByIntegration();
          const pull = this.pulls.find((p) => p.repo === this.key(repo) && p.number === Number(rest[1]));
          if (!pull) return notFound();
          if (typeof body.title === 'string') pull.title = body.title;
          if (typeof body.body === 'string') pull.body = body.body;
          pull.updatedAt = new Date().toISOString();
          return new HttpAnswer(200, this.pullBody(repo, pull, 'pull-request'));
        }
      }
    }
    return notFound();
  }

  private key(repo: DoubleRepository): string {
    return `${repo.owner}/${repo.name}`.toLowerCase();
  }

  /** The double's stand-in for the web host (github.com): the same server, named localhost. */
  get webUrl(): string {
    return this.url.replace('127.0.0.1', 'localhost');
  }

  private retarget<T>(value: T, repo: DoubleRepository): T {
    return retarget(value, repo.owner, repo.name, this.url, this.webUrl);
  }

  private appBody(): Json {
    const body = example('integration');
    // html_url is the App's page on the web host (github.com/apps/<slug> on real GitHub).
    return {
      ...body,
      id: this.appId,
      slug: this.slug,
      html_url: `${this.webUrl}/apps/${this.slug}`,
      name: 'Attest test App',
      permissions: { ...this.appPermissions },
      events: ['pull_request', 'check_run', 'check_suite'],
    };
  }

  /** The user revokes the App's authorization on GitHub: every user token of theirs answers 401 from now on. */
  revokeUserTokens(login: string): void {
    for (const [token, owner] of this.userTokens) if (owner === login) this.userTokens.delete(token);
  }

  /** A GitHub user the tests sign in as. */
  addUser(login: string, opts: Partial<Omit<DoubleUser, 'login'>> = {}): DoubleUser {
    const user: DoubleUser = {
      id: opts.id ?? 5_000_000 + this.users.size,
      login,
      name: opts.name ?? null,
      emails: opts.emails ?? [{ email: `${login}@users.example.test`, primary: true, verified: true }],
      installations: opts.installations ?? [],
    };
    this.users.set(login, user);
    return user;
  }

  /**
   * GitHub's web application flow (docs: "Generating a user access token for a GitHub App"): GET
   * /login/oauth/authorize sends the signed-in browser user back with a code (or access_denied when nobody
   * is); POST /login/oauth/access_token exchanges it once, checking client, redirect URI and PKCE verifier,
   * and answers 200 with `error` for a bad code, as GitHub does.
   */
  private oauthWebFlow(method: string, pathname: string, query: URLSearchParams, form: URLSearchParams): HttpAnswer {
    if (method === 'GET' && pathname === '/login/oauth/authorize') {
      const redirect = new URL(query.get('redirect_uri') ?? '');
      redirect.searchParams.set('state', query.get('state') ?? '');
      if (query.get('client_id') !== this.oauthClient.clientId || !this.browserUser) {
        redirect.searchParams.set('error', 'access_denied');
      } else {
        const code = crypto.randomBytes(10).toString('hex');
        this.oauthCodes.set(code, {
          login: this.browserUser,
          redirectUri: redirect.origin + redirect.pathname,
          challenge: query.get('code_challenge') ?? '',
        });
        redirect.searchParams.set('code', code);
      }
      return new HttpAnswer(302, null, { location: redirect.href });
    }
    if (method === 'POST' && pathname === '/login/oauth/access_token') {
      const bad = new HttpAnswer(200, {
        error: 'bad_verification_code',
        error_description: 'The code passed is incorrect or expired.',
        error_uri:
          'https://docs.github.com/apps/managing-oauth-apps/' +
          'troubleshooting-oauth-app-access-token-request-errors/#bad-verification-code',
      });
      if (
        form.get('client_id') !== this.oauthClient.clientId ||
        form.get('client_secret') !== this.oauthClient.clientSecret
      )
        return new HttpAnswer(200, {
          error: 'incorrect_client_credentials',
          error_description: 'The client_id and/or client_secret passed are incorrect.',
        });
      const grant = this.oauthCodes.get(form.get('code') ?? '');
      if (!grant) return bad;
      this.oauthCodes.delete(form.get('code') ?? '');
      const challenge = crypto
        .createHash('sha256')
        .update(form.get('code_verifier') ?? '')
        .digest('base64url');
      if (grant.redirectUri !== form.get('redirect_uri') || grant.challenge !== challenge) return bad;
      const token = `ghu_${crypto.randomBytes(18).toString('hex')}`;
      this.userTokens.set(token, grant.login);
      return new HttpAnswer(200, {
        access_token: token,
        expires_in: 28800,
        refresh_token: `ghr_${crypto.randomBytes(18).toString('hex')}`,
        refresh_token_expires_in: 15811200,
        token_type: 'bearer',
        scope: '',
      });
    }
    return notFound();
  }

  private requireUserToken(req: http.IncomingMessage, call: RecordedCall): DoubleUser {
    const auth = this.authorization(req);
    const login = auth ? this.userTokens.get(auth.value) : undefined;
    const user = login ? this.users.get(login) : undefined;
    if (!user) throw new HttpAnswer(401, { message: 'Bad credentials', documentation_url: DOCS, status: '401' });
    call.auth = 'token';
    return user;
  }

  private installationBody(installation: DoubleInstallation): Json {
    const body = example('base-installation');
    const account = { ...(body.account as Json), login: installation.account };
    return {
      ...body,
      id: installation.id,
      app_id: this.appId,
      app_slug: this.slug,
      account,
      permissions: { ...installation.permissions },
      repository_selection: 'selected',
      target_type: 'Organization',
    };
  }

  private mintToken(installation: DoubleInstallation): Json {
    const token = `ghs_${crypto.randomBytes(18).toString('base64url').replace(/[-_]/g, 'x')}`;
    const expiresAt = Date.now() + this.tokenLifetimeMs;
    this.tokens.set(token, {
      installationId: installation.id,
      expiresAt,
      permissions: { ...installation.permissions },
    });
    const body = example('installation-token');
    delete body.repositories;
    // GitHub states expires_at to the second.
    return {
      ...body,
      token,
      expires_at: new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      permissions: { ...installation.permissions },
      repository_selection: 'selected',
    };
  }

  private repositoryBody(repo: DoubleRepository): Json {
    const list = example<{ repositories: Json[] }>('repository-paginated-2');
    const template = this.retarget(list.repositories[0]!, repo);
    return {
      ...template,
      id: repo.id,
      name: repo.name,
      full_name: `${repo.owner}/${repo.name}`,
      default_branch: repo.defaultBranch,
      owner: { ...(template.owner as Json), login: repo.owner },
    };
  }

  private fullRepositoryBody(repo: DoubleRepository): Json {
    const template = this.retarget(example('full-repository-default-response'), repo);
    // The example is a fork (source, parent) and lacks fields real answers carry (see schema.test.ts).
    delete template.source;
    delete template.parent;
    return {
      language: null,
      web_commit_signoff_required: false,
      allow_update_branch: false,
      use_squash_pr_title_as_default: false,
      ...template,
      fork: false,
      private: repo.visibility === 'private',
      visibility: repo.visibility,
      id: repo.id,
      name: repo.name,
      full_name: `${repo.owner}/${repo.name}`,
      default_branch: repo.defaultBranch,
      owner: { ...(template.owner as Json), login: repo.owner },
    };
  }

  private installationRepositories(grant: TokenGrant, query: URLSearchParams): HttpAnswer {
    const installation = this.installations.get(grant.installationId);
    const all = [...(installation?.repositories ?? [])]
      .map((k) => this.repositories.get(k))
      .filter((r): r is DoubleRepository => Boolean(r));
    const perPage = Math.min(100, Math.max(1, Number(query.get('per_page') ?? 30)));
    const page = Math.max(1, Number(query.get('page') ?? 1));
    const slice = all.slice((page - 1) * perPage, page * perPage);
    const headers: Record<string, string> = {};
    const pages = Math.ceil(all.length / perPage);
    if (page < pages) {
      headers.link =
        `<${this.url}/installation/repositories?per_page=${perPage}&page=${page + 1}>; rel="next", <${this.url}` +
        `/installation/repositories?per_page=${perPage}&page=${pages}>; rel="last"`;
    }
    return new HttpAnswer(
      200,
      {
        total_count: all.length,
        repository_selection: 'selected',
        repositories: slice.map((r) => this.repositoryBody(r)),
      },
      headers,
    );
  }

  private branchBody(repo: DoubleRepository, branch: string): Json {
    const template = this.retarget(example('branch-get'), repo);
    const shas = repo.branches.get(branch)!;
    const head = shas[shas.length - 1]!;
    const commit = {
      ...(template.commit as Json),
      sha: head,
      url: `${this.url}/repos/${repo.owner}/${repo.name}/commits/${head}`,
    };
    const isProtected = repo.protection.has(branch) || (repo.rules.get(branch) ?? []).length > 0;
    return {
      ...template,
      name: branch,
      commit,
      protected: isProtected,
      protection_url: `${this.url}/repos/${repo.owner}/${repo.name}/branches/${encodeURIComponent(branch)}/protection`,
    };
  }

  private protectionBody(repo: DoubleRepository, branch: string, requiredReviews: boolean): Json {
    // GitHub's OpenAPI example of protection does not match its own schema; a recorded real answer does.
    let text = JSON.stringify(recorded('branch-protection', 'put', 200));
    text = text
      .replaceAll('https://api.github.com', this.url)
      .replaceAll('octokit-fixture-org/branch-protection', `${repo.owner}/${repo.name}`);
    const body = JSON.parse(text) as Json;
    body.url = `${this.url}/repos/${repo.owner}/${repo.name}/branches/${encodeURIComponent(branch)}/protection`;
    // No push restrictions to people or teams (the 2022 recording's team lacks the `type` GitHub now documents).
    body.restrictions = { ...(body.restrictions as Json), users: [], teams: [], apps: [] };
    if (!requiredReviews) delete body.required_pull_request_reviews;
    return body;
  }

  private ruleBody(repo: DoubleRepository, type: string, index: number): Json {
    const base = {
      type,
      ruleset_source_type: 'Repository',
      ruleset_source: `${repo.owner}/${repo.name}`,
      ruleset_id: 40 + index,
    };
    if (type === 'pull_request') {
      return {
        ...base,
        parameters: {
          allowed_merge_methods: ['merge', 'squash', 'rebase'],
          dismiss_stale_reviews_on_push: false,
          require_code_owner_review: false,
          require_last_push_approval: false,
          required_approving_review_count: 1,
          required_review_thread_resolution: false,
        },
      };
    }
    return base;
  }

  private compare(repo: DoubleRepository, base: string, head: string): HttpAnswer {
    const baseShas = repo.branches.get(base);
    const headShas = repo.branches.get(head);
    if (!baseShas || !headShas) return notFound();
    const inBase = new Set(baseShas);
    const inHead = new Set(headShas);
    const ahead = headShas.filter((s) => !inBase.has(s));
    const behind = baseShas.filter((s) => !inHead.has(s));
    const template = this.retarget(example('commit-comparison'), repo);
    const commitTemplate = (template.commits as Json[])[0]!;
    const mergeBase = [...headShas].reverse().find((s) => inBase.has(s)) ?? baseShas[0]!;
    const status =
      ahead.length && behind.length ? 'diverged' : ahead.length ? 'ahead' : behind.length ? 'behind' : 'identical';
    return new HttpAnswer(200, {
      ...template,
      url: `${this.url}/repos/${repo.owner}/${repo.name}/compare/${base}...${head}`,
      base_commit: { ...(template.base_commit as Json), sha: baseShas[baseShas.length - 1] },
      merge_base_commit: { ...(template.merge_base_commit as Json), sha: mergeBase },
      status,
      ahead_by: ahead.length,
      behind_by: behind.length,
      total_commits: ahead.length,
      commits: ahead.map((s) => ({ ...commitTemplate, sha: s })),
      files: [],
    });
  }

  private newPull(
    repo: DoubleRepository,
    input: { head: string; base: string; title: string; body: string | null; user: string },
  ): DoublePull {
    const shas = repo.branches.get(input.head)!;
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const pull: DoublePull = {
      repo: this.key(repo),
      number: repo.nextNumber++,
      id: this.nextPullId++,
      state: 'open',
      title: input.title,
      body: input.body,
      head: input.head,
      headSha: shas[shas.length - 1]!,
      base: input.base,
      user: input.user,
      createdAt: now,
      updatedAt: now,
      files: [],
    };
    this.pulls.push(pull);
    return pull;
  }

  private pullBody(repo: DoubleRepository, pull: DoublePull, template: 'pull-request' | 'simple'): Json {
    const raw =
      template === 'pull-request' ? example('pull-request') : example<Json[]>('pull-request-simple-items')[0]!;
    const body = this.retarget(raw, repo);
    const html = `${this.url.replace('127.0.0.1', 'localhost')}/${repo.owner}/${repo.name}/pull/${pull.number}`;
    const api = `${this.url}/repos/${repo.owner}/${repo.name}/pulls/${pull.number}`;
    const side = (ref: string, s: string, which: 'head' | 'base') => {
      const t = body[which] as Json;
      return {
        ...t,
        label: `${repo.owner}:${ref}`,
        ref,
        sha: s,
        repo: this.repositoryBodyForPull(repo, t.repo as Json),
      };
    };
    const baseShas = repo.branches.get(pull.base) ?? [];
    return {
      ...body,
      id: pull.id,
      number: pull.number,
      state: pull.state,
      title: pull.title,
      body: pull.body,
      url: api,
      html_url: html,
      created_at: pull.createdAt,
      updated_at: pull.updatedAt,
      user: { ...(body.user as Json), login: pull.user, type: pull.user.endsWith('[bot]') ? 'Bot' : 'User' },
      head: side(pull.head, pull.headSha, 'head'),
      base: side(pull.base, baseShas[baseShas.length - 1] ?? pull.headSha, 'base'),
      merged_at: null,
      closed_at: null,
      draft: false,
      // A pull request the App just opened has no reviewers, teams, labels, assignees or milestone.
      requested_reviewers: [],
      requested_teams: [],
      labels: [],
      assignees: [],
      assignee: null,
      milestone: null,
      auto_merge: null,
    };
  }

  private repositoryBodyForPull(repo: DoubleRepository, template: Json): Json {
    return {
      ...template,
      id: repo.id,
      name: repo.name,
      full_name: `${repo.owner}/${repo.name}`,
      default_branch: repo.defaultBranch,
      owner: { ...(template.owner as Json), login: repo.owner },
    };
  }

  private commentBody(repo: DoubleRepository, comment: DoubleComment): Json {
    const body = this.retarget(example('issue-comment'), repo);
    const api = `${this.url}/repos/${repo.owner}/${repo.name}`;
    const web = `${this.url.replace('127.0.0.1', 'localhost')}/${repo.owner}/${repo.name}`;
    const bot = comment.user.endsWith('[bot]');
    return {
      ...body,
      id: comment.id,
      node_id: Buffer.from(`IssueComment${comment.id}`).toString('base64'),
      url: `${api}/issues/comments/${comment.id}`,
      html_url: `${web}/pull/${comment.number}#issuecomment-${comment.id}`,
      issue_url: `${api}/issues/${comment.number}`,
      body: comment.body,
      user: { ...(body.user as Json), login: comment.user, type: bot ? 'Bot' : 'User' },
      created_at: comment.createdAt,
      updated_at: comment.updatedAt,
      author_association: bot ? 'NONE' : 'COLLABORATOR',
      ...(bot ? { performed_via_github_app: null } : {}),
    };
  }

  private listComments(repo: DoubleRepository, number: number, query: URLSearchParams): HttpAnswer {
    const all = this.comments
      .filter((c) => c.repo === this.key(repo) && c.number === number)
      .sort((a, b) => a.id - b.id);
    const perPage = Math.min(100, Math.max(1, Number(query.get('per_page') ?? 30)));
    const page = Math.max(1, Number(query.get('page') ?? 1));
    const pages = Math.ceil(all.length / perPage);
    const headers: Record<string, string> = {};
    const base = `${this.url}/repos/${repo.owner}/${repo.name}/issues/${number}/comments?per_page=${perPage}`;
    if (page < pages) headers.link = `<${base}&page=${page + 1}>; rel="next", <${base}&page=${pages}>; rel="last"`;
    return new HttpAnswer(
      200,
      all.slice((page - 1) * perPage, page * perPage).map((c) => this.commentBody(repo, c)),
      headers,
    );
  }

  /** One page of a list (GitHub's per_page and page, with a Link header to the next and last pages). */
  private page<T>(
    all: readonly T[],
    query: URLSearchParams,
    base: string,
  ): { items: T[]; headers: Record<string, string> } {
    const perPage = Math.min(100, Math.max(1, Number(query.get('per_page') ?? 30)));
    const page = Math.max(1, Number(query.get('page') ?? 1));
    const pages = Math.ceil(all.length / perPage);
    const headers: Record<string, string> = {};
    if (page < pages)
      headers.link =
        `<${base}?per_page=${perPage}&page=${page + 1}>; rel="next", <${base}?per_page=${perPage}&page=${pages}>; ` +
        `rel="last"`;
    return { items: all.slice((page - 1) * perPage, page * perPage), headers };
  }

  /** The pull request's commits: those of its head branch that its base lacks, oldest first (GitHub caps at 250). */
  private pullCommits(repo: DoubleRepository, pull: DoublePull, query: URLSearchParams): HttpAnswer {
    const inBase = new Set(repo.branches.get(pull.base) ?? []);
    const shas = (repo.branches.get(pull.head) ?? []).filter((s) => !inBase.has(s)).slice(0, 250);
    const template = this.retarget(example<Json[]>('commit-items')[0]!, repo);
    const api = `${this.url}/repos/${repo.owner}/${repo.name}`;
    const { items, headers } = this.page(shas, query, `${api}/pulls/${pull.number}/commits`);
    return new HttpAnswer(
      200,
      items.map((s) => ({
        ...template,
        sha: s,
        url: `${api}/commits/${s}`,
        html_url: `${this.webUrl}/${repo.owner}/${repo.name}/commit/${s}`,
        node_id: Buffer.from(`Commit${s}`).toString('base64'),
        comments_url: `${api}/commits/${s}/comments`,
      })),
      headers,
    );
  }

  private pullFiles(repo: DoubleRepository, pull: DoublePull, query: URLSearchParams): HttpAnswer {
    const template = this.retarget(example<Json[]>('diff-entry-items')[0]!, repo);
    const { items, headers } = this.page(
      pull.files,
      query,
      `${this.url}/repos/${repo.owner}/${repo.name}/pulls/${pull.number}/files`,
    );
    return new HttpAnswer(
      200,
      items.map((f) => ({
        ...template,
        sha: crypto.createHash('sha1').update(f.filename).digest('hex'),
        filename: f.filename,
        status: f.status,
        blob_url: `${this.webUrl}/${repo.owner}/${repo.name}/blob/${pull.headSha}/${f.filename}`,
        raw_url: `${this.webUrl}/${repo.owner}/${repo.name}/raw/${pull.headSha}/${f.filename}`,
        contents_url: `${this.url}/repos/${repo.owner}/${repo.name}/contents/${f.filename}?ref=${pull.headSha}`,
      })),
      headers,
    );
  }

  /** A file (base64, as GitHub encodes it) or a directory's entries, at a commit sha or a branch's head. */
  private contents(repo: DoubleRepository, path: string, ref: string | null): HttpAnswer {
    const branch = repo.branches.get(ref ?? repo.defaultBranch);
    const commit = branch ? branch[branch.length - 1]! : ref!;
    const tree = repo.contents.get(commit);
    if (!tree && !branch && !/^[0-9a-f]{40}$/.test(commit)) {
      return new HttpAnswer(404, {
        message: `No commit found for the ref ${ref}`,
        documentation_url: `${DOCS}/repos/contents`,
        status: '404',
      });
    }
    const api = `${this.url}/repos/${repo.owner}/${repo.name}`;
    const web = `${this.webUrl}/${repo.owner}/${repo.name}`;
    const entry = (p: string, text: string | null) => {
      const blob = crypto
        .createHash('sha1')
        .update(text ?? p)
        .digest('hex');
      const self = `${api}/contents/${p}?ref=${commit}`;
      const html = `${web}/${text === null ? 'tree' : 'blob'}/${commit}/${p}`;
      const git = `${api}/git/${text === null ? 'trees' : 'blobs'}/${blob}`;
      return {
        type: text === null ? 'dir' : 'file',
        size: text === null ? 0 : Buffer.byteLength(text),
        name: p.split('/').pop()!,
        path: p,
        sha: blob,
        url: self,
        git_url: git,
        html_url: html,
        download_url: text === null ? null : `${web}/raw/${commit}/${p}`,
        _links: { self, git, html },
      };
    };
    const text = tree?.get(path);
    if (text !== undefined) {
      return new HttpAnswer(200, {
        ...entry(path, text),
        encoding: 'base64',
        content: Buffer.from(text)
          .toString('base64')
          .replace(/(.{60})/g, '$1\n'),
      });
    }
    const prefix = `${path.replace(/\/+$/, '')}/`;
    const names = new Map<string, string | null>();
    for (const [p, t] of tree ?? []) {
      if (!p.startsWith(prefix)) continue;
      const rest = p.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash < 0) names.set(p, t);
      else names.set(prefix + rest.slice(0, slash), null);
    }
    if (names.size === 0) return notFound();
    return new HttpAnswer(
      200,
      [...names].sort(([a], [b]) => a.localeCompare(b)).map(([p, t]) => entry(p, t)),
    );
  }

  private checkRunBody(repo: DoubleRepository, run: DoubleCheckRun): Json {
    const body = this.retarget(example('check-run'), repo);
    const api = `${this.url}/repos/${repo.owner}/${repo.name}`;
    return {
      ...body,
      id: run.id,
      node_id: Buffer.from(`CheckRun${run.id}`).toString('base64'),
      head_sha: run.headSha,
      external_id: run.externalId ?? '',
      url: `${api}/check-runs/${run.id}`,
      html_url: `${this.webUrl}/${repo.owner}/${repo.name}/runs/${run.id}`,
      details_url: run.detailsUrl,
      status: run.status,
      conclusion: run.conclusion,
      started_at: run.startedAt,
      completed_at: run.completedAt,
      name: run.name,
      output: {
        title: run.title,
        summary: run.summary,
        text: run.text,
        annotations_count: 0,
        annotations_url: `${api}/check-runs/${run.id}/annotations`,
      },
      app: { ...(body.app as Json), id: this.appId, slug: this.slug, name: 'Attest test App' },
      pull_requests: this.pulls
        .filter((p) => p.repo === this.key(repo) && p.headSha === run.headSha)
        .map((p) => ({
          url: `${api}/pulls/${p.number}`,
          id: p.id,
          number: p.number,
          head: { ref: p.head, sha: p.headSha, repo: { id: repo.id, url: api, name: repo.name } },
          base: {
            ref: p.base,
            sha: this.headOf(this.key(repo), p.base),
            repo: { id: repo.id, url: api, name: repo.name },
          },
        })),
    };
  }

  /** GitHub's rules for a check run's fields: a conclusion only with status completed (which then needs one). */
  private applyCheckRun(run: DoubleCheckRun, body: Json): HttpAnswer | null {
    const statuses = ['queued', 'in_progress', 'completed'];
    const conclusions = [
      'action_required',
      'cancelled',
      'failure',
      'neutral',
      'success',
      'skipped',
      'stale',
      'timed_out',
    ];
    if (body.status !== undefined && !statuses.includes(String(body.status)))
      return validationFailed([{ resource: 'CheckRun', field: 'status', code: 'invalid' }]);
    if (body.conclusion !== undefined && !conclusions.includes(String(body.conclusion)))
      return validationFailed([{ resource: 'CheckRun', field: 'conclusion', code: 'invalid' }]);
    const status =
      typeof body.conclusion === 'string' ? 'completed' : typeof body.status === 'string' ? body.status : run.status;
    if (status === 'completed' && typeof body.conclusion !== 'string' && run.conclusion === null) {
      return validationFailed([{ resource: 'CheckRun', field: 'conclusion', code: 'missing_field' }]);
    }
    const output = (body.output ?? null) as Json | null;
    if (output && (typeof output.title !== 'string' || typeof output.summary !== 'string')) {
      return validationFailed([{ resource: 'CheckRun', field: 'output', code: 'missing_field' }]);
    }
    if (output && String(output.summary).length > 65_535)
      return validationFailed([
        {
          resource: 'CheckRun',
          field: 'output.summary',
          code: 'custom',
          message: 'summary is too long (maximum is 65535 characters)',
        },
      ]);
    if (output && typeof output.text === 'string' && output.text.length > 65_535)
      return validationFailed([
        {
          resource: 'CheckRun',
          field: 'output.text',
          code: 'custom',
          message: 'text is too long (maximum is 65535 characters)',
        },
      ]);
    run.status = status;
    if (typeof body.conclusion === 'string') run.conclusion = body.conclusion;
    if (status === 'completed' && run.completedAt === null)
      run.completedAt = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    if (output) {
      run.title = String(output.title);
      run.summary = String(output.summary);
      run.text = typeof output.text === 'string' ? output.text : null;
    }
    if (typeof body.details_url === 'string') run.detailsUrl = body.details_url;
    if (typeof body.external_id === 'string') run.externalId = body.external_id;
    if (typeof body.name === 'string' && body.name !== '') run.name = body.name;
    return null;
  }

  private createCheckRun(repo: DoubleRepository, body: Json): HttpAnswer {
    if (typeof body.name !== 'string' || body.name === '')
      return validationFailed([{ resource: 'CheckRun', field: 'name', code: 'missing_field' }]);
    if (typeof body.head_sha !== 'string' || !/^[0-9a-f]{40}$/.test(body.head_sha))
      return validationFailed([{ resource: 'CheckRun', field: 'head_sha', code: 'invalid' }]);
    if (![...repo.branches.values()].some((shas) => shas.includes(body.head_sha as string))) {
      return new HttpAnswer(422, {
        message: `No commit found for SHA: ${body.head_sha}`,
        documentation_url: `${DOCS}/checks/runs#create-a-check-run`,
        status: '422',
      });
    }
    const run: DoubleCheckRun = {
      repo: this.key(repo),
      id: this.nextCheckRunId++,
      name: body.name,
      headSha: body.head_sha,
      status: 'queued',
      conclusion: null,
      title: null,
      summary: null,
      text: null,
      detailsUrl: null,
      externalId: null,
      startedAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      completedAt: null,
    };
    const refused = this.applyCheckRun(run, body);
    if (refused) return refused;
    this.checkRuns.push(run);
    return new HttpAnswer(201, this.checkRunBody(repo, run));
  }

  private updateCheckRun(repo: DoubleRepository, run: DoubleCheckRun, body: Json): HttpAnswer {
    const copy = { ...run };
    const refused = this.applyCheckRun(copy, body);
    if (refused) return refused;
    Object.assign(run, copy);
    return new HttpAnswer(200, this.checkRunBody(repo, run));
  }

  private listPulls(repo: DoubleRepository, query: URLSearchParams): HttpAnswer {
    const state = query.get('state') ?? 'open';
    const head = query.get('head');
    const base = query.get('base');
    const perPage = Math.min(100, Math.max(1, Number(query.get('per_page') ?? 30)));
    let list = this.pulls.filter((p) => p.repo === this.key(repo) && (state === 'all' || p.state === state));
    if (head) {
      // GitHub's head filter is "user:ref-name"; without the user part it filters nothing.
      const colon = head.indexOf(':');
      if (colon > 0) {
        const user = head.slice(0, colon).toLowerCase();
        const ref = head.slice(colon + 1);
        list = user === repo.owner.toLowerCase() ? list.filter((p) => p.head === ref) : [];
      }
    }
    if (base) list = list.filter((p) => p.base === base);
    list = [...list].sort((a, b) => b.number - a.number).slice(0, perPage);
    return new HttpAnswer(
      200,
      list.map((p) => this.pullBody(repo, p, 'simple')),
    );
  }

  private createPull(repo: DoubleRepository, body: Json): HttpAnswer {
    const { title, head, base } = body;
    if (typeof head !== 'string' || typeof base !== 'string')
      return validationFailed([
        { resource: 'PullRequest', field: typeof head !== 'string' ? 'head' : 'base', code: 'missing_field' },
      ]);
    const headRef = head.includes(':') ? head.slice(head.indexOf(':') + 1) : head;
    if (!repo.branches.has(base))
      return validationFailed([{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
    if (!repo.branches.has(headRef))
      return validationFailed([{ resource: 'PullRequest', field: 'head', code: 'invalid' }]);
    if (
      this.pulls.some((p) => p.repo === this.key(repo) && p.state === 'open' && p.head === headRef && p.base === base)
    ) {
      return validationFailed([
        {
          resource: 'PullRequest',
          code: 'custom',
          message: `A pull request already exists for ${repo.owner}:${headRef}.`,
        },
      ]);
    }
    const inBase = new Set(repo.branches.get(base));
    if (!(repo.branches.get(headRef) ?? []).some((s) => !inBase.has(s))) {
      return validationFailed([
        { resource: 'PullRequest', code: 'custom', message: `No commits between ${base} and ${headRef}` },
      ]);
    }
    if (typeof title !== 'string' || title === '')
      return validationFailed([{ resource: 'PullRequest', field: 'title', code: 'missing_field' }]);
    const pull = this.newPull(repo, {
      head: headRef,
      base,
      title,
      body: typeof body.body === 'string' ? body.body : null,
      user: `${this.slug}[bot]`,
    });
    return new HttpAnswer(201, this.pullBody(repo, pull, 'pull-request'));
  }
}
