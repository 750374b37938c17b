// Notification channels (webhook, Slack) and their deliveries. An event becomes one delivery row per channel
// (unique per event and channel, so a replayed enqueue sends nothing twice); the worker
// (src/jobs/notifications/worker.ts) claims due rows with a lease and calls deliver() here. At least once:
// a replica that dies mid-send frees the row when its lease ends and another sends it again, with the same
// X-Attest-Event-Id for the receiver to drop the duplicate.
import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/connection.js';
import type { FactoryContext, Gateway } from '../../server/context.js';
import { apiError, notFound } from '../../server/errors.js';
import { deriveSecret } from '../../server/pepper.js';
import { postJson, TargetRefused, targetProblem } from './outbound.js';
import { openSecret, sealSecret, slackRequest, webhookRequest } from './render.js';
import type {
  ChannelInput,
  ChannelKind,
  ChannelPatch,
  EventType,
  NotificationChannel,
  NotificationDelivery,
  NotificationEvent,
} from './schema.js';
import { EVENT_TYPES } from './schema.js';
import * as store from './store.js';

/** A delivery holds its row this long; a replica that dies mid-send frees it when the lease ends. */
export const LEASE_MS = 60_000;
export const BACKOFF_BASE_MS = 30_000;
export const BACKOFF_MAX_MS = 3600_000;
/** A delivery is retried for this long after the event, then given up. */
export const RETRY_WINDOW_MS = 24 * 3600_000;
/** A channel whose deliveries failed this many times in a row is disabled (its owner sees why). */
export const DISABLE_AFTER = 10;
/** Bodies of deliveries are kept this long (then the log keeps only status, code and latency). */
export const KEEP_BODIES_MS = 7 * 24 * 3600_000;

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

function secretKey(gateway: Gateway): string {
  return deriveSecret(gateway.pepper, 'notification-secrets');
}

function shownUrl(kind: string, url: string): string {
  if (kind !== 'slack') return url;
  // An incoming-webhook URL is itself the credential: show where it points, not the token.
  const u = new URL(url);
  const first = u.pathname.split('/').filter(Boolean)[0];
  return `${u.origin}/${first ? `${first}/` : ''}…`;
}

