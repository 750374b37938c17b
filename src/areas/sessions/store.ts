// SQL of agent sessions: the tables, and the summary rows and per-model usage rows of each session (documents and
// images: document-store.ts; the list's counters: counter-store.ts; the list's own SQL: list-store.ts).
// Every query is scoped by app_id.
import { CompiledQuery } from 'kysely';
import { isPostgres, type Db } from '../../db/connection.js';
import { insertRows, updateRowsById } from '../../db/bulk-insert.js';
import { insertIfAbsent } from '../../db/chunked.js';
import { deleteRowsOfSessionsText } from '../../db/rows-of-sessions.js';
import { USAGE_COLUMNS, type UsageColumns } from '../../db/schema.js';
import { sessionKeyOf, sessionKeyPart } from './document.js';
import { listEntryText, type ListEntryColumns } from './list-entry.js';

export interface SessionsTable extends UsageColumns {
  id: string;
  org_id: string;
  app_id: string;
  session_key: string;
  session_id: string;
  parent_session_id: string | null;
  subagent_id: string | null;
  is_subagent: number;
  actor_id: string;
  actor_name: string;
  credential_id: string;
  agent_type: string;
  agent_version: string | null;
  origin: string;
  worker_kind: string | null;
  repo: string;
  branch: string;
  project: string;
  commit_sha: string | null;
  title: string | null;
  capture_tier: string;
  /** Where the session's figures come from: 'transcript' (a sync), or 'telemetry' (OTLP events only). */
  capture_source: string;
  started_at: number;
  ended_at: number | null;
  duration_ms: number;
  turn_count: number;
  user_turn_count: number;
  steering_count: number;
  event_count: number;
  tool_call_count: number;
  tool_error_count: number;
  rejected_tool_call_count: number;
  api_error_count: number;
  error_count: number;
  tool_error_rate_ppm: number;
  cost_status: string;
  /** JSON array of model names. */
  unpriced_models: string;
  /** JSON array of model names. */
  models: string;
  /** JSON array of { prNumber, prUrl? } the session itself names (outcome, pr_linked events). */
  pr_refs: string;
  chunk_of: number | null;
  /** JSON array of the chunk parts received. */
  chunk_parts: string;
  created_at: number;
  updated_at: number;
  /**
   * The row's object in the session list as JSON text (list-entry.ts), written by this store with the row;
   * NULL for a row stored before migration 0053 until the sweep (housekeeping.ts) writes it.
   */
  list_entry: string | null;
}

export interface SessionModelUsageTable extends UsageColumns {
  session_id: string;
  org_id: string;
  app_id: string;
  model: string;
  started_at: number;
  repo: string;
  actor_id: string;
  agent_type: string;
  is_subagent: number;
  turn_count: number;
  unpriced_turn_count: number;
}

export interface SessionDocumentsTable {
  session_id: string;
  app_id: string;
  encoding: string;
  raw_bytes: number;
  body: Uint8Array;
}

export interface SessionFacetsTable {
  app_id: string;
  repo: string;
  kind: string;
  value: string;
  label: string | null;
  sessions: number;
}

export interface SessionReposTable {
  app_id: string;
  repo: string;
  sessions: number;
  cost_micros: number;
}

/** Which images (content-addressed blobs) a stored session's document names (0035). */
export interface SessionImagesTable {
  app_id: string;
  session_id: string;
  sha256: string;
}

declare module '../../db/schema.js' {
  interface Database {
    session_images: SessionImagesTable;
    sessions: SessionsTable;
    session_model_usage: SessionModelUsageTable;
    session_documents: SessionDocumentsTable;
    session_facets: SessionFacetsTable;
    session_repos: SessionReposTable;
  }
}

/** A session's row as its writers make it: the list entry is the store's to write (withListEntry). */
export type SessionRow = Omit<SessionsTable, 'list_entry'>;

/** The row with its list entry, made from its own columns: every write of a row's columns goes through this. */
function withListEntry<R extends ListEntryColumns>(row: R): R & { list_entry: string } {
  return { ...row, list_entry: listEntryText(row) };
}

