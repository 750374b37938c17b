// Every way Attest turns a repository's spelling into the name it stores, in one place. There are three, and
// they are not the same function: each keeps what its readers have always seen (tests in
// test/codehost/repository-name.test.ts show where they part).
// - normalizeRepoUrl: the CLI's capture of a git remote, written into a session's `env.gitRepo` as sent. It
//   keeps the host and the case (`github.com/Owner/Repo`) and drops credentials; the gateway normalises it
//   again on arrival (normalizeRepo), and the stored document keeps the captured spelling.
// - normalizeRepo: a session's or an artifact's repository, the key the session list, its filters and the
//   metrics group by. Any remote spelling (https, ssh, scp-like, a port, `user@`, `.git`, a trailing slash)
//   becomes `owner/repo` for GitHub and `host/path` for other hosts, lower-cased.
// - normalizeRepository: a pull request's repository (a GitHub webhook's full name, a PR link's owner/repo, a
//   `repo` query of the PR reads). Only `http(s)://<any host>/` and `github.com/` prefixes and `.git` are
//   stripped, so `https://ghe.example.com/o/r` is `o/r` here but `ghe.example.com/o/r` for normalizeRepo, and
//   an scp-like `git@github.com:o/r` is kept as it is. On `owner/repo` and GitHub URLs the two agree.

/** git@github.com:o/r.git, https://github.com/o/r(.git) → github.com/o/r (credentials dropped). */
export function normalizeRepoUrl(url: string): string {
  const scp = /^[^@\s]+@([^:\s]+):(.+?)(?:\.git)?\/?$/.exec(url);
  if (scp) return `${scp[1]}/${scp[2]}`;
  try {
    const u = new URL(url);
    return `${u.hostname}${u.pathname.replace(/\.git$/, '').replace(/\/$/, '')}`;
  } catch {
    return url;
  }
}

/**
 * `owner/repo` for GitHub remotes in any spelling (https, ssh, scp-like, with or without .git), `host/path`
 * for other hosts, lower-cased so the same repository always groups together. '' when unknown.
 */
export function normalizeRepo(raw: string | undefined): string {
  if (!raw) return '';
  let s = raw.trim();
  if (!s) return '';
  s = s.replace(/^[a-z+]+:\/\//i, '').replace(/^[^@/]+@/, '');
  s = s.replace(/^([^/:]+):(?!\d+\/)/, '$1/');
  s = s.replace(/:\d+\//, '/');
  s = s.replace(/\.git$/i, '').replace(/\/+$/, '');
  s = s.toLowerCase();
  if (s.startsWith('github.com/')) s = s.slice('github.com/'.length);
  return s;
}

/** A pull request's repository as the PR tables key it: `owner/repo`, lower-cased. */
export function normalizeRepository(repository: string): string {
  return repository
    .trim()
    .replace(/^https?:\/\/[^/]+\//i, '')
    .replace(/^github\.com\//i, '')
    .replace(/\.git$/i, '')
    .toLowerCase();
}
