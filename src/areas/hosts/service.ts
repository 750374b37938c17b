// Runner hosts: a heartbeat upserts the host; the status is derived when read, from the age of the last
// heartbeat and the load it reported (API.md §5), so no job has to mark hosts stale or offline.
import type { FactoryContext, Gateway } from '../../server/context.js';
import { emitEvent } from '../notifications/service.js';
import type { Heartbeat, Host, HostStatus } from './schema.js';
import * as store from './store.js';

export const ONLINE_MS = 90_000;
export const STALE_MS = 600_000;

/**
 * online: heard from within 90 s and below capacity; busy: within 90 s at capacity; stale: within 10 min; offline:
 * older.
 */
export function statusOf(
  host: Pick<store.HostRow, 'last_heartbeat_at' | 'capacity' | 'active_jobs'>,
  now: number,
): HostStatus {
  const age = now - Number(host.last_heartbeat_at);
  if (age > STALE_MS) return 'offline';
  if (age > ONLINE_MS) return 'stale';
  return Number(host.active_jobs) >= Number(host.capacity) ? 'busy' : 'online';
}

function toWire(h: store.HostRow, now: number): Host {
  return {
    hostId: h.host_id,
    name: h.name,
    runnerVersion: h.runner_version,
    capacity: Number(h.capacity),
    activeJobs: Number(h.active_jobs),
    labels: JSON.parse(h.labels) as string[],
    firstSeenAt: new Date(Number(h.first_seen_at)).toISOString(),
    lastHeartbeatAt: new Date(Number(h.last_heartbeat_at)).toISOString(),
    status: statusOf(h, now),
  };
}

export async function heartbeat(ctx: FactoryContext, input: Heartbeat): Promise<Host> {
  const now = ctx.clock.now();
  await store.upsertHost(ctx.db, {
    app_id: ctx.appId,
    host_id: input.hostId,
    org_id: ctx.orgId,
    name: input.name,
    runner_version: input.runnerVersion,
    capacity: input.capacity,
    active_jobs: input.activeJobs,
    labels: JSON.stringify([...new Set(input.labels ?? [])]),
    first_seen_at: now,
    last_heartbeat_at: now,
  });
  const row = await store.findHost(ctx.db, ctx.appId, input.hostId);
  if (!row) throw new Error('host vanished right after its heartbeat');
  return toWire(row, now);
}

export async function listHosts(ctx: FactoryContext): Promise<Host[]> {
  const now = ctx.clock.now();
  return (await store.listHosts(ctx.db, ctx.appId)).map((h) => toWire(h, now));
}

/** A spell that began this long before the sweep first sees it is not announced (e.g. hosts long gone at upgrade). */
export const OFFLINE_LOOKBACK_MS = 24 * 3600_000;
const SWEEP_BATCH = 200;

/**
 * host.offline: every host silent for longer than STALE_MS (the `offline` status) is announced once per spell,
 * the spell named by its last heartbeat: a host that comes back and falls silent again is a new spell. The
 * event is queued before the spell is marked, and named by it, so a crash in between or a second replica
 * sweeping at once queues nothing twice. Returns how many spells were announced.
 */
export async function announceOfflineHosts(gateway: Gateway, now: number): Promise<number> {
  const hosts = await store.unannouncedOffline(gateway.db, now - STALE_MS, now - OFFLINE_LOOKBACK_MS, SWEEP_BATCH);
  for (const h of hosts) {
    const last = Number(h.last_heartbeat_at);
    await emitEvent(
      gateway.db,
      { orgId: h.org_id, appId: h.app_id },
      'host.offline',
      `${h.host_id}|${last}`,
      {
        hostId: h.host_id,
        name: h.name,
        runnerVersion: h.runner_version,
        labels: JSON.parse(h.labels) as string[],
        lastHeartbeatAt: new Date(last).toISOString(),
        offlineAfterSeconds: STALE_MS / 1000,
        url: `${gateway.config.publicUrl}/f/${h.app_id}/hosts`,
      },
      now,
    );
    await store.markOfflineNoticed(gateway.db, h.app_id, h.host_id, last);
  }
  return hosts.length;
}
