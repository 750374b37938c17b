// Storing what POST /v1/agents/sync accepted: idempotent, merged with what is stored, counted once. Each
// session's row, usage rows, document and facet and repository counters are written in the caller's transaction.
import { v7 as uuidv7 } from 'uuid';
import type { Db } from '../../db/connection.js';
import type { FactoryContext } from '../../server/context.js';
import { requireUser } from '../orgs/service.js';
import {
  decodeDocument,
  encodeDocument,
  mergeSession,
  sessionKeyOf,
  summarize,
  type AgentSessionV1,
  type EncodedDocument,
  type SessionSummary,
} from './document.js';
import type { DocumentCache } from './document-cache.js';
import { rowOf, type CaptureSource, type SessionActor } from './session-rows.js';
import * as store from './store.js';
import * as docStore from './document-store.js';
import { byKey } from '../../db/counter-deltas.js';
import {
  summaryOf,
  writeAll,
  type Folded,
  type Pending,
  type PreparedSessions,
  type WriteContext,
  type WrittenDocument,
} from './write.js';

export type { CaptureSource, PreparedSessions, SessionActor, WriteContext, WrittenDocument };

/** Who sends: the credential's person (a login token's owner or a key's creator), else the key itself. */
export async function actorOfCaller(ctx: FactoryContext): Promise<SessionActor> {
  const p = ctx.principal;
  if (p.userId) {
    try {
      const user = await requireUser(ctx.db, p.userId);
      return { actorId: p.userId, actorName: user.name || user.email, credentialId: p.credentialId };
    } catch {
      // the user row is gone; fall back to the credential's label
    }
    return { actorId: p.userId, actorName: p.label, credentialId: p.credentialId };
  }
  return { actorId: p.credentialId, actorName: p.label, credentialId: p.credentialId };
}

/**
 * Summarize and compress each incoming session as if it were new (the common case: a new session is stored
 * as sent), before the transaction. storeSessions uses this for every session it stores exactly as sent and
 * computes anything else (a merge with a stored version) itself, so the result is the same with or without
 * it. Done here, the CPU work happens while a group commit gathers (db/group-commit.ts), not inside it. The
 * compression stays on the event loop: a worker thread (or libuv's pool) takes it off the loop but keeps the
 * memory of a large ingest over the 250 MB goal (docs/performance.md, Ingest).
 */
export function prepareSessions(docs: readonly AgentSessionV1[]): PreparedSessions {
  return new Map(docs.map((doc) => [doc, { summary: summarize(doc), encoded: encodeDocument(doc) }]));
}

/** The stored rows of these session keys, each with its stored document (undefined while it has none). */
async function rowsWithDocuments(db: Db, appId: string, keys: string[]) {
  const rows = await store.findByKeys(db, appId, keys);
  const docs = await docStore.getDocuments(
    db,
    appId,
    rows.map((r) => r.id),
  );
  const docById = new Map(docs.map((d) => [d.session_id, d]));
  return rows.map((row) => ({ row, stored: docById.get(row.id) }));
}

/**
 * Store accepted sessions inside the caller's transaction (`db`). The same session sent again, or in chunk
 * parts, lands on one row; its facet and repo counters move by the difference, so it is counted once. The
 * whole batch costs a handful of statements (one per table), not a handful per session.
 */
