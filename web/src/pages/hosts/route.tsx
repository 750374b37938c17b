// /f/$appId/hosts: the factory's runner hosts (GET /v1/hosts) with the status the gateway derived, capacity,
// active jobs and the age of the last heartbeat. Asked again every 5 s while open; the age ticks every second.
import { createRoute } from '@tanstack/react-router';
import { useSuspenseQuery } from '@tanstack/react-query';
import { factoryRoute } from '../factory/route';
import { HOSTS_REFRESH_MS, hostsQuery } from './query';
import { formatInt, formatTime } from '../../ui/format';
import { ago, useNow } from '../../ui/time';

export const hostsRoute = createRoute({
  getParentRoute: () => factoryRoute,
  path: 'hosts',
  loader: ({ context, params }) => context.queryClient.ensureQueryData(hostsQuery(params.appId)),
  component: HostsPage,
});

const STATUS_TONE: Record<string, string> = { online: 'ok', busy: 'warn', stale: 'warn', offline: 'bad' };

function HostsPage() {
  const { appId } = hostsRoute.useParams();
  const { data: hosts } = useSuspenseQuery(hostsQuery(appId));
  const now = useNow(1000);
  const counts = hosts.reduce<Record<string, number>>((m, h) => ({ ...m, [h.status]: (m[h.status] ?? 0) + 1 }), {});
  return (
    <>
      <h1>
        Hosts{' '}
        <span className="muted" data-testid="hosts-total">
          {formatInt(hosts.length)}
        </span>
      </h1>
      {hosts.length === 0 ? (
        <div className="empty" data-testid="hosts-empty">
          <p>No runner host has sent a heartbeat to this factory yet.</p>
          <p className="muted">
            A host appears here with its first heartbeat (<code>POST /v1/hosts/heartbeat</code>, a key with{' '}
            <code>hosts.write</code>, in the ingest preset). From a runner machine:
          </p>
          <pre>{`attest login --url ${window.location.origin}\nattest host heartbeat --capacity 4 --every 30s`}</pre>
        </div>
      ) : (
        <>
          <p className="muted" data-testid="hosts-summary">
            {(['online', 'busy', 'stale', 'offline'] as const)
              .filter((s) => counts[s])
              .map((s) => `${formatInt(counts[s] ?? 0)} ${s}`)
              .join(' · ')}{' '}
            — refreshed every {HOSTS_REFRESH_MS / 1000} s. Online: heard from within 90 s with a free slot; busy: within
            90 s and at capacity; stale: within 10 min; offline: older.
          </p>
          <table className="grid" data-testid="hosts-table">
            <thead>
              <tr>
                <th>Host</th>
                <th>Status</th>
                <th className="num">Active jobs</th>
                <th className="num">Capacity</th>
                <th>Last heartbeat</th>
                <th>Runner</th>
                <th>Labels</th>
                <th>First seen</th>
              </tr>
            </thead>
            <tbody>
              {hosts.map((h) => (
                <tr key={h.hostId} data-host={h.hostId}>
                  <td>
                    <b>{h.name}</b>
                    <div className="muted mono">{h.hostId}</div>
                  </td>
                  <td>
                    <span className={`chip ${STATUS_TONE[h.status] ?? ''}`} data-testid="host-status">
                      {h.status}
                    </span>
                  </td>
                  <td className="num" data-testid="host-active">
                    {formatInt(h.activeJobs)}
                  </td>
                  <td className="num" data-testid="host-capacity">
                    {formatInt(h.capacity)}
                  </td>
                  <td>
                    <span data-testid="host-heartbeat" title={formatTime(h.lastHeartbeatAt)}>
                      {ago(h.lastHeartbeatAt, now)}
                    </span>
                  </td>
                  <td className="mono">{h.runnerVersion}</td>
                  <td>
                    {h.labels.length === 0 ? (
                      <span className="muted">—</span>
                    ) : (
                      h.labels.map((l) => (
                        <span key={l} className="chip">
                          {l}
                        </span>
                      ))
                    )}
                  </td>
                  <td>{formatTime(h.firstSeenAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </>
  );
}
