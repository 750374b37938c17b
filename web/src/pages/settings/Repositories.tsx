// The factory's connected repositories as GET /v1/repositories reads them live from GitHub: whether builds
// may open pull requests (pull request write granted / pending / missing), whether the App may keep the PR
// comment, and whether the default branch requires a pull request. A caller holding repositories.write also
// connects a repository of a bound installation here (POST /v1/repositories, the API's errors under their
// fields) and disconnects one behind a confirmation (DELETE /v1/repositories/{owner}/{repo}).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiClientError } from '../../api/client';
import { ConfirmDialog } from '../../ui/confirm';
import { FieldError, FormError, NO_ERRORS, fieldId, fieldProps, formErrorsOf, type FormErrors } from './fields';
import {
  connectRepository,
  disconnectRepository,
  installationsQuery,
  repositoriesQuery,
  type Repository,
} from './query';

type Grant = Repository['pullRequestWrite'];

const GRANT: Record<Grant, { className: string; text: string; help: string }> = {
  granted: { className: 'ok', text: 'granted', help: 'The installation grants it.' },
  pending: {
    className: 'warn',
    text: 'pending',
    help:
      "The App asks for it but the installation's owner has not accepted the new permission yet: accept it on the " +
      "installation's page on GitHub.",
  },
  missing: {
    className: 'bad',
    text: 'missing',
    help: 'The App does not ask for it, or the installation no longer includes this repository.',
  },
};

function GrantChip({ value, testId }: { value: Grant; testId: string }) {
  const g = GRANT[value];
  return (
    <span className={`chip ${g.className}`} title={g.help} data-testid={testId}>
      {g.text}
    </span>
  );
}

export function RepositoriesSection({
  appId,
  canRead,
  canWrite,
}: {
  appId: string;
  canRead: boolean;
  canWrite: boolean;
}) {
  return (
    <section className="settings-section" aria-labelledby="repos-title" data-testid="repositories">
      <h2 id="repos-title">Connected repositories</h2>
      {canRead ? (
        <RepositoryTable appId={appId} canWrite={canWrite} />
      ) : (
        <p className="muted">
          Your role cannot see connected repositories (it needs <code>repositories.read</code>).
        </p>
      )}
      {canRead && canWrite && <ConnectForm appId={appId} />}
    </section>
  );
}

const CONNECT_FIELDS = ['repository', 'installationId'] as const;
/** GitHub's owner and repository name rules, as POST /v1/repositories checks them (repositories/routes.ts). */
const REPOSITORY_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9_.-]{1,100}$/;
/** Path-less refusals of POST /v1/repositories and the field each concerns. */
const CONNECT_BY_CODE = {
  installation_not_bound: 'installationId',
  repository_not_in_installation: 'repository',
} as const;

function ConnectForm({ appId }: { appId: string }) {
  const qc = useQueryClient();
  const installations = useQuery(installationsQuery(appId));
  const [repository, setRepository] = useState('');
  const [installationId, setInstallationId] = useState('');
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [connected, setConnected] = useState<string | null>(null);
  const connect = useMutation({
    mutationFn: () =>
      connectRepository(appId, {
        repository: repository.trim(),
        installationId: Number(installationId || installations.data?.[0]?.installationId),
      }),
    onSuccess: async (entry) => {
      setErrors(NO_ERRORS);
      setConnected(entry.repository);
      setRepository('');
      await qc.invalidateQueries({ queryKey: repositoriesQuery(appId).queryKey });
    },
    onError: (err) => {
      setConnected(null);
      setErrors(formErrorsOf(err, CONNECT_FIELDS, CONNECT_BY_CODE));
    },
  });
  if (installations.isPending || installations.isError) return null;
  if (installations.data.length === 0) {
    return (
      <p className="muted small" data-testid="connect-needs-installation">
        To connect a repository, first bind the App installation that holds it (GitHub App installations, below).
      </p>
    );
  }
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    // Said in words here; the API's own refusal of the same name quotes its pattern.
    if (!REPOSITORY_NAME.test(repository.trim())) {
      setConnected(null);
      setErrors({
        fields: { repository: 'Write it as owner/repo, as GitHub spells it: letters, digits, -, _ and . only.' },
        form: null,
      });
      return;
    }
    connect.mutate();
  };
  return (
    <form
      className="settings-form"
      onSubmit={onSubmit}
      noValidate
      data-testid="connect-form"
      aria-labelledby="connect-title"
    >
      <h3 id="connect-title">Connect a repository</h3>
      <div className="field">
        <label htmlFor={fieldId('connect', 'repository')}>Repository</label>
        <input
          value={repository}
          onChange={(e) => setRepository(e.target.value)}
          placeholder="owner/repo"
          autoComplete="off"
          {...fieldProps('connect', 'repository', errors)}
        />
        <FieldError form="connect" field="repository" errors={errors} />
      </div>
      <div className="field">
        <label htmlFor={fieldId('connect', 'installationId')}>Installation</label>
        <select
          value={installationId || String(installations.data[0]!.installationId)}
          onChange={(e) => setInstallationId(e.target.value)}
          {...fieldProps('connect', 'installationId', errors)}
        >
          {installations.data.map((i) => (
            <option key={i.installationId} value={i.installationId}>
              {i.installationId}
              {i.account ? ` (${i.account})` : ''}
            </option>
          ))}
        </select>
        <FieldError form="connect" field="installationId" errors={errors} />
      </div>
      <FormError form="connect" errors={errors} />
      {connected && (
        <p className="notice" role="status" data-testid="connected-notice">
          {connected} is connected.
        </p>
      )}
      <button type="submit" className="primary" disabled={connect.isPending}>
        {connect.isPending ? 'Connecting…' : 'Connect'}
      </button>
    </form>
  );
}