export async function storeSessions(
  ctx: FactoryContext,
  db: Db,
  docs: readonly AgentSessionV1[],
  actor: SessionActor,
  prepared: PreparedSessions = new Map(),
  source: CaptureSource = 'transcript',
): Promise<void> {
  if (!docs.length) return;
  const now = ctx.clock.now();

  const pending = new Map<string, Pending>();
  const load = async (keys: string[]) => {
    for (const { row, stored: d } of await rowsWithDocuments(db, ctx.appId, keys)) {
      pending.set(row.session_key, {
        key: row.session_key,
        before: row,
        doc: d ? decodeDocument(d.encoding, d.body) : null,
        parts: JSON.parse(row.chunk_parts) as number[],
        changed: false,
        source: row.capture_source as CaptureSource,
      });
    }
  };
  await load([...new Set(docs.map(sessionKeyOf))].sort());

  // Fold every incoming version into what is stored, in the order sent. A transcript is authoritative for what
  // it holds: telemetry never changes a session a transcript made, and a transcript replaces what telemetry
  // made whatever their lengths (telemetry has other turns than a transcript: one per API request).
  const fold = (incoming: AgentSessionV1) => {
    const key = sessionKeyOf(incoming);
    const current = pending.get(key);
    if (current && current.source === 'transcript' && source === 'telemetry') return;
    const replacing = current !== undefined && current.source === 'telemetry' && source === 'transcript';
    const merged = replacing
      ? mergeSession(null, [], incoming)
      : mergeSession(current?.doc ?? null, current?.parts ?? [], incoming);
    if (!current)
      pending.set(key, { key, before: null, doc: merged.doc, parts: merged.chunkParts, changed: true, source });
    else if (merged.changed)
      Object.assign(current, { doc: merged.doc, parts: merged.chunkParts, changed: true, summary: undefined, source });
  };
  for (const incoming of docs) fold(incoming);

  const changedOnes = () => [...pending.values()].filter((p): p is Folded => p.changed && p.doc !== null);
  let changed = changedOnes();
  const fresh = changed.filter((p) => !p.before);
  if (fresh.length) {
    // Sorted by key, so concurrent syncs of the same sessions wait on each other instead of deadlocking.
    fresh.sort((x, y) => byKey(x.key, y.key));
    // Time-ordered traceIds (UUIDv7: the creation's wall-clock ms, then a counter and random bits): the indexes
    // that hold the id (the primary key, (app_id, id), the title-search rows, the usage rows) take each new
    // session on their last page instead of a random one, so a sync writes about a fifth fewer pages to the WAL
    // and SQLite ingests about a tenth more sessions a second (docs/performance.md, Ingest).
    const rows = fresh.map((p) => rowOf(ctx, uuidv7(), summaryOf(p, prepared), actor, now, now, p.source));
    const inserted = await store.insertSessionsIfAbsent(db, rows);
    const raced = fresh.filter((p) => !inserted.has(p.key));
    if (raced.length) {
      // Another request inserted some of them first (PostgreSQL, concurrent syncs): merge into theirs.
      for (const p of raced) pending.delete(p.key);
      await load(raced.map((p) => p.key).sort());
      for (const incoming of docs) if (raced.some((p) => p.key === sessionKeyOf(incoming))) fold(incoming);
    }
    changed = changedOnes();
    await writeAll(
      ctx,
      db,
      changed,
      rows.filter((r) => inserted.has(r.session_key)),
      now,
      prepared,
    );
    return;
  }
  await writeAll(ctx, db, changed, [], now, prepared);
}

/** A session as storedSessions reads it. */
export interface StoredSession {
  row: store.SessionRow;
  source: CaptureSource;
  /** Its document (null when the row has none). The caller owns it: it is decoded, or taken from `cache`. */
  doc: AgentSessionV1 | null;
}

/**
 * What is stored of these sessions (by session key): each row, where it came from and its document, for a caller
 * that folds new material into it before storing (the OTLP receiver, with storeFoldedSessions). Read in the
 * caller's transaction. A document `cache` holds for exactly the bytes stored is taken from it, not decoded.
 */
export async function storedSessions(
  db: Db,
  appId: string,
  keys: readonly string[],
  cache?: DocumentCache,
): Promise<Map<string, StoredSession>> {
  const out = new Map<string, StoredSession>();
  for (const { row, stored: d } of await rowsWithDocuments(db, appId, [...keys])) {
    out.set(row.session_key, {
      row,
      source: row.capture_source as CaptureSource,
      doc: d ? (cache?.take(row.id, d.body) ?? decodeDocument(d.encoding, d.body)) : null,
    });
  }
  return out;
}