/** The columns the list, its export and toWire read: a listed row leaves out what only ingest and detail use. */
export const LISTED_COLUMNS = [
  'id',
  'session_id',
  'parent_session_id',
  'is_subagent',
  'actor_id',
  'actor_name',
  'agent_type',
  'agent_version',
  'origin',
  'worker_kind',
  'repo',
  'branch',
  'project',
  'commit_sha',
  'title',
  'capture_tier',
  'capture_source',
  'started_at',
  'ended_at',
  'duration_ms',
  'updated_at',
  'turn_count',
  'user_turn_count',
  'steering_count',
  'tool_call_count',
  'tool_error_count',
  'rejected_tool_call_count',
  'api_error_count',
  'error_count',
  'tool_error_rate_ppm',
  ...USAGE_COLUMNS,
  'cost_status',
  'unpriced_models',
  'models',
  'pr_refs',
] as const satisfies readonly (keyof SessionRow)[];
export type ListedRow = Pick<SessionRow, (typeof LISTED_COLUMNS)[number]>;
export type ModelUsageRow = SessionModelUsageTable;
export type FacetKind = 'actor' | 'agentType' | 'branch' | 'model' | 'workerKind' | 'origin' | 'signal';

/**
 * The stored rows of these sessions, locked for the rest of the transaction on PostgreSQL, in the order of
 * `sessionKeys` there (callers sort them, so concurrent syncs lock in one order and never deadlock).
 */
export async function findByKeys(db: Db, appId: string, sessionKeys: string[]): Promise<SessionRow[]> {
  if (!sessionKeys.length) return [];
  return (await db.executeQuery(sessionsByKeysQuery(db, appId, sessionKeys))).rows;
}

/**
 * findByKeys's statement (exported so a test can ask the store for its plan). On PostgreSQL, one probe of the
 * unique (app_id, session_key) index per key: with `session_key in (...)` PostgreSQL chose by its statistics,
 * and while an app's sessions grew faster than autovacuum analyzed them (a new factory's first syncs, a
 * backfill) it took the app for a small one and read all of its rows through (app_id, started_at) on every
 * sync: 5,175 rows read to find none, 3.4 ms, at 5k sessions (auto_explain), and growing with the app.
 * Equality on every column of a unique index is at most one row whatever the statistics say.
 */
export function sessionsByKeysQuery(db: Db, appId: string, sessionKeys: string[]): CompiledQuery<SessionRow> {
  if (!isPostgres(db))
    return db
      .selectFrom('sessions')
      .selectAll()
      .where('app_id', '=', appId)
      .where('session_key', 'in', sessionKeys)
      .compile();
  return CompiledQuery.raw(
    'select s.* from unnest($2::text[]) with ordinality as k(session_key, n) cross join lateral ' +
      '(select * from "sessions" where "app_id" = $1 and "session_key" = k.session_key for update) as s order by k.n',
    [appId, sessionKeys],
  ) as CompiledQuery<SessionRow>;
}

/** Insert rows unless another writer got there first; answers the keys inserted. */
export function insertSessionsIfAbsent(db: Db, rows: SessionRow[]): Promise<Set<string>> {
  return insertIfAbsent(db, 'sessions', rows.map(withListEntry), ['app_id', 'session_key'], 'session_key', 200);
}

/** Updates stored sessions, each to its own summary (one statement on PostgreSQL; db/bulk-insert.ts). */
export async function updateSessions(
  db: Db,
  appId: string,
  rows: ({ id: string } & Omit<SessionRow, 'id' | 'org_id' | 'app_id' | 'session_key' | 'created_at'>)[],
): Promise<void> {
  await updateRowsById(db, 'sessions', appId, rows.map(withListEntry));
}

export async function modelUsageOf(db: Db, appId: string, sessionId: string): Promise<ModelUsageRow[]> {
  return db
    .selectFrom('session_model_usage')
    .selectAll()
    .where('app_id', '=', appId)
    .where('session_id', '=', sessionId)
    .execute();
}

