// The factory's connected repositories as GET /v1/repositories reads them live from GitHub: whether builds
// may open pull requests (pull request write granted / pending / missing), whether the App may keep the PR
// comment, and whether the default branch requires a pull request. Connecting is done with the API or CLI
// (docs/github-app.md §3); this section only reads.
import { useQuery } from '@tanstack/react-query';
import { ApiError } from '../../api/client';
import { repositoriesQuery, type Repository } from './query';

type Grant = Repository['pullRequestWrite'];

const GRANT: Record<Grant, { className: string; text: string; help: string }> = {
  granted: { className: 'ok', text: 'granted', help: 'The installation grants it.' },
  pending: { className: 'warn', text: 'pending', help: "The App asks for it but the installation's owner has not accepted the new permission yet: accept it on the installation's page on GitHub." },
  missing: { className: 'bad', text: 'missing', help: 'The App does not ask for it, or the installation no longer includes this repository.' },
};

function GrantChip({ value, testId }: { value: Grant; testId: string }) {
  const g = GRANT[value];
  return <span className={`chip ${g.className}`} title={g.help} data-testid={testId}>{g.text}</span>;
}

export function RepositoriesSection({ appId, canRead }: { appId: string; canRead: boolean }) {
  return (
    <section className="settings-section" aria-labelledby="repos-title" data-testid="repositories">
      <h2 id="repos-title">Connected repositories</h2>
      {canRead ? <RepositoryTable appId={appId} /> : <p className="muted">Your role cannot see connected repositories (it needs <code>repositories.read</code>).</p>}
    </section>
  );
}

function RepositoryTable({ appId }: { appId: string }) {
  const repos = useQuery(repositoriesQuery(appId));
  if (repos.isPending) return <p className="muted" role="status">Asking GitHub…</p>;
  if (repos.isError) {
    const err = repos.error;
    if (err instanceof ApiError && err.code === 'repository_tokens_unavailable') {
      // No App configured, or GitHub refuses its credentials: the API's message says which.
      return <p className="notice" data-testid="repositories-no-app">The gateway cannot reach GitHub as its App: {err.message} See docs/github-app.md.</p>;
    }
    return <p className="error-text" role="alert">{err.message}</p>;
  }
  if (repos.data.length === 0) {
    return <p className="muted" data-testid="repositories-empty">No repository is connected to this factory. Bind the App installation to it (<strong>Install the App on GitHub</strong> under GitHub App installations below), then connect its repositories with <code>POST /v1/repositories</code> (docs/github-app.md §3).</p>;
  }
  return (
    <>
      <table className="grid" data-testid="repositories-table">
        <thead>
          <tr><th>Repository</th><th>Default branch</th><th>Pull request write</th><th>PR comment</th><th>Default branch requires a PR</th><th>Installation</th></tr>
        </thead>
        <tbody>
          {repos.data.map((r) => (
            <tr key={r.repository} data-repository={r.repository}>
              <td>{r.repository}</td>
              <td className="mono">{r.defaultBranch}</td>
              <td><GrantChip value={r.pullRequestWrite} testId="pr-write" /></td>
              <td><GrantChip value={r.commentWrite} testId="comment-write" /></td>
              <td data-testid="requires-pr">{r.defaultBranchRequiresPullRequest ? 'yes' : 'no'}</td>
              <td className="mono">{r.installationId}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted small">
        Pull request write: <strong>granted</strong> builds may open pull requests; <strong>pending</strong> the installation's owner must accept
        the new permission on GitHub; <strong>missing</strong> the App does not ask for it or the installation dropped the repository.
        PR comment: whether the App may keep the evidence comment (pull requests or issues write).
      </p>
    </>
  );
}
