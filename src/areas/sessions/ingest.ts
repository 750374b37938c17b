// Storing what POST /v1/agents/sync accepted: idempotent, merged with what is stored, counted once. Each
// session's row, usage rows, document and facet and repository counters are written in the caller's transaction.
import { v7 as uuidv7 } from 'uuid';
import type { Db } from '../../db/connection.js';
import type { FactoryContext } from '../../server/context.js';
import { nanosToMicros } from '../../pricing/cost.js';
import { requireUser } from '../orgs/service.js';
import { recordSessionPrOutcomes, recordSessionPrRefs, recordSessionSpend } from '../prs/service.js';
import { recordSessionCommits } from '../prs/commit-links.js';
import { recordToolUsage } from '../metrics/service.js';
import { applyRollupChanges, storedRollupParts, type RollupToolRow } from '../metrics/rollup-write.js';
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
import { facetContributions, facetDeltas } from './facets.js';
import * as store from './store.js';
import type { DocumentCache } from './document-cache.js';
import { storeSessionFacts } from '../verdict/ingest.js';

/** Where a stored session's figures come from: a synced transcript, or agent telemetry (OTLP) alone. */
export type CaptureSource = 'transcript' | 'telemetry';

export interface SessionActor {
  actorId: string;
  actorName: string;
  credentialId: string;
}

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

/** A new session's summary row (exported for bench/sessions.ts's ingest floor, which inserts the same rows). */
export function rowOf(
  ctx: Pick<FactoryContext, 'orgId' | 'appId'>,
  id: string,
  s: SessionSummary,
  actor: SessionActor,
  now: number,
  createdAt: number,
  source: CaptureSource,
): store.SessionRow {
  return {
    id,
    org_id: ctx.orgId,
    app_id: ctx.appId,
    session_key: s.sessionKey,
    session_id: s.sessionId,
    parent_session_id: s.parentSessionId,
    subagent_id: s.subagentId,
    is_subagent: s.isSubagent ? 1 : 0,
    actor_id: actor.actorId,
    actor_name: actor.actorName,
    credential_id: actor.credentialId,
    agent_type: s.agentType,
    agent_version: s.agentVersion,
    origin: s.origin,
    worker_kind: s.workerKind,
    repo: s.repo,
    branch: s.branch,
    project: s.project,
    commit_sha: s.commitSha,
    title: s.title,
    capture_tier: s.captureTier,
    capture_source: source,
    started_at: s.startedAt,
    ended_at: s.endedAt,
    duration_ms: s.durationMs,
    turn_count: s.turnCount,
    user_turn_count: s.userTurnCount,
    steering_count: s.steeringCount,
    event_count: s.eventCount,
    tool_call_count: s.toolCallCount,
    tool_error_count: s.toolErrorCount,
    rejected_tool_call_count: s.rejectedToolCallCount,
    api_error_count: s.apiErrorCount,
    error_count: s.errorCount,
    tool_error_rate_ppm: s.toolErrorRatePpm,
    input_tokens: s.cost.tokens.input,
    output_tokens: s.cost.tokens.output,
    cache_read_tokens: s.cost.tokens.cacheRead,
    cache_write_tokens: s.cost.tokens.cacheWrite,
    cache_write_1h_tokens: s.cost.tokens.cacheWrite1h,
    cost_micros: s.cost.costMicros,
    cost_status: s.cost.status,
    unpriced_models: JSON.stringify(s.cost.unpricedModels),
    models: JSON.stringify(s.models),
    pr_refs: JSON.stringify(s.prRefs),
    chunk_of: s.chunkOf,
    chunk_parts: JSON.stringify(s.chunkParts),
    created_at: createdAt,
    updated_at: now,
  };
}

