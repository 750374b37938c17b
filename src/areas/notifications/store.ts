// SQL of notification channels and their deliveries. Every read and change is scoped by factory, except the
// worker's claim of due deliveries, which reads across factories (a delivery names its factory).
import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

export interface NotificationChannelsTable {
  id: string;
  org_id: string;
  app_id: string;
  name: string;
  kind: string;
  url: string;
  events: string;
  secret_enc: string | null;
  enabled: number;
  disabled_reason: string | null;
  consecutive_failures: number;
  created_at: number;
  updated_at: number;
}

export interface NotificationDeliveriesTable {
  id: string;
  org_id: string;
  app_id: string;
  channel_id: string;
  event_id: string;
  event_type: string;
  event: string | null;
  status: string;
  attempts: number;
  next_attempt_at: number | null;
  lease_owner: string | null;
  lease_until: number | null;
  response_code: number | null;
  latency_ms: number | null;
  error: string | null;
  request_body: string | null;
  response_body: string | null;
  last_attempt_at: number | null;
  delivered_at: number | null;
  created_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    notification_channels: NotificationChannelsTable;
    notification_deliveries: NotificationDeliveriesTable;
  }
}

export type ChannelRow = NotificationChannelsTable;
export type DeliveryRow = NotificationDeliveriesTable;

export async function insertChannel(db: Db, row: ChannelRow): Promise<void> {
  await db.insertInto('notification_channels').values(row).execute();
}

