// The stored session document and what the gateway derives from it: merging re-sent versions and chunk
// parts, compression for storage, and the summary the list reads. No SQL, no HTTP.
import zlib from 'node:zlib';
import { priceSession, type SessionCost } from '../../pricing/cost.js';
import type { TotalsV1 } from '../../capture/types.js';
import { sessionTitle } from './title.js';
import { normalizeRepo } from '../../codehost/repository-name.js';

/** The fields of AgentSession v1 the gateway reads. The schema allows more; they are kept as sent. */
export interface AgentSessionV1 {
  schemaVersion: 1;
  id: string;
  agent: { type: string; version?: string; entrypoint?: string; origin?: string; [k: string]: unknown };
  env: { cwd?: string; gitBranch?: string; gitRepo?: string; commitSha?: string; os?: string; [k: string]: unknown };
  startedAt: string;
  endedAt?: string;
  models: string[];
  turns: TurnV1[];
  events: EventV1[];
  totals: TotalsV1 & { [k: string]: unknown };
  captureTier: 'metrics' | 'redacted' | 'full';
  warnings: { code: string; count: number; detail?: string }[];
  actor?: { id?: string; email?: string; [k: string]: unknown };
  subagent?: { agentId?: string; parentSessionId?: string; [k: string]: unknown };
  outcome?: {
    prNumber?: number;
    prUrl?: string;
    prs?: { prNumber: number; prUrl?: string; commitShas?: string[] }[];
    commitShas?: string[];
    [k: string]: unknown;
  };
  title?: string;
  vendor?: Record<string, unknown>;
  workerKind?: 'seat' | 'cloud' | 'ci' | 'shared';
  chunk?: { part: number; of: number; counts: Record<string, number> };
  [k: string]: unknown;
}

export interface TurnV1 {
  index: number;
  role: 'user' | 'assistant';
  toolCalls: { name: string; status: 'ok' | 'error' | 'rejected'; isEdit: boolean; [k: string]: unknown }[];
  ts?: string;
  model?: string;
  source?: 'human' | 'peer' | 'notification';
  /** `cacheCreate1h` (API.md §10): the part of `cacheCreate` written with the one-hour TTL. */
  usage?: {
    in: number;
    out: number;
    cacheRead: number;
    cacheCreate: number;
    cacheCreate1h?: number;
    [k: string]: unknown;
  };
  costUsd?: number | null;
  /** `costUsd` is the agent's own figure for the request (telemetry), preferred over the price table. */
  costReported?: boolean;
  images?: { mediaType: string; sha256: string; bytes?: number }[];
  [k: string]: unknown;
}

export interface EventV1 {
  type: string;
  seq: number;
  ts?: string;
  turnIndex?: number;
  data?: Record<string, unknown>;
  [k: string]: unknown;
}

export type Origin = 'interactive' | 'agent' | 'worker';

export interface SessionSummary {
  sessionKey: string;
  sessionId: string;
  parentSessionId: string | null;
  subagentId: string | null;
  isSubagent: boolean;
  agentType: string;
  agentVersion: string | null;
  origin: Origin;
  workerKind: string | null;
  repo: string;
  branch: string;
  project: string;
  commitSha: string | null;
  title: string | null;
  captureTier: string;
  startedAt: number;
  endedAt: number | null;
  durationMs: number;
  turnCount: number;
  userTurnCount: number;
  steeringCount: number;
  eventCount: number;
  toolCallCount: number;
  toolErrorCount: number;
  rejectedToolCallCount: number;
  apiErrorCount: number;
  errorCount: number;
  toolErrorRatePpm: number;
  models: string[];
  prRefs: { prNumber: number; prUrl?: string }[];
  chunkOf: number | null;
  chunkParts: number[];
  cost: SessionCost;
}

/**
 * The session's identity in a factory (`session_key`): its id, and for a subagent transcript (one with an agent
 * id or a parent, as summarize's isSubagent) its agent id too, `<id>#<agentId>`. The schema lets an id hold any
 * character, so each part is written with `%` and `#` escaped (`%25`, `%23`): a top-level session whose id is
 * `X#a` is then not the subagent `a` of session `X`, whose transcript it would otherwise have been merged into.
 * An id without either character is its own key. A subagent without an agent id (the schema lets it be absent)
 * is `<id>#`: under its parent's id (Claude Code writes subagents so) it had the parent's key and a sync merged
 * the two transcripts, the shorter one lost (migration 0027).
 */
