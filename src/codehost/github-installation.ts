// Repository-level calls of the GitHub App with one installation token (github.ts mints and caches the
// token; a token GitHub refuses is renewed once).
import type { Octokit } from '@octokit/rest';
import { apiError } from '../server/errors.js';
import {
  DEFAULT_RETRY_AFTER_S,
  type InstallationToken,
  type RepositoryInfo,
  type PullRequestRef,
  type PullRequestSnapshot,
  snapshotOf,
  isHttpError,
  unavailable,
  isNotFound,
  isNotAccessible,
  errorMessages,
  type IssueComment,
  type IssueCommentAnswer,
  commentOf,
} from './github-answers.js';

/** Repository-level calls with one installation token. */
export interface InstallationSession {
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
      if (this.renewed)
        throw unavailable(
          'GitHub refused a freshly minted installation token; safe to retry.',
          DEFAULT_RETRY_AFTER_S.failure,
        );
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
    return new Map(
      repos.map((r) => [
        r.full_name.toLowerCase(),
        { id: r.id, fullName: r.full_name, defaultBranch: r.default_branch },
      ]),
    );
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
    const { data: rules } = await this.call(() =>
      this.octokit.rest.repos.getBranchRules({ owner, repo, branch, per_page: 100 }),
    );
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
    const mine = data.find(
      (p) => p.head.ref === branch && (p.head.repo?.full_name ?? '').toLowerCase() === `${owner}/${repo}`.toLowerCase(),
    );
    return mine ? { number: mine.number, url: mine.html_url } : null;
  }

  /**
   * Open a pull request. Returns 'exists' when GitHub says one is already open for the branch (a retried
   * or concurrent call won the race), 'no_commits' when GitHub finds nothing to merge, 'no_branch' when it
   * does not know the head.
   */
  async createPullRequest(
    owner: string,
    repo: string,
    input: { head: string; base: string; title: string; body: string },
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
  async listIssueComments(
    owner: string,
    repo: string,
    number: number,
  ): Promise<IssueComment[] | 'not_found' | 'not_accessible'> {
    try {
      const comments = await this.call(() =>
        this.octokit.paginate(this.octokit.rest.issues.listComments, {
          owner,
          repo,
          issue_number: number,
          per_page: 100,
        }),
      );
      return comments.map((c) => commentOf(c as IssueCommentAnswer));
    } catch (err) {
      if (isNotFound(err) || (isHttpError(err) && err.status === 410)) return 'not_found';
      if (isNotAccessible(err)) return 'not_accessible';
      throw err;
    }
  }

  /** Comment on an issue or pull request (POST .../issues/{n}/comments). */
  async createIssueComment(
    owner: string,
    repo: string,
    number: number,
    body: string,
  ): Promise<IssueComment | 'not_found' | 'not_accessible'> {
    try {
      const { data } = await this.call(() =>
        this.octokit.rest.issues.createComment({ owner, repo, issue_number: number, body }),
      );
      return commentOf(data as IssueCommentAnswer);
    } catch (err) {
      if (isNotFound(err) || (isHttpError(err) && err.status === 410)) return 'not_found';
      if (isNotAccessible(err)) return 'not_accessible';
      throw err;
    }
  }

  /** Replace a comment's body (PATCH .../issues/comments/{id}); 'not_found' when it was deleted. */
  async updateIssueComment(
    owner: string,
    repo: string,
    commentId: number,
    body: string,
  ): Promise<IssueComment | 'not_found' | 'not_accessible'> {
    try {
      const { data } = await this.call(() =>
        this.octokit.rest.issues.updateComment({ owner, repo, comment_id: commentId, body }),
      );
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
  async updatePullRequest(
    owner: string,
    repo: string,
    number: number,
    input: { title: string; body: string },
  ): Promise<PullRequestSnapshot | 'not_accessible'> {
    try {
      const { data } = await this.call(() =>
        this.octokit.rest.pulls.update({ owner, repo, pull_number: number, ...input }),
      );
      return snapshotOf(data);
    } catch (err) {
      if (isNotAccessible(err)) return 'not_accessible';
      throw err;
    }
  }
}