export function listChannels(db: Db, appId: string): Promise<ChannelRow[]> {
  return db
    .selectFrom('notification_channels')
    .selectAll()
    .where('app_id', '=', appId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function findChannel(db: Db, appId: string, id: string): Promise<ChannelRow | undefined> {
  return db
    .selectFrom('notification_channels')
    .selectAll()
    .where('app_id', '=', appId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function channelsByIds(db: Db, appId: string, ids: readonly string[]): Promise<ChannelRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('notification_channels')
    .selectAll()
    .where('app_id', '=', appId)
    .where('id', 'in', [...ids])
    .execute();
}

export async function updateChannel(
  db: Db,
  appId: string,
  id: string,
  set: Partial<Omit<ChannelRow, 'id' | 'org_id' | 'app_id' | 'created_at'>>,
): Promise<boolean> {
  const r = await db
    .updateTable('notification_channels')
    .set(set)
    .where('app_id', '=', appId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function deleteChannel(db: Db, appId: string, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('notification_deliveries').where('app_id', '=', appId).where('channel_id', '=', id).execute();
    const r = await trx
      .deleteFrom('notification_channels')
      .where('app_id', '=', appId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  });
}

/** One delivery per event and channel: a second insert of the same event is a no-op (false). */
export async function insertDelivery(db: Db, row: DeliveryRow): Promise<boolean> {
  const r = await db
    .insertInto('notification_deliveries')
    .values(row)
    .onConflict((oc) => oc.columns(['channel_id', 'event_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return r !== undefined;
}

export function listDeliveries(
  db: Db,
  appId: string,
  channelId: string,
  limit: number,
  offset: number,
): Promise<DeliveryRow[]> {
  return db
    .selectFrom('notification_deliveries')
    .selectAll()
    .where('app_id', '=', appId)
    .where('channel_id', '=', channelId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countDeliveries(db: Db, appId: string, channelId: string): Promise<number> {
  const r = await db
    .selectFrom('notification_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('app_id', '=', appId)
    .where('channel_id', '=', channelId)
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

export function findDelivery(db: Db, appId: string, channelId: string, id: string): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('notification_deliveries')
    .selectAll()
    .where('app_id', '=', appId)
    .where('channel_id', '=', channelId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Send it again now: back to pending with a fresh attempt count (the event id stays). */
export async function requeueDelivery(db: Db, appId: string, id: string, now: number): Promise<void> {
  await db
    .updateTable('notification_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: now, lease_owner: null, lease_until: null })
    .where('app_id', '=', appId)
    .where('id', '=', id)
    .execute();
}

/** Pending deliveries due now and not leased by a live replica, oldest first. */
export function dueDeliveries(db: Db, now: number, limit: number): Promise<Array<{ id: string }>> {
  return db
    .selectFrom('notification_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();
}

/** Take the lease when nobody holds a live one: the conditional update decides between replicas. */
export async function claimDelivery(
  db: Db,
  id: string,
  owner: string,
  now: number,
  leaseMs: number,
): Promise<DeliveryRow | null> {
  const r = await db
    .updateTable('notification_deliveries')
    .set({ lease_owner: owner, lease_until: now + leaseMs })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return null;
  const row = await db
    .selectFrom('notification_deliveries')
    .selectAll()
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return row ?? null;
}

export interface AttemptResult {
  status: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt: number | null;
  responseCode: number | null;
  latencyMs: number | null;
  error: string | null;
  requestBody: string | null;
  responseBody: string | null;
  now: number;
}

/** Record one attempt, only while this replica still holds the lease. */
export async function recordAttempt(db: Db, id: string, owner: string, a: AttemptResult): Promise<void> {
  await db
    .updateTable('notification_deliveries')
    .set((eb) => ({
      status: a.status,
      attempts: eb('attempts', '+', 1),
      next_attempt_at: a.nextAttemptAt,
      lease_owner: null,
      lease_until: null,
      response_code: a.responseCode,
      latency_ms: a.latencyMs,
      error: a.error,
      request_body: a.requestBody,
      response_body: a.responseBody,
      last_attempt_at: a.now,
      ...(a.status === 'succeeded' ? { delivered_at: a.now } : {}),
    }))
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute();
}

/** A failed attempt: count it, and disable the channel once `disableAfter` fail in a row. */
export async function channelFailed(
  db: Db,
  id: string,
  disableAfter: number,
  reason: string,
  now: number,
): Promise<void> {
  await db
    .updateTable('notification_channels')
    .set((eb) => ({ consecutive_failures: eb('consecutive_failures', '+', 1), updated_at: now }))
    .where('id', '=', id)
    .execute();
  await db
    .updateTable('notification_channels')
    .set({ enabled: 0, disabled_reason: reason })
    .where('id', '=', id)
    .where('enabled', '=', 1)
    .where('consecutive_failures', '>=', disableAfter)
    .execute();
}

export async function channelSucceeded(db: Db, id: string): Promise<void> {
  await db
    .updateTable('notification_channels')
    .set({ consecutive_failures: 0 })
    .where('id', '=', id)
    .where('consecutive_failures', '>', 0)
    .execute();
}

export function channelById(db: Db, id: string): Promise<ChannelRow | undefined> {
  return db.selectFrom('notification_channels').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Forgets the bodies of at most `limit` finished deliveries older than `before` (the log keeps its rows, not what
 * they carried); how many. The conditions are written as the partial index notification_deliveries_bodies
 * (migration 0044) is, literal for literal, so both stores read it.
 */
export async function dropOldBodies(db: Db, before: number, limit: number): Promise<number> {
  const r = await db
    .updateTable('notification_deliveries')
    .set({ event: null, request_body: null, response_body: null })
    .where('id', 'in', (sub) =>
      sub
        .selectFrom('notification_deliveries')
        .select('id')
        .where('created_at', '<', before)
        .where(sql<boolean>`status <> 'pending' and (request_body is not null or event is not null)`)
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Deletes at most `limit` finished deliveries (succeeded, or failed for good) created before `before`
 * (housekeeping); how many. Reads by notification_deliveries_finished (migration 0042).
 */
export async function deleteFinishedBefore(db: Db, before: number, limit: number): Promise<number> {
  const res = await db
    .deleteFrom('notification_deliveries')
    .where('id', 'in', (sub) =>
      sub
        .selectFrom('notification_deliveries')
        .select('id')
        .where('status', 'in', ['succeeded', 'failed'])
        .where('created_at', '<', before)
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