export function usageRows(row: store.SessionRow, s: SessionSummary): store.ModelUsageRow[] {
  return s.cost.byModel.map((m) => ({
    session_id: row.id,
    org_id: row.org_id,
    app_id: row.app_id,
    model: m.model,
    started_at: row.started_at,
    repo: row.repo,
    actor_id: row.actor_id,
    agent_type: row.agent_type,
    is_subagent: row.is_subagent,
    turn_count: m.turns,
    unpriced_turn_count: m.unpricedTurns,
    input_tokens: m.tokens.input,
    output_tokens: m.tokens.output,
    cache_read_tokens: m.tokens.cacheRead,
    cache_write_tokens: m.tokens.cacheWrite,
    cache_write_1h_tokens: m.tokens.cacheWrite1h,
    cost_micros: nanosToMicros(m.costNanos),
  }));
}

interface Pending {
  key: string;
  before: store.SessionRow | null;
  /** What is stored (null when a row has no document yet), then the folded result. */
  doc: AgentSessionV1 | null;
  parts: number[];
  changed: boolean;
  summary?: SessionSummary;
  /** Where `doc` came from: the stored row's source, then this call's once it folded a version in. */
  source: CaptureSource;
}

/** A session's summary and stored encoding, computed before the transaction (see prepareSessions). */
interface PreparedSession {
  summary: Omit<SessionSummary, 'chunkParts' | 'chunkOf'>;
  encoded: EncodedDocument;
}