/** Replace the usage rows of these sessions (those of `replacedSessionIds` are deleted first). */
export async function replaceModelUsage(
  db: Db,
  appId: string,
  replacedSessionIds: string[],
  rows: ModelUsageRow[],
): Promise<void> {
  if (replacedSessionIds.length) await db.executeQuery(deleteModelUsageQuery(db, appId, replacedSessionIds));
  for (let i = 0; i < rows.length; i += 500) await insertRows(db, 'session_model_usage', rows.slice(i, i + 500));
}

/**
 * replaceModelUsage's delete (exported so a test can ask the store for its plan). SQLite reads the
 * (app_id, session_id) index; PostgreSQL probes the primary key (session_id, model) once a session whatever its
 * statistics say (db/rows-of-sessions.ts): with `session_id in (...)` it read all of the app's usage rows
 * through (app_id, started_at) while the table had no fresh statistics.
 */
export function deleteModelUsageQuery(db: Db, appId: string, sessionIds: readonly string[]): CompiledQuery {
  if (isPostgres(db))
    return CompiledQuery.raw(deleteRowsOfSessionsText('session_model_usage', 'session_id', 'session'), [
      appId,
      [...sessionIds],
    ]);
  return db
    .deleteFrom('session_model_usage')
    .where('app_id', '=', appId)
    .where('session_id', 'in', [...sessionIds])
    .compile();
}

export async function findById(db: Db, appId: string, id: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
}

/**
 * A session named by the id its agent wrote (issue 15 §6): the top-level session of that id first, else the
 * oldest subagent transcript that carries it.
 */
export function findBySessionId(db: Db, appId: string, sessionId: string): Promise<SessionRow | undefined> {
  return findBySessionIdQuery(db, appId, sessionId).executeTakeFirst();
}

/**
 * The range of `session_key` that a session id's keys fall in: the id's key part itself (a top-level session)
 * and `<part>#<agentId>` (its subagents; sessionKeyOf, which escapes any `#` of the id), as bytes compare
 * ('#' < '$'); a key of another id in it (one that goes on with a character below '$') is left out by
 * `session_id = ?`.
 */
export function sessionKeyRange(sessionId: string): [string, string] {
  const part = sessionKeyPart(sessionId);
  return [part, `${part}$`];
}

/**
 * findBySessionId's statement, the top-level session first (exported for a test of its plan): on PostgreSQL by
 * (app_id, session_id, is_subagent) (migration 0024), on SQLite by the range of the unique (app_id, session_key)
 * index its keys fall in (SQLite compares text bytewise; see the migration for why no index there).
 */
export function findBySessionIdQuery(db: Db, appId: string, sessionId: string) {
  let q = db.selectFrom('sessions').selectAll().where('app_id', '=', appId);
  if (!isPostgres(db)) {
    const [lo, hi] = sessionKeyRange(sessionId);
    q = q.where('session_key', '>=', lo).where('session_key', '<', hi);
  }
  return q
    .where('session_id', '=', sessionId)
    .orderBy('is_subagent', 'asc')
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(1);
}

/** The top-level session of this id: the session a subagent's `parentSessionId` names. */
export function findTopLevelBySessionId(db: Db, appId: string, sessionId: string) {
  return db
    .selectFrom('sessions')
    .select(['id', 'title'])
    .where('app_id', '=', appId)
    .where('session_key', '=', sessionKeyOf({ id: sessionId }))
    .executeTakeFirst();
}

