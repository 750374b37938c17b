// Every way Attest turns a repository's spelling into the name it stores: one function, repositoryName, whose
// options say what each reader keeps. The three named views below are the option sets in use (tests in
// test/codehost/repository-name.test.ts show where they part).
// - normalizeRepoUrl: the CLI's capture of a git remote, written into a session's `env.gitRepo` as sent. It
//   keeps the host and the case of the path (`github.com/Owner/Repo`) and drops credentials; the gateway
//   normalises it again on arrival (normalizeRepo), and the stored document keeps the captured spelling.
// - normalizeRepo: a session's or an artifact's repository, the key the session list, its filters and the
//   metrics group by. Any remote spelling (https, ssh, scp-like, a port, `user@`, `.git`, a trailing slash)
//   becomes `owner/repo` for GitHub and `host/path` for other hosts, lower-cased.
// - normalizeRepository: a pull request's repository (a GitHub webhook's full name, a PR link's owner/repo, a
//   `repo` query of the PR reads). Only `http(s)://<any host>/` and `github.com/` prefixes and `.git` are
//   stripped, so `https://ghe.example.com/o/r` is `o/r` here but `ghe.example.com/o/r` for normalizeRepo, and
//   an scp-like `git@github.com:o/r` is kept as it is. On `owner/repo` and GitHub URLs the two agree.

export interface RepositoryNameOptions {
  /**
   * Which spellings are read as a remote. `git`: any git remote (a scheme, `user@` or credentials, scp-like
   * `host:path`, a port, trailing slashes), keeping its host as the first path segment. `http`: only an
   * `http(s)://host/` prefix, dropped with its host (a PR's repository is `owner/repo` on any GitHub host).
   */
  remotes: 'git' | 'http';
  /** Drop a leading `github.com/`, so GitHub repositories are `owner/repo`. */
  dropGithubHost: boolean;
  /** Lower-case the whole name (grouping keys); otherwise only a remote's host is lower-cased, as URLs do. */
  lowerCase: boolean;
}

export function repositoryName(raw: string, options: RepositoryNameOptions): string {
  let s = raw.trim();
  if (options.remotes === 'git') {
    const bare = s;
    s = s.replace(/^[a-z+]+:\/\//i, '').replace(/^[^@/]+@/, ''); // scheme, user or credentials
    s = s.replace(/^([^/:]+):(?!\d+\/)/, '$1/'); // scp-like host:path
    const remote = s !== bare;
    s = s.replace(/:\d+\//, '/'); // a port
    s = s.replace(/\.git$/i, '').replace(/\/+$/, '');
    if (remote && !options.lowerCase) s = s.replace(/^[^/]*/, (host) => host.toLowerCase());
  } else {
    s = s.replace(/^https?:\/\/[^/]+\//i, '').replace(/\.git$/i, '');
  }
  if (options.lowerCase) s = s.toLowerCase();
  if (options.dropGithubHost) s = s.replace(/^github\.com\//i, '');
  return s;
}

/** git@github.com:o/r.git, https://github.com/o/r(.git) → github.com/o/r (credentials dropped). */
export function normalizeRepoUrl(url: string): string {
  return repositoryName(url, { remotes: 'git', dropGithubHost: false, lowerCase: false });
}

/**
 * `owner/repo` for GitHub remotes in any spelling (https, ssh, scp-like, with or without .git), `host/path`
 * for other hosts, lower-cased so the same repository always groups together. '' when unknown.
 */
export function normalizeRepo(raw: string | undefined): string {
  return raw ? repositoryName(raw, { remotes: 'git', dropGithubHost: true, lowerCase: true }) : '';
}

/** A pull request's repository as the PR tables key it: `owner/repo`, lower-cased. */
export function normalizeRepository(repository: string): string {
  return repositoryName(repository, { remotes: 'http', dropGithubHost: true, lowerCase: true });
}