function RepositoryTable({ appId, canWrite }: { appId: string; canWrite: boolean }) {
  const repos = useQuery(repositoriesQuery(appId));
  const qc = useQueryClient();
  const [disconnecting, setDisconnecting] = useState<string | null>(null);
  const disconnect = useMutation({
    mutationFn: (repository: string) => disconnectRepository(appId, repository),
    onSuccess: async () => {
      setDisconnecting(null);
      await qc.invalidateQueries({ queryKey: repositoriesQuery(appId).queryKey });
    },
  });
  if (repos.isPending)
    return (
      <p className="muted" role="status">
        Asking GitHub…
      </p>
    );
  if (repos.isError) {
    const err = repos.error;
    if (err instanceof ApiClientError && err.code === 'repository_tokens_unavailable') {
      // No App configured, or GitHub refuses its credentials: the API's message says which.
      return (
        <p className="notice" data-testid="repositories-no-app">
          The gateway cannot reach GitHub as its App: {err.message} See docs/github-app.md.
        </p>
      );
    }
    return (
      <p className="error-text" role="alert">
        {err.message}
      </p>
    );
  }
  if (repos.data.length === 0) {
    return (
      <p className="muted" data-testid="repositories-empty">
        No repository is connected to this factory. Bind the App installation to it (
        <strong>Install the App on GitHub</strong> under GitHub App installations below), then connect its repositories
        here or with <code>POST /v1/repositories</code> (docs/github-app.md §3).
      </p>
    );
  }
  return (
    <>
      <table className="grid" data-testid="repositories-table">
        <thead>
          <tr>
            <th>Repository</th>
            <th>Default branch</th>
            <th>Pull request write</th>
            <th>PR comment</th>
            <th>Default branch requires a PR</th>
            <th>Installation</th>
            {canWrite && <th />}
          </tr>
        </thead>
        <tbody>
          {repos.data.map((r) => (
            <tr key={r.repository} data-repository={r.repository}>
              <td>{r.repository}</td>
              <td className="mono">{r.defaultBranch}</td>
              <td>
                <GrantChip value={r.pullRequestWrite} testId="pr-write" />
              </td>
              <td>
                <GrantChip value={r.commentWrite} testId="comment-write" />
              </td>
              <td data-testid="requires-pr">{r.defaultBranchRequiresPullRequest ? 'yes' : 'no'}</td>
              <td className="mono">{r.installationId}</td>
              {canWrite && (
                <td>
                  <button
                    type="button"
                    className="danger"
                    onClick={() => {
                      disconnect.reset();
                      setDisconnecting(r.repository);
                    }}
                  >
                    Disconnect
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted small">
        Pull request write: <strong>granted</strong> builds may open pull requests; <strong>pending</strong> the
        installation's owner must accept the new permission on GitHub; <strong>missing</strong> the App does not ask for
        it or the installation dropped the repository. PR comment: whether the App may keep the evidence comment (pull
        requests or issues write).
      </p>
      <ConfirmDialog
        open={disconnecting !== null}
        title={`Disconnect ${disconnecting ?? ''}?`}
        confirmLabel="Disconnect repository"
        busy={disconnect.isPending}
        error={disconnect.error?.message ?? null}
        onCancel={() => setDisconnecting(null)}
        onConfirm={() => {
          if (disconnecting) disconnect.mutate(disconnecting);
        }}
      >
        <p>
          Builds of this factory can no longer open pull requests there, and webhooks from it no longer update this
          factory. Its sessions and pull requests stay. Connect it again at any time.
        </p>
      </ConfirmDialog>
    </>
  );
}