export function sessionKeyOf(doc: Pick<AgentSessionV1, 'id' | 'subagent'>): string {
  const sub = doc.subagent;
  if (!sub || !(sub.agentId || sub.parentSessionId)) return sessionKeyPart(doc.id);
  return `${sessionKeyPart(doc.id)}#${sub.agentId ? sessionKeyPart(sub.agentId) : ''}`;
}

/** One part of a session key: `%` and `#` escaped, as migration 0026 writes them in SQL. */
export function sessionKeyPart(id: string): string {
  return id.includes('%') || id.includes('#') ? id.replace(/%/g, '%25').replace(/#/g, '%23') : id;
}

/**
 * Who started the session (issue 15 §5, as the reference implementation has it): `agent.origin` when it is
 * one of the three values; unset means `interactive`. `workerKind` says where the agent ran, not who started
 * it: `seat` (a developer's own machine) and `shared` (a shared key) say nothing about who started it, so they
 * stay `interactive`. Our rule for `cloud` and `ci` without an origin: `worker`, because nobody sits at a
 * cloud runner or a CI job, and a session there was started by automation on the gateway's behalf.
 */
export function originOf(doc: Pick<AgentSessionV1, 'agent' | 'workerKind'>): Origin {
  const declared = doc.agent.origin;
  if (declared === 'interactive' || declared === 'agent' || declared === 'worker') return declared;
  if (doc.workerKind === 'cloud' || doc.workerKind === 'ci') return 'worker';
  return 'interactive';
}

function lastSegment(p: string): string {
  const parts = p.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? '';
}

function parseInstant(value: string | undefined): number | null {
  if (!value) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/** The latest time of any turn, null when none has one. */
function lastTurnTime(turns: readonly TurnV1[]): number | null {
  let last: number | null = null;
  for (const turn of turns) {
    const ts = parseInstant(turn.ts);
    if (ts !== null && (last === null || ts > last)) last = ts;
  }
  return last;
}

function prRefsOf(doc: AgentSessionV1): { prNumber: number; prUrl?: string }[] {
  const refs = new Map<number, { prNumber: number; prUrl?: string }>();
  const add = (prNumber: unknown, prUrl: unknown) => {
    if (typeof prNumber !== 'number' || !Number.isInteger(prNumber) || prNumber <= 0) return;
    const existing = refs.get(prNumber);
    const url = typeof prUrl === 'string' ? prUrl : existing?.prUrl;
    refs.set(prNumber, url ? { prNumber, prUrl: url } : { prNumber });
  };
  add(doc.outcome?.prNumber, doc.outcome?.prUrl);
  for (const pr of doc.outcome?.prs ?? []) add(pr.prNumber, pr.prUrl);
  for (const e of doc.events) if (e.type === 'pr_linked') add(e.data?.prNumber, e.data?.prUrl);
  return [...refs.values()].sort((a, b) => a.prNumber - b.prNumber);
}

/** Everything the list and the metrics read, derived from the (merged) document. */
export function summarize(doc: AgentSessionV1): SessionSummary {
  let userTurns = 0;
  let humanTurns = 0;
  let toolCalls = 0;
  let toolErrors = 0;
  let rejected = 0;
  const models = new Set<string>(doc.models.filter((m) => m?.trim()));
  for (const turn of doc.turns) {
    if (turn.role === 'user') {
      userTurns += 1;
      if (!turn.source || turn.source === 'human') humanTurns += 1;
    } else if (turn.model && turn.usage) {
      models.add(turn.model);
    }
    for (const call of turn.toolCalls) {
      toolCalls += 1;
      if (call.status === 'error') toolErrors += 1;
      else if (call.status === 'rejected') rejected += 1;
    }
  }
  const apiErrors = doc.events.filter((e) => e.type === 'api_error').length;
  const startedAt = parseInstant(doc.startedAt) ?? 0;
  // The last turn's time stands in for an end the document does not give; only then are the turns' times parsed
  // (that parse was most of what summarizing a long session cost).
  const endedAt = parseInstant(doc.endedAt) ?? lastTurnTime(doc.turns);
  const durationMs = doc.totals.wallClockMs ?? (endedAt !== null ? Math.max(0, endedAt - startedAt) : 0);
  const repo = normalizeRepo(doc.env.gitRepo);
  const isSubagent = Boolean(doc.subagent && (doc.subagent.agentId || doc.subagent.parentSessionId));
  const cost = priceSession(doc.turns, { models: doc.models, startedAt: doc.startedAt, totals: doc.totals });
  return {
    sessionKey: sessionKeyOf(doc),
    sessionId: doc.id,
    parentSessionId: doc.subagent?.parentSessionId ?? null,
    subagentId: doc.subagent?.agentId ?? null,
    isSubagent,
    agentType: doc.agent.type,
    agentVersion: doc.agent.version ?? null,
    origin: originOf(doc),
    workerKind: doc.workerKind ?? null,
    repo,
    branch: doc.env.gitBranch ?? '',
    project: repo ? lastSegment(repo) : lastSegment(doc.env.cwd ?? ''),
    commitSha: doc.env.commitSha ?? null,
    title: sessionTitle(doc),
    captureTier: doc.captureTier,
    startedAt,
    endedAt,
    durationMs,
    turnCount: doc.turns.length,
    userTurnCount: userTurns,
    steeringCount: Math.max(0, humanTurns - 1),
    eventCount: doc.events.length,
    toolCallCount: toolCalls,
    toolErrorCount: toolErrors,
    rejectedToolCallCount: rejected,
    apiErrorCount: apiErrors,
    // Tool calls that ran and failed, nothing else: API errors are apiErrorCount (disjoint), a denied call is
    // rejectedToolCallCount (issue 15 §5, the reference implementation's meaning).
    errorCount: toolErrors,
    toolErrorRatePpm: toolCalls ? Math.round((toolErrors * 1_000_000) / toolCalls) : 0,
    models: [...models].sort(),
    prRefs: prRefsOf(doc),
    chunkOf: doc.chunk?.of ?? null,
    chunkParts: doc.chunk ? [doc.chunk.part] : [],
    cost,
  };
}

/** How much of a session a document holds: a longer version wins over a shorter one. */
function extent(doc: AgentSessionV1): [number, number, number] {
  return [doc.turns.length, doc.events.length, parseInstant(doc.endedAt) ?? 0];
}

function compareExtent(a: AgentSessionV1, b: AgentSessionV1): number {
  const x = extent(a);
  const y = extent(b);
  for (let i = 0; i < x.length; i += 1) if (x[i]! !== y[i]!) return x[i]! - y[i]!;
  return 0;
}

export interface MergeResult {
  doc: AgentSessionV1;
  /** false when the stored version already holds everything the incoming one says (a retry or a stale copy). */
  changed: boolean;
  chunkParts: number[];
}

/**
 * Combine what is stored with what arrived. A whole session (no `chunk`) replaces the stored one unless it is
 * shorter (a stale retry). A chunk part is merged in: turns by index and events by seq (the newer part wins
 * on the same index), session fields from the newer part, startedAt the earliest and endedAt the latest.
 */
export function mergeSession(
  stored: AgentSessionV1 | null,
  storedParts: number[],
  incoming: AgentSessionV1,
): MergeResult {
  if (!stored) return { doc: incoming, changed: true, chunkParts: incoming.chunk ? [incoming.chunk.part] : [] };
  if (!incoming.chunk) {
    if (compareExtent(incoming, stored) < 0) return { doc: stored, changed: false, chunkParts: storedParts };
    return { doc: incoming, changed: JSON.stringify(incoming) !== JSON.stringify(stored), chunkParts: [] };
  }
  const turns = new Map<number, TurnV1>();
  for (const t of stored.turns) turns.set(t.index, t);
  for (const t of incoming.turns) turns.set(t.index, t);
  const events = new Map<number, EventV1>();
  for (const e of stored.events) events.set(e.seq, e);
  for (const e of incoming.events) events.set(e.seq, e);
  const started = [stored.startedAt, incoming.startedAt].sort(
    (a, b) => (parseInstant(a) ?? 0) - (parseInstant(b) ?? 0),
  )[0]!;
  const ends = [stored.endedAt, incoming.endedAt].filter((v): v is string => typeof v === 'string');
  const ended = ends.sort((a, b) => (parseInstant(b) ?? 0) - (parseInstant(a) ?? 0))[0];
  const models = [...new Set([...stored.models, ...incoming.models])];
  const warnings = new Map<string, AgentSessionV1['warnings'][number]>();
  for (const w of [...stored.warnings, ...incoming.warnings]) {
    const prev = warnings.get(w.code);
    if (!prev || w.count > prev.count) warnings.set(w.code, w);
  }
  const merged: AgentSessionV1 = {
    ...stored,
    ...incoming,
    startedAt: started,
    ...(ended ? { endedAt: ended } : {}),
    models,
    turns: [...turns.values()].sort((a, b) => a.index - b.index),
    events: [...events.values()].sort((a, b) => a.seq - b.seq),
    warnings: [...warnings.values()],
  };
  const chunkParts = [...new Set([...storedParts, incoming.chunk.part])].sort((a, b) => a - b);
  return { doc: merged, changed: JSON.stringify(merged) !== JSON.stringify(stored), chunkParts };
}

/**
 * Session documents are stored compressed in the database, in the same transaction as the summary. Brotli
 * at quality 1: on transcripts of about 18 KB of JSON it is 4.3× smaller at about 60% of quality 2's CPU, which
 * is 4.6× smaller (quality 0 is faster still but 16% larger; gzip -1 is both slower and larger). Compression is
 * the largest single CPU cost of ingest, so a few percent more bytes stored is the better trade. Readers decode
 * any quality. A telemetry session (metrics only) rebuilt whole is quality 0: on its repetitive JSON about 3× faster
 * than quality 1 and still about 20× smaller than the JSON; extended by an export, it is stored as gzip members
 * compressed a piece at a time (otlp/document-text.ts).
 */
export interface EncodedDocument {
  /** br as encodeDocument writes it; gzip of one or more members (a telemetry session's, otlp/document-text.ts). */
  encoding: 'br' | 'gzip';
  rawBytes: number;
  body: Buffer;
}

/**
 * The encoder's window fitted to the document (the smallest power of two that holds it, 64 KiB at least):
 * with the default 4 MiB window every encoder allocates tables sized for 4 MiB, a cost paid for every document
 * whatever its size. A window that holds the whole document loses no match (the same bytes within a few), so
 * the smaller tables are free. Readers decode any window.
 */
function windowBits(rawBytes: number): number {
  return Math.min(zlib.constants.BROTLI_MAX_WINDOW_BITS, Math.max(16, Math.ceil(Math.log2(rawBytes + 1))));
}

/** The encoder options of a stored document (exported for bench/ingest-cpu.ts, which times them alone). */
export const brotliOptions = (rawBytes: number, quality: 0 | 1 = 1): zlib.BrotliOptions => ({
  // One chunk for the whole output: no concatenation of pieces.
  chunkSize: Math.max(zlib.constants.Z_DEFAULT_CHUNK, rawBytes),
  params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: rawBytes,
    [zlib.constants.BROTLI_PARAM_LGWIN]: windowBits(rawBytes),
  },
});

export function encodeDocument(doc: AgentSessionV1, quality: 0 | 1 = 1): EncodedDocument {
  const raw = Buffer.from(JSON.stringify(doc));
  return {
    encoding: 'br',
    rawBytes: raw.length,
    body: zlib.brotliCompressSync(raw, brotliOptions(raw.length, quality)),
  };
}

export function decodeDocument(encoding: string, body: Uint8Array | ArrayBuffer): AgentSessionV1 {
  // pg gives a Buffer, libsql an ArrayBuffer.
  const buf =
    body instanceof ArrayBuffer ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const raw = encoding === 'br' ? zlib.brotliDecompressSync(buf) : encoding === 'gzip' ? zlib.gunzipSync(buf) : buf;
  return JSON.parse(raw.toString('utf8')) as AgentSessionV1;
}