function channelWire(row: store.ChannelRow): NotificationChannel {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as ChannelKind,
    url: shownUrl(row.kind, row.url),
    events: JSON.parse(row.events) as NotificationChannel['events'],
    enabled: Number(row.enabled) === 1,
    disabledReason: row.disabled_reason,
    consecutiveFailures: Number(row.consecutive_failures),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

function deliveryWire(row: store.DeliveryRow): NotificationDelivery {
  return {
    id: row.id,
    channelId: row.channel_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status as NotificationDelivery['status'],
    attempts: Number(row.attempts),
    responseCode: row.response_code === null ? null : Number(row.response_code),
    latencyMs: row.latency_ms === null ? null : Number(row.latency_ms),
    error: row.error,
    requestBody: row.request_body,
    responseBody: row.response_body,
    createdAt: iso(row.created_at)!,
    lastAttemptAt: iso(row.last_attempt_at),
    nextAttemptAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    deliveredAt: iso(row.delivered_at),
  };
}

function checkTarget(ctx: FactoryContext, url: string): void {
  const problem = targetProblem(url, ctx.config.notifyAllowPrivate);
  if (problem) throw apiError('notification_target_refused', problem);
}

function uniqueEvents(events: readonly string[]): string[] {
  return EVENT_TYPES.filter((t) => events.includes(t));
}

export async function createChannel(
  ctx: FactoryContext,
  input: ChannelInput,
): Promise<NotificationChannel & { secret: string | null }> {
  checkTarget(ctx, input.url);
  const now = ctx.clock.now();
  const secret = input.kind === 'webhook' ? `whsec_${crypto.randomBytes(32).toString('base64url')}` : null;
  const row: store.ChannelRow = {
    id: crypto.randomUUID(),
    org_id: ctx.orgId,
    app_id: ctx.appId,
    name: input.name,
    kind: input.kind,
    url: input.url,
    events: JSON.stringify(uniqueEvents(input.events)),
    secret_enc: secret ? sealSecret(secretKey(ctx.gateway), secret) : null,
    enabled: 1,
    disabled_reason: null,
    consecutive_failures: 0,
    created_at: now,
    updated_at: now,
  };
  await store.insertChannel(ctx.db, row);
  return { ...channelWire(row), secret };
}

export async function listChannels(ctx: FactoryContext): Promise<NotificationChannel[]> {
  return (await store.listChannels(ctx.db, ctx.appId)).map(channelWire);
}

async function channelOf(ctx: FactoryContext, id: string): Promise<store.ChannelRow> {
  const row = await store.findChannel(ctx.db, ctx.appId, id);
  if (!row) throw notFound('notification_channel_not_found', 'No such notification channel in this factory.');
  return row;
}

export async function getChannel(ctx: FactoryContext, id: string): Promise<NotificationChannel> {
  return channelWire(await channelOf(ctx, id));
}

export async function updateChannel(
  ctx: FactoryContext,
  id: string,
  patch: ChannelPatch,
): Promise<NotificationChannel> {
  await channelOf(ctx, id);
  if (patch.url !== undefined) checkTarget(ctx, patch.url);
  await store.updateChannel(ctx.db, ctx.appId, id, {
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.url !== undefined ? { url: patch.url } : {}),
    ...(patch.events !== undefined ? { events: JSON.stringify(uniqueEvents(patch.events)) } : {}),
    ...(patch.enabled === true ? { enabled: 1, disabled_reason: null, consecutive_failures: 0 } : {}),
    ...(patch.enabled === false ? { enabled: 0, disabled_reason: null } : {}),
    updated_at: ctx.clock.now(),
  });
  return getChannel(ctx, id);
}

export async function deleteChannel(ctx: FactoryContext, id: string): Promise<void> {
  if (!(await store.deleteChannel(ctx.db, ctx.appId, id)))
    throw notFound('notification_channel_not_found', 'No such notification channel in this factory.');
}

export async function listDeliveries(
  ctx: FactoryContext,
  channelId: string,
  limit: number,
  offset: number,
): Promise<{ deliveries: NotificationDelivery[]; total: number }> {
  await channelOf(ctx, channelId);
  const [rows, total] = await Promise.all([
    store.listDeliveries(ctx.db, ctx.appId, channelId, limit, offset),
    store.countDeliveries(ctx.db, ctx.appId, channelId),
  ]);
  return { deliveries: rows.map(deliveryWire), total };
}

/** Channel ids that exist in the factory, of those named (for a budget's `notify`). */
export async function existingChannelIds(ctx: FactoryContext, ids: readonly string[]): Promise<Set<string>> {
  return new Set((await store.channelsByIds(ctx.db, ctx.appId, ids)).map((c) => c.id));
}

export interface EventTarget {
  orgId: string;
  appId: string;
}

/**
 * Queue `event` for each of the factory's channels among `channelIds` (or, when null, each subscribed to
 * its type). Runs in the caller's transaction, so an event is queued exactly when what caused it is stored.
 * Returns how many deliveries were queued.
 */
export async function enqueueEvent(
  db: Db,
  target: EventTarget,
  event: NotificationEvent,
  channelIds: readonly string[] | null,
  now: number,
): Promise<number> {
  const channels =
    channelIds === null
      ? (await store.listChannels(db, target.appId)).filter((c) =>
          (JSON.parse(c.events) as string[]).includes(event.type),
        )
      : await store.channelsByIds(db, target.appId, channelIds);
  let queued = 0;
  for (const c of channels) {
    if (Number(c.enabled) !== 1) continue;
    const inserted = await store.insertDelivery(db, pendingDelivery(target, c.id, event, now));
    if (inserted) queued++;
  }
  return queued;
}