/** Work done ahead of storeSessions, keyed by the incoming document object it was computed from. */
export type PreparedSessions = ReadonlyMap<AgentSessionV1, PreparedSession>;

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
    const rows = await store.findByKeys(db, ctx.appId, keys);
    const stored = await store.getDocuments(
      db,
      ctx.appId,
      rows.map((r) => r.id),
    );
    const docById = new Map(stored.map((d) => [d.session_id, d]));
    for (const row of rows) {
      const d = docById.get(row.id);
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

  let changed = [...pending.values()].filter(
    (p): p is Pending & { doc: AgentSessionV1 } => p.changed && p.doc !== null,
  );
  const fresh = changed.filter((p) => !p.before);
  if (fresh.length) {
    // Sorted by key, so concurrent syncs of the same sessions wait on each other instead of deadlocking.
    fresh.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
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
    changed = [...pending.values()].filter((p): p is Pending & { doc: AgentSessionV1 } => p.changed && p.doc !== null);
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
  const rows = await store.findByKeys(db, appId, [...keys]);
  const docs = await store.getDocuments(
    db,
    appId,
    rows.map((r) => r.id),
  );
  const docById = new Map(docs.map((d) => [d.session_id, d]));
  for (const row of rows) {
    const d = docById.get(row.id);
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

/** A document as written: for a caller that keeps it decoded (DocumentCache) once the transaction commits. */
export interface WrittenDocument {
  id: string;
  doc: AgentSessionV1;
  encoded: EncodedDocument;
}

/**
 * Store sessions whose documents the caller has already folded from what it read in this transaction
 * (storedSessions), with the same rows, counters and side tables as storeSessions, but without reading and
 * decoding each document a second time or comparing it whole with the stored one: one read and one write a
 * session. A new session another request inserted first (a transcript's sync) goes through storeSessions,
 * which merges by its rules. Answers what it wrote.
 */
export async function storeFoldedSessions(
  ctx: FactoryContext,
  db: Db,
  items: readonly FoldedSession[],
  source: CaptureSource,
): Promise<WrittenDocument[]> {
  const now = ctx.clock.now();
  const changed: Folded[] = [];
  for (const item of items) {
    if (!item.before) continue;
    const parts = JSON.parse(item.before.chunk_parts) as number[];
    let doc = item.doc;
    if (item.stored) {
      const merged = mergeSession(item.stored, parts, item.doc);
      if (!merged.changed) continue;
      doc = merged.doc;
    }
    changed.push({ key: item.before.session_key, before: item.before, doc, parts, changed: true, source });
  }
  // Sorted by key, so concurrent writers of the same new sessions wait on each other instead of deadlocking.
  const fresh = items
    .filter((i) => !i.before)
    .map((i) => ({
      item: i,
      p: { key: sessionKeyOf(i.doc), before: null, doc: i.doc, parts: [], changed: true, source } as Folded,
    }))
    .sort((x, y) => (x.p.key < y.p.key ? -1 : x.p.key > y.p.key ? 1 : 0));
  const rows = fresh.map(({ item, p }) => rowOf(ctx, uuidv7(), summaryOf(p, new Map()), item.actor, now, now, source));
  const inserted = rows.length ? await store.insertSessionsIfAbsent(db, rows) : new Set<string>();
  for (const { p } of fresh) if (inserted.has(p.key)) changed.push(p);
  const written = await writeAll(
    ctx,
    db,
    changed,
    rows.filter((r) => inserted.has(r.session_key)),
    now,
    new Map(),
  );
  for (const { item, p } of fresh)
    if (!inserted.has(p.key)) await storeSessions(ctx, db, [item.doc], item.actor, undefined, source);
  return written;
}

type Folded = Pending & { doc: AgentSessionV1 };

/** The images (blob digests) a document names. */
export function imagesOf(doc: AgentSessionV1): string[] {
  const out = new Set<string>();
  for (const turn of doc.turns) for (const image of turn.images ?? []) out.add(image.sha256);
  return [...out];
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

function summaryOf(p: Folded, prepared: PreparedSessions): SessionSummary {
  p.summary ??= {
    ...(prepared.get(p.doc)?.summary ?? summarize(p.doc)),
    chunkParts: p.parts,
    chunkOf: p.doc.chunk?.of ?? null,
  };
  return p.summary;
}

/** What storing a session needs of its caller: the factory, a clock and a log (a request or a sweep). */
export type WriteContext = Pick<FactoryContext, 'orgId' | 'appId' | 'clock' | 'log'>;

/** Update the replaced rows, then usage, documents and counters of every changed session in one go each. */
async function writeAll(
  ctx: WriteContext,
  db: Db,
  changed: Folded[],
  insertedRows: store.SessionRow[],
  now: number,
  prepared: PreparedSessions,
): Promise<WrittenDocument[]> {
  const insertedByKey = new Map(insertedRows.map((r) => [r.session_key, r]));
  const written: {
    before: store.SessionRow | null;
    row: store.SessionRow;
    summary: SessionSummary;
    doc: AgentSessionV1;
  }[] = [];
  const updates: Parameters<typeof store.updateSessions>[2] = [];
  for (const p of changed) {
    const summary = summaryOf(p, prepared);
    const inserted = insertedByKey.get(p.key);
    if (inserted && !p.before) {
      written.push({ before: null, row: inserted, summary, doc: p.doc });
      continue;
    }
    if (!p.before) continue; // lost a race and not reloaded: nothing of ours to write
    const kept: SessionActor = {
      actorId: p.before.actor_id,
      actorName: p.before.actor_name,
      credentialId: p.before.credential_id,
    };
    const row = rowOf(ctx, p.before.id, summary, kept, now, p.before.created_at, p.source);
    const { id: _id, org_id: _o, app_id: _a, session_key: _k, created_at: _c, ...changes } = row;
    updates.push({ id: p.before.id, ...changes });
    written.push({ before: p.before, row, summary, doc: p.doc });
  }
  if (!written.length) return [];
  await store.updateSessions(db, ctx.appId, updates);

  // Only a replaced session can have usage, tool or PR rows already: an inserted one has a new id.
  const replaced = written.filter((w) => w.before).map((w) => w.row.id);
  // What the replaced sessions counted in the daily rollups, read before their rows are replaced.
  const storedParts = await storedRollupParts(db, ctx.appId, replaced);
  const usage = written.map((w) => usageRows(w.row, w.summary));
  await store.replaceModelUsage(db, ctx.appId, replaced, usage.flat());
  // Per-tool counters for the metrics tool breakdown, from the same merged documents.
  const toolRows = await recordToolUsage(
    db,
    ctx.appId,
    written.map((w) => ({
      session: {
        id: w.row.id,
        orgId: w.row.org_id,
        appId: w.row.app_id,
        startedAt: w.row.started_at,
        repo: w.row.repo,
        isSubagent: w.row.is_subagent === 1,
      },
      turns: w.doc.turns,
    })),
    replaced,
  );
  // The PRs each session names, as rows, for the metrics' PR spend tiles, and those tiles' sums.
  await recordSessionPrRefs(
    db,
    ctx.appId,
    written.map((w) => w.row),
    replaced,
  );
  // The commits each session made: what links it to the PR that holds one (prs/commit-links.ts).
  await recordSessionCommits(
    db,
    ctx.appId,
    written.map((w) => ({ id: w.row.id, doc: w.doc })),
    replaced,
  );
  await recordSessionSpend(
    db,
    ctx.appId,
    written.filter((w) => !w.row.is_subagent).map((w) => w.row.id),
    replaced.length > 0,
  );
  // The PRs by verdict of the Overview: the PRs these sessions linked to or link to now.
  await recordSessionPrOutcomes(
    db,
    ctx.appId,
    written.map((w) => ({ before: w.before, after: w.row })),
  );
  // The daily rollups of the metrics move by what each session counts now minus what it counted.
  const toolsBySession = new Map<string, RollupToolRow[]>();
  for (const t of toolRows) {
    const list = toolsBySession.get(t.session_id);
    if (list) list.push(t);
    else toolsBySession.set(t.session_id, [t]);
  }
  await applyRollupChanges(
    db,
    ctx.appId,
    written.map((w, i) => ({
      before: w.before
        ? {
            row: w.before,
            usage: storedParts.get(w.before.id)?.usage ?? [],
            tools: storedParts.get(w.before.id)?.tools ?? [],
          }
        : null,
      after: { row: w.row, usage: usage[i]!, tools: toolsBySession.get(w.row.id) ?? [] },
    })),
  );
  // The verification facts the verdict reads (issue 39).
  await storeSessionFacts(
    db,
    ctx.appId,
    written.map((w) => ({ id: w.row.id, repo: w.row.repo, doc: w.doc })),
    now,
    ctx.log,
  );
  // The images each document names, so a shared image is forgotten only when no session names it (issue 42).
  await store.replaceSessionImages(
    db,
    ctx.appId,
    replaced,
    written.flatMap((w) => imagesOf(w.doc).map((sha256) => ({ app_id: ctx.appId, session_id: w.row.id, sha256 }))),
  );
  const documents = written.map((w) => ({
    id: w.row.id,
    doc: w.doc,
    // A document stored exactly as it came was compressed before the transaction; a merged one is compressed here.
    encoded: prepared.get(w.doc)?.encoded ?? encodeDocument(w.doc, w.row.capture_source === 'telemetry' ? 0 : 1),
  }));
  await store.putDocuments(
    db,
    documents.map(({ id, encoded }) => ({
      session_id: id,
      app_id: ctx.appId,
      encoding: encoded.encoding,
      raw_bytes: encoded.rawBytes,
      body: encoded.body,
    })),
  );

  const facetTotals = new Map<string, store.FacetDelta>();
  const repoTotals = new Map<string, store.RepoDelta>();
  const addRepo = (repo: string, sessions: number, costMicros: number) => {
    const r = repoTotals.get(repo) ?? { repo, sessions: 0, costMicros: 0 };
    r.sessions += sessions;
    r.costMicros += costMicros;
    repoTotals.set(repo, r);
  };
  for (const w of written) {
    for (const d of facetDeltas(w.before ? facetContributions(w.before) : [], facetContributions(w.row))) {
      const key = `${d.repo}\u0000${d.kind}\u0000${d.value}`;
      const t = facetTotals.get(key);
      if (t) {
        t.delta += d.delta;
        t.label = d.label ?? t.label;
      } else {
        facetTotals.set(key, { ...d });
      }
    }
    if (w.before) addRepo(w.before.repo, w.before.is_subagent ? 0 : -1, -w.before.cost_micros);
    addRepo(w.row.repo, w.row.is_subagent ? 0 : 1, w.row.cost_micros);
  }
  // A fixed order keeps concurrent writers from taking counter rows in opposite orders (deadlocks).
  const byKey = <T>(m: Map<string, T>) =>
    [...m.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([, v]) => v);
  await store.applyFacetDeltas(db, ctx.appId, byKey(facetTotals));
  await store.applyRepoDeltas(db, ctx.appId, byKey(repoTotals));
  return documents;
}
