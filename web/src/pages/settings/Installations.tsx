// The GitHub App installations bound to the factory (the ones its repositories may be connected from): who
// bound each and when, a button that opens the App's install page on GitHub with this factory's install link,
// and unbind behind a confirmation that names the repositories it disconnects. Controls appear only for a
// caller holding repositories.write; the API refuses the rest anyway.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiClientError } from '../../api/client';
import { ConfirmDialog } from '../../ui/confirm';
import { formatTime } from '../../ui/format';
import {
  installationsQuery,
  installLink,
  repositoriesQuery,
  unbindInstallation,
  type Installation,
  type Unbound,
} from './query';

const BOUND_VIA: Record<Installation['boundVia'], string> = { install_link: 'install link', admin: 'the operator' };

export function InstallationsSection({
  appId,
  canRead,
  canWrite,
  installed,
}: {
  appId: string;
  canRead: boolean;
  canWrite: boolean;
  installed?: number | undefined;
}) {
  return (
    <section className="settings-section" aria-labelledby="installations-title" data-testid="installations">
      <h2 id="installations-title">GitHub App installations</h2>
      {canRead ? (
        <InstallationTable appId={appId} canWrite={canWrite} installed={installed} />
      ) : (
        <p className="muted">
          Your role cannot see the App installations (it needs <code>repositories.read</code>).
        </p>
      )}
    </section>
  );
}

function InstallButton({ appId }: { appId: string }) {
  const open = useMutation({
    mutationFn: () => installLink(appId),
    // GitHub sends the browser back to the gateway's setup URL, which binds the installation to this factory.
    onSuccess: (url) => window.location.assign(url),
  });
  const unavailable = open.error instanceof ApiClientError && open.error.code === 'repository_tokens_unavailable';
  return (
    <p>
      <button type="button" onClick={() => open.mutate()} disabled={open.isPending}>
        Install the App on GitHub…
      </button>{' '}
      <span className="muted small">
        Opens GitHub with a link for this factory (valid 30 minutes, once); installing there binds the installation
        here.
      </span>
      {open.isError && (
        <span className="error-text" role="alert" data-testid="install-link-error">
          {' '}
          {unavailable ? `The gateway cannot reach GitHub as its App: ${open.error.message}` : open.error.message}
        </span>
      )}
    </p>
  );
}

function InstallationTable({
  appId,
  canWrite,
  installed,
}: {
  appId: string;
  canWrite: boolean;
  installed?: number | undefined;
}) {
  const installations = useQuery(installationsQuery(appId));
  // Which repositories an unbind would disconnect; read live from GitHub, so only when someone asks.
  const [unbinding, setUnbinding] = useState<Installation | null>(null);
  const repositories = useQuery({ ...repositoriesQuery(appId), enabled: unbinding !== null });
  const [done, setDone] = useState<Unbound | null>(null);
  const qc = useQueryClient();
  const unbind = useMutation({
    mutationFn: (installationId: number) => unbindInstallation(appId, installationId),
    onSuccess: async (result) => {
      setUnbinding(null);
      setDone(result);
      await Promise.all([
        qc.invalidateQueries({ queryKey: installationsQuery(appId).queryKey }),
        qc.invalidateQueries({ queryKey: repositoriesQuery(appId).queryKey }),
      ]);
    },
  });
  if (installations.isPending)
    return (
      <p className="muted" role="status">
        Loading installations…
      </p>
    );
  if (installations.isError)
    return (
      <p className="error-text" role="alert">
        {installations.error.message}
      </p>
    );
  // Back from GitHub through the setup URL: say so when the installation is indeed bound here.
  const justBound =
    installed !== undefined && done === null
      ? installations.data.find((i) => i.installationId === installed)
      : undefined;
  const affected =
    unbinding && repositories.data
      ? repositories.data.filter((r) => r.installationId === unbinding.installationId).map((r) => r.repository)
      : null;
  const boundAccount = justBound?.account ? ` (${justBound.account})` : '';
  return (
    <>
      {justBound && (
        <p className="notice" role="status" data-testid="installed-notice">
          Installation {justBound.installationId}
          {boundAccount} is bound to this factory. Connect its repositories with <code>POST /v1/repositories</code>{' '}
          (docs/github-app.md §3).
        </p>
      )}
      {done && (
        <p className="notice" role="status" data-testid="unbound-notice">
          Installation {done.installationId}
          {done.account ? ` (${done.account})` : ''} is no longer bound to this factory.{' '}
          {done.disconnectedRepositories.length > 0
            ? `Disconnected: ${done.disconnectedRepositories.join(', ')}.`
            : 'No repository was connected through it.'}
        </p>
      )}
      {installations.data.length === 0 ? (
        <p className="muted" data-testid="installations-empty">
          No App installation is bound to this factory, so no repository can be connected yet.
        </p>
      ) : (
        <table className="grid" data-testid="installations-table">
          <thead>
            <tr>
              <th>Installation</th>
              <th>Account</th>
              <th>Bound by</th>
              <th>Bound</th>
              {canWrite && <th />}
            </tr>
          </thead>
          <tbody>
            {installations.data.map((i) => (
              <tr key={i.installationId} data-installation={i.installationId}>
                <td className="mono">{i.installationId}</td>
                <td>{i.account ?? '—'}</td>
                <td>{BOUND_VIA[i.boundVia]}</td>
                <td>{formatTime(i.boundAt)}</td>
                {canWrite && (
                  <td>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => {
                        unbind.reset();
                        setDone(null);
                        setUnbinding(i);
                      }}
                    >
                      Unbind
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {canWrite ? (
        <InstallButton appId={appId} />
      ) : (
        <p className="muted small" data-testid="installations-read-only">
          Binding and unbinding need <code>repositories.write</code>.
        </p>
      )}
      <ConfirmDialog
        open={unbinding !== null}
        title={
          `Unbind installation ${unbinding?.installationId ?? ''}` +
          `${unbinding?.account ? ` (${unbinding.account})` : ''}?`
        }
        confirmLabel="Unbind installation"
        busy={unbind.isPending}
        error={unbind.error?.message ?? null}
        onCancel={() => setUnbinding(null)}
        onConfirm={() => {
          if (unbinding) unbind.mutate(unbinding.installationId);
        }}
      >
        <p>
          This factory can no longer connect repositories from it, and the ones connected through it are disconnected:
        </p>
        <p data-testid="unbind-affected">
          {affected === null
            ? repositories.isError
              ? 'every repository connected through it (GitHub could not be asked which).'
              : 'asking which…'
            : affected.length > 0
              ? affected.join(', ')
              : 'none is connected through it.'}
        </p>
        <p className="muted small">
          The App stays installed on GitHub; uninstall it there to revoke it everywhere. Installing again through the
          button binds it again.
        </p>
      </ConfirmDialog>
    </>
  );
}