/** A new delivery of `event` to one channel, waiting for its first attempt. */
function pendingDelivery(
  target: EventTarget,
  channelId: string,
  event: NotificationEvent,
  now: number,
): store.DeliveryRow {
  return {
    id: crypto.randomUUID(),
    org_id: target.orgId,
    app_id: target.appId,
    channel_id: channelId,
    event_id: event.id,
    event_type: event.type,
    event: JSON.stringify(event),
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    lease_owner: null,
    lease_until: null,
    response_code: null,
    latency_ms: null,
    error: null,
    request_body: null,
    response_body: null,
    last_attempt_at: null,
    delivered_at: null,
    created_at: now,
  };
}

/** The id of one occurrence: derived from what it is, so each replica and each re-run names it alike. */
export function occurrenceId(type: EventType, appId: string, key: string): string {
  return `evt_${crypto.createHash('sha256').update(`${type}|${appId}|${key}`).digest('hex').slice(0, 32)}`;
}

/**
 * Queue an event to the factory's channels subscribed to its type. `key` names the occurrence (a verdict's
 * change, a host's offline spell, a claim): the event id is derived from it and deliveries are unique per event
 * and channel, so however many replicas or runs see the occurrence, each channel is sent it once.
 */
export function emitEvent(
  db: Db,
  target: EventTarget,
  type: Exclude<EventType, 'test' | 'budget.threshold' | 'budget.forecast'>,
  key: string,
  data: NotificationEvent['data'],
  now: number,
): Promise<number> {
  const event: NotificationEvent = {
    id: occurrenceId(type, target.appId, key),
    type,
    version: 1,
    createdAt: new Date(now).toISOString(),
    appId: target.appId,
    data,
  };
  return enqueueEvent(db, target, event, null, now);
}

/** POST …/{id}/test: queue a test event for the channel and try it at once; answers the delivery. */
export async function sendTest(ctx: FactoryContext, channelId: string): Promise<NotificationDelivery> {
  const channel = await channelOf(ctx, channelId);
  const now = ctx.clock.now();
  const event: NotificationEvent = {
    id: `evt_${crypto.randomUUID()}`,
    type: 'test',
    version: 1,
    createdAt: new Date(now).toISOString(),
    appId: ctx.appId,
    data: { message: `A test event from Attest for the channel "${channel.name}".` },
  };
  // A disabled channel is sent its test anyway: the test is how its owner checks the fix.
  await store.insertDelivery(ctx.db, pendingDelivery(ctx, channel.id, event, now));
  const rows = await store.listDeliveries(ctx.db, ctx.appId, channel.id, 50, 0);
  const row = rows.find((r) => r.event_id === event.id)!;
  const owner = `test-${crypto.randomBytes(4).toString('hex')}`;
  const claimed = await store.claimDelivery(ctx.db, row.id, owner, now, LEASE_MS);
  if (claimed) await deliver(ctx.gateway, ctx.log, claimed, owner, { force: true });
  return deliveryWire((await store.findDelivery(ctx.db, ctx.appId, channel.id, row.id))!);
}

/** POST …/{id}/deliveries/{deliveryId}/redeliver: the same event (same id) goes out again now. */
export async function redeliver(
  ctx: FactoryContext,
  channelId: string,
  deliveryId: string,
): Promise<NotificationDelivery> {
  await channelOf(ctx, channelId);
  const row = await store.findDelivery(ctx.db, ctx.appId, channelId, deliveryId);
  if (!row) throw notFound('notification_delivery_not_found', 'No such delivery of this notification channel.');
  if (row.event === null)
    throw apiError('delivery_body_expired', 'The delivery is older than 7 days; its body is no longer kept.');
  await store.requeueDelivery(ctx.db, ctx.appId, row.id, ctx.clock.now());
  return deliveryWire((await store.findDelivery(ctx.db, ctx.appId, channelId, deliveryId))!);
}

