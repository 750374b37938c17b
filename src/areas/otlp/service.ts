// OTLP in: a decoded logs export becomes stored agent events (each once) and the sessions they belong to,
// with the new events folded in, in one durable transaction: the answer (a 2xx) is sent after it commits.
// Claude Code's usage metrics become daily rollups (metrics.ts); spans are decoded, counted and refused.
import type { FactoryContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { durableWriter, type DurableWriter } from '../../db/group-commit.js';
import { lockAllForTransaction, lockForTransaction } from '../../db/locks.js';
import { commitsOfDocument, linkCommitsAfter } from '../prs/commit-links.js';
import { findUserByEmail, membershipOf } from '../orgs/service.js';
import {
  actorOfCaller,
  storedSessions,
  storeFoldedSessions,
  type FoldedSession,
  type SessionActor,
  type WrittenDocument,
} from '../sessions/ingest.js';
import { sessionKeyOf } from '../sessions/document.js';
import { DocumentCache } from '../sessions/document-cache.js';
import type { Db } from '../../db/connection.js';
import { OTLP_LIMITS } from './decode.js';
import { eventsOf, type AgentEvent, type RecordsOutcome } from './events.js';
import type { ExportLogsMessage, ExportMetricsRequest, ExportTraceRequest } from './proto.js';
import { foldInto, sessionDocument } from './session.js';
import { checkTelemetrySession, encodeTelemetryDocument } from './document-text.js';
import { sessionAttributes } from './attributes.js';
import * as store from './store.js';
import { EventsAlreadyStored, insertEventBatch, type EventBatch } from './event-rows.js';
import { countOf, dayOf, increment, pointsOf, type MetricPoint, type SeriesState } from './metrics.js';

export interface ExportOutcome {
  /** Records (log records, data points, spans) not kept. */
  rejected: number;
  /** Why, in one line, when some were refused. */
  message: string;
}

function tooMany(count: number, what: string) {
  return apiError('payload_too_large', `${count} ${what} is more than one request may hold; split the export.`, {
    limit: OTLP_LIMITS.records,
    unit: what,
  });
}

/**
 * Who a session's events say ran it: the org member with the event's `user.email`, else that email, else the
 * account uuid; the sending credential when the events name nobody.
 */
async function actorOf(
  ctx: FactoryContext,
  events: readonly AgentEvent[],
  named: Map<string, Promise<SessionActor>>,
): Promise<SessionActor> {
  const attr = (name: string) => {
    for (const e of events) {
      const v = e.data[name];
      if (typeof v === 'string' && v !== '') return v;
    }
    return undefined;
  };
  const email = attr('user.email');
  const account = attr('user.account_uuid') ?? attr('user.account_id');
  const memo = JSON.stringify([email ?? null, account ?? null]);
  let actor = named.get(memo);
  if (!actor) {
    actor = actorNamed(ctx, email, account);
    named.set(memo, actor);
  }
  return actor;
}

/** The actor an email or account uuid names (see actorOf). */
async function actorNamed(
  ctx: FactoryContext,
  rawEmail: string | undefined,
  account: string | undefined,
): Promise<SessionActor> {
  const email = rawEmail?.toLowerCase();
  const credentialId = ctx.principal.credentialId;
  if (email) {
    const user = await findUserByEmail(ctx.db, email);
    if (user && (await membershipOf(ctx.db, ctx.orgId, user.id)))
      return { actorId: user.id, actorName: user.name || user.email, credentialId };
    return { actorId: email, actorName: email, credentialId };
  }
  if (account) return { actorId: `account:${account}`, actorName: account, credentialId };
  return actorOfCaller(ctx);
}

/**
 * The sessions that received new events (keyed by JSON of [agent, session id]), each with the document exactly
 * what rebuilding it from all of its stored events makes: new events later than a stored session's last are
 * folded into its document; a session seen for the first time is made from its new events alone; any other
 * (events arriving out of order, a session whose earlier events made no document) is rebuilt from every stored
 * event. A session a transcript made is left alone: the transcript is authoritative.
 */
async function sessionDocuments(
  ctx: FactoryContext,
  trx: Db,
  fresh: ReadonlyMap<string, AgentEvent[]>,
  actors: ReadonlyMap<string, SessionActor>,
): Promise<Map<string, FoldedSession>> {
  const ids = new Map<string, [AgentEvent['agent'], string]>();
  for (const key of fresh.keys()) ids.set(key, JSON.parse(key) as [AgentEvent['agent'], string]);
  const stored = await storedSessions(
    trx,
    ctx.appId,
    [...ids.values()].map(([, id]) => sessionKeyOf({ id })),
    documentCache(ctx),
  );
  const unseen = [...ids].filter(([, [, id]]) => !stored.has(sessionKeyOf({ id })));
  const counts = await store.eventCounts(
    trx,
    ctx.appId,
    unseen.map(([, pair]) => pair),
  );
  const out = new Map<string, FoldedSession>();
  for (const [key, events] of fresh) {
    const [agent, sessionId] = ids.get(key)!;
    const current = stored.get(sessionKeyOf({ id: sessionId }));
    if (current?.source === 'transcript') continue;
    const base = { before: current?.row ?? null, actor: actors.get(key)! };
    // foldInto leaves the document alone when it answers null, so the rebuilt one is compared with it.
    if (current?.doc && current.doc.agent.type === agent) {
      const doc = foldInto(current.doc, events);
      if (doc) {
        out.set(key, { ...base, doc });
        continue;
      }
    } else if (!current && counts.get(key) === events.length) {
      out.set(key, { ...base, doc: sessionDocument(agent, sessionId, events) });
      continue;
    }
    const all = await store.sessionEvents(trx, ctx.appId, agent, sessionId);
    const doc = sessionDocument(
      agent,
      sessionId,
      all.map((r) => ({
        name: r.name,
        ts: Number(r.ts),
        seq: Number(r.seq),
        data: JSON.parse(r.data) as AgentEvent['data'],
      })),
    );
    out.set(key, { ...base, doc, stored: current?.doc ?? null });
  }
  return out;
}

/**
 * The decoded documents of the sessions this gateway stored last, per store: a running session gets a batch every
 * few seconds, and decoding its whole stored document for each was a fifth of an export's CPU. About 64 MiB of
 * JSON at most (the documents' heap is a few times that).
 */
const documentCaches = new WeakMap<Db, DocumentCache>();
function documentCache(ctx: FactoryContext): DocumentCache {
  let cache = documentCaches.get(ctx.db);
  if (!cache) {
    cache = new DocumentCache(64 * 1024 * 1024);
    documentCaches.set(ctx.db, cache);
  }
  return cache;
}

/**
 * Exports being stored at once, per gateway process. Past its limit (ATTEST_OTLP_MAX_IN_FLIGHT) the store is not
 * keeping up (each export waits for the ones before it to commit): a new one answers 503 with Retry-After at
 * once, which an exporter honours, instead of queueing until its own timeout and sending the batch again on top
 * of the queue.
 */
const inFlight = new WeakMap<object, number>();

/** Exports this gateway process is storing now (what its in-flight limit counts). */
export const exportsInFlight = (gateway: object): number => inFlight.get(gateway) ?? 0;

async function admitted<T>(ctx: FactoryContext, work: () => Promise<T>): Promise<T> {
  const n = inFlight.get(ctx.gateway) ?? 0;
  if (n >= ctx.gateway.config.otlpMaxInFlight)
    throw apiError(
      'store_unavailable',
      'The gateway is storing as many exports as it can; retry shortly.',
      {},
      { 'Retry-After': '1' },
    );
  inFlight.set(ctx.gateway, n + 1);
  try {
    return await work();
  } finally {
    inFlight.set(ctx.gateway, (inFlight.get(ctx.gateway) ?? 1) - 1);
  }
}

/**
 * Not async, and the request decoded here (`decode`): it is read into events before anything is awaited, so no
 * frame holds it while the export is stored. A suspended async frame keeps its parameters and temporaries: the
 * message of 512 records (tens of thousands of small objects) outlived two young-generation collections, was
 * promoted, and the old generation grew by about that much an export until a major GC paused the gateway.
 */
export function exportLogs(ctx: FactoryContext, decode: () => ExportLogsMessage): Promise<ExportOutcome> {
  let request: ExportLogsMessage;
  try {
    request = decode();
  } catch (err) {
    return Promise.reject(err);
  }
  let records = 0;
  for (const rl of request.resourceLogs ?? [])
    for (const sl of rl.scopeLogs ?? []) records += sl.logRecords?.length ?? 0;
  if (records > OTLP_LIMITS.records) return Promise.reject(tooMany(records, 'log records'));

  // Announced before the records are read, so a group commit about to start (SQLite) waits for this one.
  const writer = durableWriter(ctx.db, ctx.gateway.dialect);
  let read: RecordsOutcome;
  try {
    read = eventsOf(request);
  } catch (err) {
    writer.leave();
    return Promise.reject(err);
  }
  return logsOf(ctx, writer, read).finally(() => writer.leave());
}

async function logsOf(ctx: FactoryContext, writer: DurableWriter, read: RecordsOutcome): Promise<ExportOutcome> {
  const { events, rejected, reasons } = read;
  const message = rejected ? `${rejected} log records were not kept: ${reasons.join('; ')}` : '';
  if (!events.length) return { rejected, message };

  // Grouped by a cheap key first; each session's JSON key (what the rest reads) is written once.
  const groups = new Map<string, AgentEvent[]>();
  for (const e of events) {
    const key = `${e.agent}\u0000${e.sessionId}`;
    const list = groups.get(key);
    if (list) list.push(e);
    else groups.set(key, [e]);
  }
  const bySession = new Map<string, AgentEvent[]>();
  for (const list of groups.values()) bySession.set(JSON.stringify([list[0]!.agent, list[0]!.sessionId]), list);
  const sessionKeys = [...bySession.keys()].sort();
  const actors = new Map<string, SessionActor>();
  // An export is usually one developer's: their sessions name the same person, looked up once.
  const named = new Map<string, Promise<SessionActor>>();
  for (const key of sessionKeys) actors.set(key, await actorOf(ctx, bySession.get(key)!, named));

  const seen = new Set<string>();
  const rows: EventBatch = { appId: ctx.appId, orgId: ctx.orgId, receivedAt: ctx.clock.now(), events: [] };
  for (const e of events) {
    if (seen.has(e.key)) continue;
    seen.add(e.key);
    rows.events.push({
      event_key: e.key,
      agent: e.agent,
      session_id: e.sessionId,
      name: e.name,
      ts: e.ts,
      seq: e.seq,
      data: JSON.stringify(e.data),
    });
  }

  await admitted(ctx, () => storeEvents(ctx, writer, rows, sessionKeys, bySession, actors));
  return { rejected, message };
}

/**
 * The new events stored, and the sessions they changed, in one durable transaction: each session read once and
 * written once (storeFoldedSessions), its document kept decoded for the next export once committed.
 */
async function storeEvents(
  ctx: FactoryContext,
  writer: DurableWriter,
  rows: EventBatch,
  sessionKeys: readonly string[],
  bySession: ReadonlyMap<string, AgentEvent[]>,
  actors: ReadonlyMap<string, SessionActor>,
): Promise<void> {
  // What the last run of the work wrote (it runs again, alone, when its group's commit fails).
  let written: WrittenDocument[] = [];
  // PostgreSQL: a first try that meets a stored event (an exporter's retry) runs again, skipping stored events.
  let mayBeStored = false;
  const work = async (trx: Db) => {
    written = [];
    // One session's events are written and read back by one request at a time (PostgreSQL), so the session
    // rebuilt last holds every event committed before it.
    await lockAllForTransaction(
      trx,
      ctx.gateway.dialect,
      sessionKeys.map((key) => `telemetry:${ctx.appId}:${key}`),
    );
    const inserted = await insertEventBatch(trx, rows, mayBeStored);
    if (inserted.size === 0) return; // a retry of what is stored: nothing changes
    // Custom resource attributes (team=payments): what a budget scoped by an attribute counts by.
    await store.keepSessionAttributes(trx, sessionAttributes(ctx.appId, bySession, ctx.clock.now()));
    const fresh = new Map<string, AgentEvent[]>();
    for (const key of sessionKeys) {
      const list = bySession.get(key)!.filter((e) => inserted.has(e.key) && inserted.delete(e.key));
      if (list.length) fresh.set(key, list);
    }
    const folded = await sessionDocuments(ctx, trx, fresh, actors);
    const valid: FoldedSession[] = [];
    for (const item of folded.values()) {
      const checked = checkTelemetrySession(item.doc);
      if (checked.ok) valid.push(item);
      else
        ctx.log.warn(
          { sessionId: item.doc.id, reason: checked.reason },
          'telemetry session does not validate; not stored',
        );
    }
    // Last: it ends with the counter rows every session of a day shares (sessions/write.ts).
    written = await storeFoldedSessions(ctx, trx, valid, 'telemetry', encodeTelemetryDocument);
  };
  try {
    await writer.commit(work);
  } catch (err) {
    if (!(err instanceof EventsAlreadyStored)) throw err;
    mayBeStored = true;
    await writer.commit(work);
  }
  const cache = documentCache(ctx);
  for (const w of written) cache.put(w.id, w.encoded.body, w.encoded.rawBytes, w.doc);
  // PostgreSQL: a PR whose commits were read while this export ran is linked now (prs/commit-links.ts).
  await linkCommitsAfter(
    ctx.db,
    ctx.appId,
    written.flatMap((w) => commitsOfDocument(w.doc)),
  );
}

/**
 * An OTLP metrics export: its points are read out of the decoded request before anything is awaited, and the
 * request is not kept (not async), so it is not held by a suspended frame through the store's transaction and
 * promoted to the old generation (the logs path, exportLogs, measured the stall that made).
 */
export function exportMetrics(ctx: FactoryContext, request: ExportMetricsRequest): Promise<ExportOutcome> {
  let kept: ReturnType<typeof pointsOf>;
  try {
    let points = 0;
    for (const rm of request.resourceMetrics ?? [])
      for (const sm of rm.scopeMetrics ?? []) for (const m of sm.metrics ?? []) points += countOf(m);
    if (points > OTLP_LIMITS.records) throw tooMany(points, 'data points');
    kept = pointsOf(request);
  } catch (err) {
    return Promise.reject(err);
  }
  return metricsKept(ctx, kept);
}

async function metricsKept(ctx: FactoryContext, kept: ReturnType<typeof pointsOf>): Promise<ExportOutcome> {
  const message = kept.rejected ? `${kept.rejected} data points were not kept: ${kept.reasons.join('; ')}` : '';
  if (kept.points.length) await admitted(ctx, () => storeMetricPoints(ctx, kept.points));
  return { rejected: kept.rejected, message };
}

/**
 * Each point's increment added to its day's rollup, and its series' last state kept, in one durable
 * transaction. Exports of one factory's metrics take turns (PostgreSQL), so a series' last value is the one
 * the previous export left.
 */
async function storeMetricPoints(ctx: FactoryContext, points: MetricPoint[]): Promise<void> {
  const sorted = [...points].sort((x, y) =>
    x.series < y.series ? -1 : x.series > y.series ? 1 : x.timeNanos < y.timeNanos ? -1 : 1,
  );
  const actors = new Map<string, string>();
  for (const p of sorted) {
    const who = JSON.stringify([p.email ?? null, p.account ?? null]);
    if (!actors.has(who)) actors.set(who, (await actorNamed(ctx, p.email, p.account)).actorId);
  }
  const writer = durableWriter(ctx.db, ctx.gateway.dialect);
  try {
    await writer.commit(async (trx) => {
      await lockForTransaction(trx, ctx.gateway.dialect, `telemetry-metrics:${ctx.appId}`);
      const state = new Map<string, SeriesState>();
      const keys = [...new Set(sorted.map((p) => p.series))];
      for (const r of await store.seriesStates(trx, ctx.appId, keys))
        state.set(r.series_key, {
          startNanos: BigInt(r.start_nanos),
          timeNanos: BigInt(r.time_nanos),
          lastValue: Number(r.last_value),
        });
      const days = new Map<string, store.TelemetryMetricDaysTable>();
      const byAttribute = new Map<string, store.TelemetryMetricAttributeDaysTable>();
      for (const p of sorted) {
        const add = increment(p, state);
        if (add === 0) continue;
        const actorId = actors.get(JSON.stringify([p.email ?? null, p.account ?? null]))!;
        const row = { app_id: ctx.appId, org_id: ctx.orgId, day: dayOf(p.timeNanos), actor_id: actorId };
        const k = JSON.stringify([row.day, actorId, p.model, p.metric, p.variant]);
        const day = days.get(k);
        if (day) day.value += add;
        else days.set(k, { ...row, model: p.model, metric: p.metric, variant: p.variant, value: add });
        // The same increment under each custom resource attribute (team=payments), for filters and breakdowns.
        for (const [attribute, attributeValue] of p.attributes) {
          const ak = JSON.stringify([attribute, attributeValue, k]);
          const a = byAttribute.get(ak);
          if (a) a.value += add;
          else
            byAttribute.set(ak, {
              ...row,
              attribute,
              attribute_value: attributeValue,
              model: p.model,
              metric: p.metric,
              variant: p.variant,
              value: add,
            });
        }
      }
      await store.addToDays(trx, [...days.values()]);
      await store.addToAttributeDays(trx, [...byAttribute.values()]);
      await store.saveSeries(
        trx,
        keys.flatMap((k) => {
          const s = state.get(k);
          return s
            ? [
                {
                  app_id: ctx.appId,
                  series_key: k,
                  start_nanos: String(s.startNanos),
                  time_nanos: String(s.timeNanos),
                  last_value: s.lastValue,
                },
              ]
            : [];
        }),
      );
    });
  } finally {
    writer.leave();
  }
}

export function exportTraces(request: ExportTraceRequest): ExportOutcome {
  let spans = 0;
  for (const rs of request.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spans += ss.spans?.length ?? 0;
  if (spans > OTLP_LIMITS.records) throw tooMany(spans, 'spans');
  return { rejected: spans, message: spans ? `${spans} spans were not kept: Attest keeps logs (events) only` : '' };
}
