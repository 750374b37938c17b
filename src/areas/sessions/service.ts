// Agent sessions: storing what POST /v1/agents/sync accepted (idempotent, merged, counted once), the
// session list (GET /v1/sessions) and the transcript read (GET /v1/sessions/{traceId}). No HTTP here.
import crypto from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { Db } from '../../db/connection.js';
import type { FactoryContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { microsToUsd, nanosToMicros, type CostStatus } from '../../pricing/cost.js';
import { requireUser } from '../orgs/service.js';
import { contextVerifications } from '../context/service.js';
import { prOutcomesForRows, recordSessionPrRefs, type PrOutcome } from '../prs/service.js';
import { recordToolUsage } from '../metrics/service.js';
import {
  decodeDocument, encodeDocument, mergeSession, normalizeRepo, sessionKeyOf, summarize, type AgentSessionV1, type EncodedDocument, type Origin, type SessionSummary,
} from './document.js';
import * as store from './store.js';
import { storeSessionFacts } from '../verdict/ingest.js';


// ---------------------------------------------------------------------------------------------------------
// Ingest

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

export type FacetSource = Pick<store.SessionRow,
  'is_subagent' | 'repo' | 'actor_id' | 'actor_name' | 'agent_type' | 'branch' | 'models' | 'worker_kind' | 'origin' |
  'steering_count' | 'rejected_tool_call_count' | 'tool_error_count' | 'api_error_count'>;

/** The counters one top-level session adds to (subagent sessions count in none). */
export function facetContributions(row: FacetSource): store.FacetDelta[] {
  if (row.is_subagent) return [];
  const out: store.FacetDelta[] = [];
  const add = (kind: store.FacetKind, value: string | null, label: string | null = null) => {
    if (value) out.push({ repo: row.repo, kind, value, label, delta: 1 });
  };
  add('actor', row.actor_id, row.actor_name);
  add('agentType', row.agent_type);
  add('branch', row.branch);
  for (const m of JSON.parse(row.models) as string[]) add('model', m);
  add('workerKind', row.worker_kind);
  add('origin', row.origin);
  for (const signal of signalsOf(row)) add('signal', signal);
  return out;
}

/** The list's `signal` filter values a session matches (the same rules as the SQL filter in store.ts). */
export function signalsOf(row: Pick<store.SessionRow, 'steering_count' | 'rejected_tool_call_count' | 'tool_error_count' | 'api_error_count'>): store.Signal[] {
  const out: store.Signal[] = [];
  if (row.steering_count > 0) out.push('hands-on');
  if (row.rejected_tool_call_count > 0) out.push('denied');
  if (row.tool_error_count > 0) out.push('tool-errors');
  if (row.api_error_count > 0) out.push('provider-errors');
  if (row.tool_error_count === 0 && row.api_error_count === 0 && row.rejected_tool_call_count === 0) out.push('clean');
  return out;
}

/** New minus old, so a replaced session moves its counts instead of adding them twice. */
function facetDeltas(before: store.FacetDelta[], after: store.FacetDelta[]): store.FacetDelta[] {
  const byKey = new Map<string, store.FacetDelta>();
  const key = (d: store.FacetDelta) => `${d.repo}\u0000${d.kind}\u0000${d.value}`;
  for (const d of before) byKey.set(key(d), { ...d, delta: (byKey.get(key(d))?.delta ?? 0) - 1 });
  for (const d of after) {
    const prev = byKey.get(key(d));
    byKey.set(key(d), { ...d, delta: (prev?.delta ?? 0) + 1 });
  }
  return [...byKey.values()].filter((d) => d.delta !== 0);
}

function rowOf(ctx: FactoryContext, id: string, s: SessionSummary, actor: SessionActor, now: number, createdAt: number): store.SessionRow {
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

function usageRows(row: store.SessionRow, s: SessionSummary): store.ModelUsageRow[] {
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
  ctx: FactoryContext, db: Db, docs: readonly AgentSessionV1[], actor: SessionActor, prepared: PreparedSessions = new Map(),
): Promise<void> {
  if (!docs.length) return;
  const now = ctx.clock.now();

  const pending = new Map<string, Pending>();
  const load = async (keys: string[]) => {
    const rows = await store.findByKeys(db, ctx.appId, keys);
    const stored = await store.getDocuments(db, ctx.appId, rows.map((r) => r.id));
    const docById = new Map(stored.map((d) => [d.session_id, d]));
    for (const row of rows) {
      const d = docById.get(row.id);
      pending.set(row.session_key, {
        key: row.session_key,
        before: row,
        doc: d ? decodeDocument(d.encoding, d.body) : null,
        parts: JSON.parse(row.chunk_parts) as number[],
        changed: false,
      });
    }
  };
  await load([...new Set(docs.map(sessionKeyOf))].sort());

  // Fold every incoming version into what is stored, in the order sent.
  const fold = (incoming: AgentSessionV1) => {
    const key = sessionKeyOf(incoming);
    const current = pending.get(key);
    const merged = mergeSession(current?.doc ?? null, current?.parts ?? [], incoming);
    if (!current) pending.set(key, { key, before: null, doc: merged.doc, parts: merged.chunkParts, changed: true });
    else if (merged.changed) Object.assign(current, { doc: merged.doc, parts: merged.chunkParts, changed: true, summary: undefined });
  };
  for (const incoming of docs) fold(incoming);

  let changed = [...pending.values()].filter((p): p is Pending & { doc: AgentSessionV1 } => p.changed && p.doc !== null);
  const fresh = changed.filter((p) => !p.before);
  if (fresh.length) {
    // Sorted by key, so concurrent syncs of the same sessions wait on each other instead of deadlocking.
    fresh.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
    // Time-ordered traceIds (UUIDv7: the creation's wall-clock ms, then a counter and random bits): the indexes
    // that hold the id (the primary key, (app_id, id), the title-search rows, the usage rows) take each new
    // session on their last page instead of a random one, so a sync writes about a fifth fewer pages to the WAL
    // and SQLite ingests about a tenth more sessions a second (docs/performance.md, Ingest).
    const rows = fresh.map((p) => rowOf(ctx, uuidv7(), summaryOf(p, prepared), actor, now, now));
    const inserted = await store.insertSessionsIfAbsent(db, rows);
    const raced = fresh.filter((p) => !inserted.has(p.key));
    if (raced.length) {
      // Another request inserted some of them first (PostgreSQL, concurrent syncs): merge into theirs.
      for (const p of raced) pending.delete(p.key);
      await load(raced.map((p) => p.key).sort());
      for (const incoming of docs) if (raced.some((p) => p.key === sessionKeyOf(incoming))) fold(incoming);
    }
    changed = [...pending.values()].filter((p): p is Pending & { doc: AgentSessionV1 } => p.changed && p.doc !== null);
    await writeAll(ctx, db, changed, rows.filter((r) => inserted.has(r.session_key)), actor, now, prepared);
    return;
  }
  await writeAll(ctx, db, changed, [], actor, now, prepared);
}

type Folded = Pending & { doc: AgentSessionV1 };

function summaryOf(p: Folded, prepared: PreparedSessions): SessionSummary {
  p.summary ??= { ...(prepared.get(p.doc)?.summary ?? summarize(p.doc)), chunkParts: p.parts, chunkOf: p.doc.chunk?.of ?? null };
  return p.summary;
}

/** Update the replaced rows, then usage, documents and counters of every changed session in one go each. */
async function writeAll(
  ctx: FactoryContext, db: Db, changed: Folded[], insertedRows: store.SessionRow[], actor: SessionActor, now: number, prepared: PreparedSessions,
): Promise<void> {
  const insertedByKey = new Map(insertedRows.map((r) => [r.session_key, r]));
  const written: { before: store.SessionRow | null; row: store.SessionRow; summary: SessionSummary; doc: AgentSessionV1 }[] = [];
  const updates: Parameters<typeof store.updateSessions>[2] = [];
  for (const p of changed) {
    const summary = summaryOf(p, prepared);
    const inserted = insertedByKey.get(p.key);
    if (inserted && !p.before) {
      written.push({ before: null, row: inserted, summary, doc: p.doc });
      continue;
    }
    if (!p.before) continue; // lost a race and not reloaded: nothing of ours to write
    const kept: SessionActor = { actorId: p.before.actor_id, actorName: p.before.actor_name, credentialId: p.before.credential_id };
    const row = rowOf(ctx, p.before.id, summary, kept, now, p.before.created_at);
    const { id: _id, org_id: _o, app_id: _a, session_key: _k, created_at: _c, ...changes } = row;
    updates.push({ id: p.before.id, ...changes });
    written.push({ before: p.before, row, summary, doc: p.doc });
  }
  if (!written.length) return;
  await store.updateSessions(db, ctx.appId, updates);

  // Only a replaced session can have usage, tool or PR rows already: an inserted one has a new id.
  const replaced = written.filter((w) => w.before).map((w) => w.row.id);
  await store.replaceModelUsage(db, ctx.appId, replaced, written.flatMap((w) => usageRows(w.row, w.summary)));
  // Per-tool counters for the metrics tool breakdown, from the same merged documents.
  await recordToolUsage(db, ctx.appId, written.map((w) => ({
    session: { id: w.row.id, orgId: w.row.org_id, appId: w.row.app_id, startedAt: w.row.started_at, repo: w.row.repo, isSubagent: w.row.is_subagent === 1 },
    turns: w.doc.turns,
  })), replaced);
  // The PRs each session names, as rows, for the metrics' PR spend tiles (joined in SQL).
  await recordSessionPrRefs(db, ctx.appId, written.map((w) => w.row), replaced);
  // The verification facts the verdict reads (issue 39).
  await storeSessionFacts(db, ctx.appId, written.map((w) => ({ id: w.row.id, doc: w.doc })), now, ctx.log);
  await store.putDocuments(db, written.map((w) => {
    // A document stored exactly as it came was compressed before the transaction; a merged one is compressed here.
    const encoded = prepared.get(w.doc)?.encoded ?? encodeDocument(w.doc);
    return { session_id: w.row.id, app_id: ctx.appId, encoding: encoded.encoding, raw_bytes: encoded.rawBytes, body: encoded.body };
  }));

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
  const byKey = <T>(m: Map<string, T>) => [...m.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([, v]) => v);
  await store.applyFacetDeltas(db, ctx.appId, byKey(facetTotals));
  await store.applyRepoDeltas(db, ctx.appId, byKey(repoTotals));
}

// ---------------------------------------------------------------------------------------------------------
// Reads


export interface SessionWire {
  traceId: string;
  sessionId: string;
  actorId: string;
  actorName: string;
  agentType: string;
  agentVersion: string | null;
  branch: string;
  repo: string;
  project: string;
  title: string;
  origin: Origin;
  workerKind: string;
  captureTier: string;
  costStatus: CostStatus;
  costUsd: number;
  unpricedModels: string[];
  models: string[];
  tokens: TokensWire;
  startedAt: string;
  endedAt: string;
  updatedAt: string;
  durationMs: number;
  turnCount: number;
  userTurnCount: number;
  steeringCount: number;
  toolCallCount: number;
  toolErrorCount: number;
  rejectedToolCallCount: number;
  apiErrorCount: number;
  errorCount: number;
  toolErrorRate: number;
  isSubagent: boolean;
  parentSessionId: string | null;
  contextSourceVerification: 'verified' | 'unverified' | 'absent';
  prOutcomes: PrOutcome[];
}

/** Tokens by kind; cache writes as a total and by TTL (`cacheWrite5m + cacheWrite1h = cacheWrite`). */
export interface TokensWire {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
}

export function tokensWire(r: { input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_write_tokens: number; cache_write_1h_tokens: number }): TokensWire {
  const write = Number(r.cache_write_tokens);
  const oneHour = Number(r.cache_write_1h_tokens ?? 0);
  return { input: Number(r.input_tokens), output: Number(r.output_tokens), cacheRead: Number(r.cache_read_tokens), cacheWrite: write, cacheWrite5m: write - oneHour, cacheWrite1h: oneHour };
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Stable pseudonym of an actor for callers without sessions.read_team: `anon-` + 16 hex of an HMAC. */
export function pseudonymOf(secret: string, actorId: string): string {
  return `anon-${crypto.createHmac('sha256', secret).update(actorId).digest('hex').slice(0, 16)}`;
}

interface ActorView {
  team: boolean;
  id(actorId: string): string;
  name(actorId: string, name: string): string;
}

function actorView(ctx: FactoryContext): ActorView {
  const team = ctx.principal.permissions.has('sessions.read_team');
  const secret = ctx.gateway.anonSecret;
  return {
    team,
    id: (actorId) => (team ? actorId : pseudonymOf(secret, actorId)),
    name: (_actorId, name) => (team ? name : 'anonymous'),
  };
}

/** What other areas know about a page of sessions: PR outcomes (prs) and context verification (context). */
interface Enrichment {
  prOutcomes: Map<string, PrOutcome[]>;
  verification: Map<string | null, 'verified' | 'unverified' | 'absent'>;
}

async function enrich(ctx: FactoryContext, rows: store.SessionRow[]): Promise<Enrichment> {
  if (!rows.length) return { prOutcomes: new Map(), verification: new Map() };
  const [prOutcomes, verification] = await Promise.all([
    prOutcomesForRows(ctx, rows),
    contextVerifications(ctx, rows.map((r) => r.commit_sha)),
  ]);
  return { prOutcomes, verification };
}

function toWire(row: store.SessionRow, actors: ActorView, extra: Enrichment): SessionWire {
  return {
    traceId: row.id,
    sessionId: row.session_id,
    actorId: actors.id(row.actor_id),
    actorName: actors.name(row.actor_id, row.actor_name),
    agentType: row.agent_type,
    agentVersion: row.agent_version,
    branch: row.branch,
    repo: row.repo,
    project: row.project,
    title: row.title ?? '',
    origin: row.origin as Origin,
    workerKind: row.worker_kind ?? '',
    captureTier: row.capture_tier,
    costStatus: row.cost_status as CostStatus,
    costUsd: microsToUsd(row.cost_micros),
    unpricedModels: JSON.parse(row.unpriced_models) as string[],
    models: JSON.parse(row.models) as string[],
    tokens: tokensWire(row),
    startedAt: iso(row.started_at),
    endedAt: iso(row.ended_at ?? row.started_at + row.duration_ms),
    updatedAt: iso(row.updated_at),
    durationMs: row.duration_ms,
    turnCount: row.turn_count,
    userTurnCount: row.user_turn_count,
    steeringCount: row.steering_count,
    toolCallCount: row.tool_call_count,
    toolErrorCount: row.tool_error_count,
    rejectedToolCallCount: row.rejected_tool_call_count,
    apiErrorCount: row.api_error_count,
    errorCount: row.error_count,
    toolErrorRate: row.tool_error_rate_ppm / 1_000_000,
    isSubagent: row.is_subagent === 1,
    parentSessionId: row.parent_session_id,
    contextSourceVerification: extra.verification.get(row.commit_sha) ?? (row.commit_sha ? 'unverified' : 'absent'),
    prOutcomes: extra.prOutcomes.get(row.id) ?? [],
  };
}

export const SORT_KEYS = ['startedAt', 'cost', 'errors', 'turns', 'steering', 'toolErrorRate'] as const;
export const SIGNALS = ['hands-on', 'denied', 'tool-errors', 'provider-errors', 'clean'] as const;
export const ORIGINS = ['interactive', 'agent', 'worker'] as const;

const SORT_COLUMNS: Record<(typeof SORT_KEYS)[number], store.SortColumn> = {
  startedAt: 'started_at',
  cost: 'cost_micros',
  errors: 'error_count',
  turns: 'turn_count',
  steering: 'steering_count',
  toolErrorRate: 'tool_error_rate_ppm',
};

export interface ListQuery {
  limit?: number;
  offset?: number;
  repo?: string;
  repoScope?: 'all';
  branch?: string;
  agentType?: string;
  model?: string;
  workerKind?: string;
  actor?: string;
  origin?: string;
  q?: string;
  from?: string;
  to?: string;
  sort?: (typeof SORT_KEYS)[number];
  dir?: 'asc' | 'desc';
  signal?: (typeof SIGNALS)[number];
  includeSubagents?: string;
  pr?: string;
}

export interface SessionListWire {
  sessions: SessionWire[];
  total: number;
  repo: string;
  repoSelection: 'dominant' | 'one' | 'none' | 'all';
  repositories: { repo: string; sessions: number }[];
  repositoriesTotal: number;
  hiddenRepositories: number;
  hiddenSessions: number;
  scope: 'self' | 'team';
  actors: string[];
  actorNames: Record<string, string>;
  agentTypes: string[];
  branches: string[];
  models: string[];
  workerKinds: string[];
  originCounts: { agent: number; interactive: number; worker: number };
}

const MAX_REPOSITORIES_LISTED = 100;
/** Counting stops here: past the deepest page reachable (offset 10000 + limit 100), `total` is a lower bound. */
export const TOTAL_CAP = 10_100;
/**
 * How many ids a title search reads first (see listSessions): more than the matches of a usual search, far
 * fewer than TOTAL_CAP (reading 10k ids to count them would cost more than counting them in SQL).
 */
const PROBE_ROWS = 1024;

function queryError(path: string, message: string) {
  return apiError('invalid_query_params', `Invalid querystring: ${path} ${message}`, { details: [{ path, message }] });
}

interface ListPlan {
  actors: ActorView;
  filter: store.ListFilter;
  repoRows: Awaited<ReturnType<typeof store.repos>>;
  repo: string | null;
  repoSelection: SessionListWire['repoSelection'];
  sort: store.SortColumn;
  dir: 'asc' | 'desc';
}

/** Validate a list query (the list's 4xx answers) and turn it into the store's filter and order. */
async function planList(ctx: FactoryContext, query: ListQuery): Promise<ListPlan> {
  if (query.pr !== undefined) {
    throw apiError('pr_filter_unsupported', 'The session list cannot filter by pull request; use GET /v1/prs/{owner}/{repo}/{number} for the sessions linked to a pull request.');
  }
  const actors = actorView(ctx);
  if (query.actor !== undefined && !actors.team) {
    throw apiError('actor_filter_forbidden', 'Filtering by actor needs the sessions.read_team permission.');
  }
  const origins = query.origin !== undefined ? query.origin.split(',').map((o) => o.trim()).filter(Boolean) : undefined;
  for (const o of origins ?? []) {
    if (!(ORIGINS as readonly string[]).includes(o)) throw queryError('origin', `must be a comma list of ${ORIGINS.join(', ')}`);
  }
  const from = query.from !== undefined ? Date.parse(query.from) : undefined;
  const to = query.to !== undefined ? Date.parse(query.to) : undefined;
  if (from !== undefined && to !== undefined && from > to) throw apiError('invalid_date_range', 'from must not be after to.');
  let includeSubagents = false;
  if (query.includeSubagents !== undefined) {
    if (!['1', '0', 'true', 'false'].includes(query.includeSubagents)) throw queryError('includeSubagents', 'must be 1 or 0');
    includeSubagents = query.includeSubagents === '1' || query.includeSubagents === 'true';
  }

  const repoRows = await store.repos(ctx.db, ctx.appId);
  let repoSelection: SessionListWire['repoSelection'];
  let repo: string | null;
  if (query.repoScope === 'all') {
    repoSelection = 'all';
    repo = null;
  } else if (query.repo !== undefined) {
    repo = normalizeRepo(query.repo);
    repoSelection = repo === '' ? 'none' : 'one';
  } else {
    repoSelection = 'dominant';
    repo = repoRows[0]?.repo ?? '';
  }

  const filter: store.ListFilter = {
    repo,
    includeSubagents,
    ...(query.branch !== undefined ? { branch: query.branch } : {}),
    ...(query.agentType !== undefined ? { agentType: query.agentType } : {}),
    ...(query.model !== undefined ? { model: query.model } : {}),
    ...(query.workerKind !== undefined ? { workerKind: query.workerKind } : {}),
    ...(query.actor !== undefined ? { actorId: query.actor } : {}),
    ...(origins?.length ? { origins } : {}),
    ...(query.q !== undefined ? { q: query.q } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(query.signal !== undefined ? { signal: query.signal } : {}),
  };
  return { actors, filter, repoRows, repo, repoSelection, sort: SORT_COLUMNS[query.sort ?? 'startedAt'], dir: query.dir ?? 'desc' };
}

export async function listSessions(ctx: FactoryContext, query: ListQuery): Promise<SessionListWire> {
  const { actors, filter, repoRows, repo, repoSelection, sort, dir } = await planList(ctx, query);
  const limit = query.limit ?? 25;
  const offset = query.offset ?? 0;

  const reposWithSessions = repoRows.filter((r) => r.sessions > 0);
  const allSessions = reposWithSessions.reduce((n, r) => n + r.sessions, 0);
  const inRepo = repo === null ? allSessions : (reposWithSessions.find((r) => r.repo === repo)?.sessions ?? 0);
  // The total comes from the counters when they can answer it: scope alone, or scope and one facet filter.
  // Anything else is counted, stopping past the deepest page the list can reach (offset ≤ 10000).
  const facetFilters: [store.FacetKind, string[]][] = [];
  if (filter.branch !== undefined) facetFilters.push(['branch', [filter.branch]]);
  if (filter.agentType !== undefined) facetFilters.push(['agentType', [filter.agentType]]);
  if (filter.model !== undefined) facetFilters.push(['model', [filter.model]]);
  if (filter.workerKind !== undefined) facetFilters.push(['workerKind', [filter.workerKind]]);
  if (filter.actorId !== undefined) facetFilters.push(['actor', [filter.actorId]]);
  if (filter.origins?.length) facetFilters.push(['origin', [...new Set(filter.origins)]]);
  if (filter.signal !== undefined) facetFilters.push(['signal', [filter.signal]]);
  // How big the scope is, for the store's choice of how to read a title search (never for the rows).
  filter.scopeRows = inRepo;
  const scanned = filter.includeSubagents || filter.q !== undefined || filter.from !== undefined || filter.to !== undefined || facetFilters.length > 1;

  const dialect = ctx.gateway.dialect;
  const count = () => store.countMatching(ctx.db, dialect, ctx.appId, filter, TOTAL_CAP);
  const facetsRead = store.facets(ctx.db, ctx.appId, repo);
  facetsRead.catch(() => undefined); // awaited below; not an unhandled rejection if the probe throws first
  let rows: store.SessionRow[] | null = null;
  let counted: number | null = null;
  // PostgreSQL: a title search usually matches a few hundred sessions at most. One statement reads the ids
  // of the first PROBE_ROWS matches in the list's order, counts them and reads the page's rows among them;
  // fewer than PROBE_ROWS are all the matches, so their number is the exact total. The page and the count
  // then cost one BitmapAnd of the window and the trigram index instead of two at once on two connections
  // (half the CPU; on two shared cores that is what the latency follows). More matches: that page is right
  // and the count below runs after it. Not on SQLite, where the page stops at its rows and the count walks
  // index entries only, the same statement is no faster.
  if (dialect === 'postgres' && filter.q && offset + limit <= PROBE_ROWS) {
    const probed = await store.pageAndMatches(ctx.db, ctx.appId, filter, sort, dir, limit, offset, PROBE_ROWS);
    rows = probed.rows;
    counted = probed.matches < PROBE_ROWS ? probed.matches : await count();
  }
  if (rows === null) {
    // PostgreSQL runs the page and the count on two connections at once. SQLite has one connection and runs
    // them one after the other, so there the count waits for the page and is skipped when the page already
    // says the total: a page that is not full, and not past the end, ends the list (offset + its rows, at most
    // 10,100, so still exact). A rare title search or a narrow filter then costs one statement, not two.
    const alongside = scanned && dialect === 'postgres';
    const [page, countedAlongside] = await Promise.all([
      store.listPage(ctx.db, dialect, ctx.appId, filter, sort, dir, limit, offset),
      alongside ? count() : null,
    ]);
    rows = page;
    counted = countedAlongside;
    if (scanned && !alongside) counted = rows.length < limit && (rows.length > 0 || offset === 0) ? offset + rows.length : await count();
  }
  const facetRows = await facetsRead;
  let total = counted ?? inRepo;
  if (counted === null && facetFilters.length === 1) {
    const [kind, values] = facetFilters[0]!;
    total = facetRows.filter((f) => f.kind === kind && values.includes(f.value)).reduce((n, f) => n + Number(f.sessions), 0);
  }

  const facetValues = (kind: store.FacetKind) => facetRows.filter((f) => f.kind === kind).map((f) => f.value).sort();
  const actorRows = facetRows.filter((f) => f.kind === 'actor');
  const actorNames: Record<string, string> = {};
  for (const a of actorRows) actorNames[actors.id(a.value)] = actors.name(a.value, a.label ?? a.value);
  for (const r of rows) actorNames[actors.id(r.actor_id)] ??= actors.name(r.actor_id, r.actor_name);
  const originCounts = { agent: 0, interactive: 0, worker: 0 };
  for (const f of facetRows) {
    if (f.kind === 'origin' && (f.value === 'agent' || f.value === 'interactive' || f.value === 'worker')) originCounts[f.value] += Number(f.sessions);
  }
  const pinned = repo !== null && reposWithSessions.some((r) => r.repo === repo);
  const extra = await enrich(ctx, rows);
  return {
    sessions: rows.map((r) => toWire(r, actors, extra)),
    total,
    repo: repo ?? '',
    repoSelection,
    repositories: reposWithSessions.slice(0, MAX_REPOSITORIES_LISTED).map((r) => ({ repo: r.repo, sessions: Number(r.sessions) })),
    repositoriesTotal: reposWithSessions.length,
    hiddenRepositories: repo === null ? 0 : reposWithSessions.length - (pinned ? 1 : 0),
    hiddenSessions: repo === null ? 0 : allSessions - inRepo,
    scope: actors.team ? 'team' : 'self',
    actors: [...new Set(actorRows.map((a) => actors.id(a.value)))].sort(),
    actorNames,
    agentTypes: facetValues('agentType'),
    branches: facetValues('branch'),
    models: facetValues('model'),
    workerKinds: facetValues('workerKind'),
    originCounts,
  };
}

/** Rows an export reads from the store per statement. */
export const EXPORT_BATCH = 500;

/**
 * Every session the list would show for `query` (same filters, order, permissions and actor pseudonyms),
 * without its limit/offset: validates first (throwing the list's 4xx answers), then yields the rows page
 * by page (keyset), so a caller can stream them with one page in memory.
 */
export async function exportSessions(ctx: FactoryContext, query: Omit<ListQuery, 'limit' | 'offset'>): Promise<AsyncIterable<SessionWire>> {
  const { actors, filter, sort, dir } = await planList(ctx, query);
  return (async function* rows() {
    let after: store.ListCursor | null = null;
    for (;;) {
      const page = await store.listAfter(ctx.db, ctx.gateway.dialect, ctx.appId, filter, sort, dir, EXPORT_BATCH, after);
      if (page.length === 0) return;
      const extra = await enrich(ctx, page);
      for (const row of page) yield toWire(row, actors, extra);
      if (page.length < EXPORT_BATCH) return;
      const last = page[page.length - 1]!;
      after = { value: Number(last[sort]), id: last.id };
    }
  })();
}

export interface SessionDetailWire extends SessionWire {
  env: Record<string, unknown>;
  outcome: Record<string, unknown> | null;
  subagent: Record<string, unknown> | null;
  chunk: { of: number | null; partsReceived: number[] };
  turns: unknown[];
  events: unknown[];
  warnings: unknown[];
  modelUsage: { model: string; turns: number; costUsd: number; tokens: TokensWire }[];
  /** The parent session's traceId when this is a subagent whose parent is stored in this factory. */
  parentTraceId: string | null;
  subagents: { traceId: string; sessionId: string; subagentId: string | null; title: string; agentType: string; startedAt: string; costUsd: number; costStatus: CostStatus }[];
}

/** How many subagent sessions a transcript read lists. */
export const SUBAGENTS_LISTED = 200;

/** The full transcript: summary fields, turns with tool calls (images linked to the blob route), events. */
export async function getSession(ctx: FactoryContext, traceId: string): Promise<SessionDetailWire> {
  const row = (await store.findById(ctx.db, ctx.appId, traceId)) ?? (await store.findBySessionId(ctx.db, ctx.appId, traceId));
  if (!row) throw apiError('session_not_found', 'No such session in this factory.');
  const [docRow, usage, parent, subagents] = await Promise.all([
    store.getDocument(ctx.db, ctx.appId, row.id),
    store.modelUsageOf(ctx.db, ctx.appId, row.id),
    row.parent_session_id ? store.findTopLevelBySessionId(ctx.db, ctx.appId, row.parent_session_id) : undefined,
    row.is_subagent ? [] : store.subagentsOf(ctx.db, ctx.appId, row.session_id, SUBAGENTS_LISTED),
  ]);
  if (!docRow) throw apiError('session_not_found', 'No such session in this factory.');
  const doc = decodeDocument(docRow.encoding, docRow.body);
  const turns = doc.turns.map((t) =>
    t.images?.length ? { ...t, images: t.images.map((img) => ({ ...img, url: `/v1/agents/blob/${img.sha256}` })) } : t,
  );
  return {
    ...toWire(row, actorView(ctx), await enrich(ctx, [row])),
    env: { ...doc.env },
    outcome: doc.outcome ?? null,
    subagent: doc.subagent ?? null,
    chunk: { of: row.chunk_of, partsReceived: JSON.parse(row.chunk_parts) as number[] },
    turns,
    events: doc.events,
    warnings: doc.warnings,
    modelUsage: usage
      .sort((a, b) => a.model.localeCompare(b.model))
      .map((u) => ({
        model: u.model,
        turns: u.turn_count,
        costUsd: microsToUsd(u.cost_micros),
        tokens: tokensWire(u),
      })),
    parentTraceId: parent && parent.id !== row.id ? parent.id : null,
    subagents: subagents.map((s) => ({
      traceId: s.id,
      sessionId: s.session_id,
      subagentId: s.subagent_id,
      title: s.title ?? '',
      agentType: s.agent_type,
      startedAt: iso(s.started_at),
      costUsd: microsToUsd(s.cost_micros),
      costStatus: s.cost_status as CostStatus,
    })),
  };
}