/** The subagent sessions whose parent is `parentSessionId`, oldest first (capped: a page lists, never dumps). */
export function subagentsOf(db: Db, appId: string, parentSessionId: string, limit: number) {
  return db
    .selectFrom('sessions')
    .select(['id', 'session_id', 'subagent_id', 'title', 'agent_type', 'started_at', 'cost_micros', 'cost_status'])
    .where('app_id', '=', appId)
    .where('parent_session_id', '=', parentSessionId)
    .where('is_subagent', '=', 1)
    .orderBy('started_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Bulk load of summary rows and their usage rows (benchmarks and imports); counters are the caller's job. */
export async function insertBulk(db: Db, sessions: SessionRow[], usage: ModelUsageRow[]): Promise<void> {
  // 500 rows × ~50 columns stays under SQLite's bound-parameter limit.
  for (let i = 0; i < sessions.length; i += 500)
    await db
      .insertInto('sessions')
      .values(sessions.slice(i, i + 500).map(withListEntry))
      .execute();
  for (let i = 0; i < usage.length; i += 1000)
    await db
      .insertInto('session_model_usage')
      .values(usage.slice(i, i + 1000))
      .execute();
}

/**
 * Delete these sessions' own rows: their usage, images, documents and summary rows (the title search follows
 * them). A statement per table for up to 300 sessions, not one per session: a retention batch of 100 sessions
 * costs 4 statements instead of 400, and holds SQLite's write lock (and the event loop) that much less.
 */
export async function deleteSessionsRows(db: Db, appId: string, ids: readonly string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 300) {
    const part = ids.slice(i, i + 300);
    for (const table of ['session_model_usage', 'session_images', 'session_documents'] as const)
      await db.deleteFrom(table).where('app_id', '=', appId).where('session_id', 'in', part).execute();
    await db.deleteFrom('sessions').where('app_id', '=', appId).where('id', 'in', part).execute();
  }
}

/**
 * Write the list entry of up to `limit` rows that have none (any factory's; the partial index of migration 0053
 * finds them), in one transaction; answers how many rows were read. A row a writer changed since it was read
 * here has its own new entry then, which `list_entry is null` leaves alone.
 */
export async function fillMissingListEntries(db: Db, limit: number): Promise<number> {
  const rows = await db
    .selectFrom('sessions')
    .select(['app_id', ...LISTED_COLUMNS])
    .where('list_entry', 'is', null)
    .limit(limit)
    .execute();
  if (!rows.length) return 0;
  await db.transaction().execute(async (trx) => {
    for (const row of rows)
      await trx
        .updateTable('sessions')
        .set({ list_entry: listEntryText(row) })
        .where('app_id', '=', row.app_id)
        .where('id', '=', row.id)
        .where('list_entry', 'is', null)
        .execute();
  });
  return rows.length;
}

/** Set a stored session's capture tier (`row` is its stored row, read in this transaction). */
export async function setCaptureTier(db: Db, row: SessionRow, tier: string, now: number): Promise<void> {
  const { list_entry } = withListEntry({ ...row, capture_tier: tier, updated_at: now });
  await db
    .updateTable('sessions')
    .set({ capture_tier: tier, updated_at: now, list_entry })
    .where('app_id', '=', row.app_id)
    .where('id', '=', row.id)
    .execute();
}

/**
 * Name `pseudonym` instead of the person on these sessions' rows (erasure), and drop the person's actor facet
 * counters that no session holds any more (their label is the person's name).
 */
export async function renameActor(
  db: Db,
  appId: string,
  ids: readonly string[],
  actorIds: readonly string[],
  pseudonym: string,
  name: string,
): Promise<void> {
  for (let i = 0; i < ids.length; i += 300) {
    const part = ids.slice(i, i + 300);
    await db
      .updateTable('sessions')
      .set({ actor_id: pseudonym, actor_name: name })
      .where('app_id', '=', appId)
      .where('id', 'in', part)
      .execute();
    await db
      .updateTable('session_model_usage')
      .set({ actor_id: pseudonym })
      .where('app_id', '=', appId)
      .where('session_id', 'in', part)
      .execute();
  }
  await db
    .deleteFrom('session_facets')
    .where('app_id', '=', appId)
    .where('kind', '=', 'actor')
    .where('value', 'in', [...actorIds])
    .where('sessions', '<=', 0)
    .execute();
}