/** A session's new document, made by the caller from what storedSessions read of it in this transaction. */
export interface FoldedSession {
  /** The stored row, or null for a session stored for the first time. */
  before: store.SessionRow | null;
  doc: AgentSessionV1;
  /**
   * The stored document when `doc` was made without it (rebuilt from elsewhere): `doc` is then stored only if
   * it holds more (mergeSession's rule, as storeSessions would apply it). Absent when `doc` extends it.
   */
  stored?: AgentSessionV1 | null;
  /** Who a new row is credited to (a stored row keeps its own). */
  actor: SessionActor;
}

/**
 * Store sessions whose documents the caller has already folded from what it read in this transaction
 * (storedSessions), with the same rows, counters and side tables as storeSessions, but without reading and
 * decoding each document a second time or comparing it whole with the stored one: one read and one write a
 * session. A new session another request inserted first (a transcript's sync) goes through storeSessions,
 * which merges by its rules. Answers what it wrote. `encode` stores a document the caller made (not one merged
 * here) as encodeDocument would: a caller that extends the same documents over and over encodes only what is new.
 */
export async function storeFoldedSessions(
  ctx: FactoryContext,
  db: Db,
  items: readonly FoldedSession[],
  source: CaptureSource,
  encode?: (doc: AgentSessionV1) => EncodedDocument,
): Promise<WrittenDocument[]> {
  const now = ctx.clock.now();
  const prepared = new Map<AgentSessionV1, { summary: SessionSummary; encoded: EncodedDocument }>();
  const prepare = (doc: AgentSessionV1, summary?: SessionSummary) => {
    if (encode) prepared.set(doc, { summary: summary ?? summarize(doc), encoded: encode(doc) });
  };
  const changed: Folded[] = [];
  for (const item of items) {
    if (!item.before) continue;
    const parts = JSON.parse(item.before.chunk_parts) as number[];
    let doc = item.doc;
    if (item.stored) {
      const merged = mergeSession(item.stored, parts, item.doc);
      if (!merged.changed) continue;
      doc = merged.doc;
    } else prepare(doc);
    changed.push({ key: item.before.session_key, before: item.before, doc, parts, changed: true, source });
  }
  // Sorted by key, so concurrent writers of the same new sessions wait on each other instead of deadlocking.
  const fresh = items
    .filter((i) => !i.before)
    .map((i) => ({
      item: i,
      p: { key: sessionKeyOf(i.doc), before: null, doc: i.doc, parts: [], changed: true, source } as Folded,
    }))
    .sort((x, y) => byKey(x.p.key, y.p.key));
  const rows = fresh.map(({ item, p }) => rowOf(ctx, uuidv7(), summaryOf(p, new Map()), item.actor, now, now, source));
  const inserted = rows.length ? await store.insertSessionsIfAbsent(db, rows) : new Set<string>();
  for (const { p } of fresh)
    if (inserted.has(p.key)) {
      prepare(p.doc, p.summary);
      changed.push(p);
    }
  const written = await writeAll(
    ctx,
    db,
    changed,
    rows.filter((r) => inserted.has(r.session_key)),
    now,
    prepared,
  );
  for (const { item, p } of fresh)
    if (!inserted.has(p.key)) await storeSessions(ctx, db, [item.doc], item.actor, undefined, source);
  return written;
}

/**
 * Store new documents for sessions already stored (the retention sweep's cut-down copies), inside the caller's
 * transaction, exactly as a re-sync of them would: the summary row, usage, tools, PR links, facts, images and
 * counters all follow the new document, so every number the metrics read stays consistent with what is kept.
 */
export async function replaceStoredDocuments(
  ctx: WriteContext,
  db: Db,
  items: readonly { row: store.SessionRow; doc: AgentSessionV1 }[],
): Promise<void> {
  const changed: Folded[] = items.map(({ row, doc }) => ({
    key: row.session_key,
    before: row,
    doc,
    parts: JSON.parse(row.chunk_parts) as number[],
    changed: true,
    source: row.capture_source as CaptureSource,
  }));
  await writeAll(ctx, db, changed, [], ctx.clock.now(), new Map());
}