export type DeliveryOutcome = 'succeeded' | 'retried' | 'failed';

function retryable(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

/**
 * One attempt at a claimed delivery: send, then record the answer (or why none came), retry with backoff
 * for up to 24 h, and count the channel's failures. `force` sends to a disabled channel (a test).
 */
export async function deliver(
  gateway: Gateway,
  log: FastifyBaseLogger,
  row: store.DeliveryRow,
  owner: string,
  opts: { force?: boolean } = {},
): Promise<DeliveryOutcome> {
  const channel = await store.channelById(gateway.db, row.channel_id);
  const startedAt = gateway.clock.now();
  const record = (a: Omit<store.AttemptResult, 'now'>) =>
    store.recordAttempt(gateway.db, row.id, owner, { ...a, now: startedAt });
  if (!channel || row.event === null || (Number(channel.enabled) !== 1 && !opts.force)) {
    await record({
      status: 'failed',
      nextAttemptAt: null,
      responseCode: null,
      latencyMs: null,
      error: channel ? 'The channel is disabled.' : 'The channel no longer exists.',
      requestBody: null,
      responseBody: null,
    });
    return 'failed';
  }
  const event = JSON.parse(row.event) as NotificationEvent;
  const request =
    channel.kind === 'webhook'
      ? webhookRequest(event, openSecret(secretKey(gateway), channel.secret_enc ?? ''), startedAt)
      : slackRequest(event);
  let status: number | null = null;
  let latencyMs: number | null = null;
  let responseBody: string | null = null;
  let error: string | null = null;
  let retry = false;
  try {
    const answer = await postJson(channel.url, request.body, request.headers, gateway.config.notifyAllowPrivate);
    status = answer.status;
    latencyMs = answer.latencyMs;
    responseBody = answer.body;
    if (status < 200 || status >= 300) {
      error = `The receiver answered HTTP ${status}.`;
      retry = retryable(status);
    }
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
    retry = !(err instanceof TargetRefused);
  }
  if (error === null) {
    await record({
      status: 'succeeded',
      nextAttemptAt: null,
      responseCode: status,
      latencyMs,
      error: null,
      requestBody: request.body,
      responseBody,
    });
    await store.channelSucceeded(gateway.db, channel.id);
    return 'succeeded';
  }
  const attempts = Number(row.attempts) + 1;
  const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempts - 1));
  const nextAt = startedAt + backoff;
  const giveUp = !retry || nextAt > Number(row.created_at) + RETRY_WINDOW_MS;
  await record({
    status: giveUp ? 'failed' : 'pending',
    nextAttemptAt: giveUp ? null : nextAt,
    responseCode: status,
    latencyMs,
    error,
    requestBody: request.body,
    responseBody,
  });
  await store.channelFailed(
    gateway.db,
    channel.id,
    DISABLE_AFTER,
    `Disabled after ${DISABLE_AFTER} failed deliveries in a row; the last: ${error}`,
    startedAt,
  );
  log.warn({ channel: channel.id, delivery: row.id, attempts, status, error, giveUp }, 'notification not delivered');
  return giveUp ? 'failed' : 'retried';
}

export interface DeliveryReport {
  claimed: number;
  succeeded: number;
  retried: number;
  failed: number;
}

/** Claim and send every delivery due now (by the gateway's clock), at most `batch`. */
export async function deliverDue(
  gateway: Gateway,
  log: FastifyBaseLogger,
  owner: string,
  batch: number,
): Promise<DeliveryReport> {
  const report: DeliveryReport = { claimed: 0, succeeded: 0, retried: 0, failed: 0 };
  for (const { id } of await store.dueDeliveries(gateway.db, gateway.clock.now(), batch)) {
    const row = await store.claimDelivery(gateway.db, id, owner, gateway.clock.now(), LEASE_MS);
    if (!row) continue;
    report.claimed++;
    report[await deliver(gateway, log, row, owner)]++;
  }
  return report;
}

export type { EventType };
