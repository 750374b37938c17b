// SQL for agent sessions: summary rows, per-model usage, compressed documents and the facet/repo counters.
// Every query is scoped by app_id.
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Db, Dialect } from '../../db/connection.js';

export interface SessionsTable {
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
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_micros: number;
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
}

export interface SessionModelUsageTable {
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
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_micros: number;
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

declare module '../../db/schema.js' {
  interface Database {
    sessions: SessionsTable;
    session_model_usage: SessionModelUsageTable;
    session_documents: SessionDocumentsTable;
    session_facets: SessionFacetsTable;
    session_repos: SessionReposTable;
  }
}

export type SessionRow = SessionsTable;
export type ModelUsageRow = SessionModelUsageTable;
export type FacetKind = 'actor' | 'agentType' | 'branch' | 'model' | 'workerKind' | 'origin';

export async function findByKey(db: Db, dialect: Dialect, appId: string, sessionKey: string): Promise<SessionRow | undefined> {
  let q = db.selectFrom('sessions').selectAll().where('app_id', '=', appId).where('session_key', '=', sessionKey);
  if (dialect === 'postgres') q = q.forUpdate();
  return q.executeTakeFirst();
}

/** Insert the row unless another writer got there first (then the caller reads theirs, locked). */
export async function insertSessionIfAbsent(db: Db, row: SessionRow): Promise<boolean> {
  const res = await db.insertInto('sessions').values(row).onConflict((oc) => oc.columns(['app_id', 'session_key']).doNothing()).executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function updateSession(db: Db, appId: string, id: string, row: Omit<SessionRow, 'id' | 'org_id' | 'app_id' | 'session_key' | 'created_at'>): Promise<void> {
  await db.updateTable('sessions').set(row).where('app_id', '=', appId).where('id', '=', id).execute();
}

export async function modelUsageOf(db: Db, appId: string, sessionId: string): Promise<ModelUsageRow[]> {
  return db.selectFrom('session_model_usage').selectAll().where('app_id', '=', appId).where('session_id', '=', sessionId).execute();
}

export async function replaceModelUsage(db: Db, appId: string, sessionId: string, rows: ModelUsageRow[]): Promise<void> {
  await db.deleteFrom('session_model_usage').where('app_id', '=', appId).where('session_id', '=', sessionId).execute();
  if (rows.length) await db.insertInto('session_model_usage').values(rows).execute();
}

export async function putDocument(db: Db, row: SessionDocumentsTable): Promise<void> {
  await db
    .insertInto('session_documents')
    .values(row)
    .onConflict((oc) => oc.column('session_id').doUpdateSet({ encoding: row.encoding, raw_bytes: row.raw_bytes, body: row.body }))
    .execute();
}

export async function getDocument(db: Db, appId: string, sessionId: string): Promise<SessionDocumentsTable | undefined> {
  return db.selectFrom('session_documents').selectAll().where('app_id', '=', appId).where('session_id', '=', sessionId).executeTakeFirst();
}

export interface FacetDelta {
  repo: string;
  kind: FacetKind;
  value: string;
  label: string | null;
  delta: number;
}

export async function applyFacetDeltas(db: Db, appId: string, deltas: FacetDelta[]): Promise<void> {
  for (const d of deltas) {
    if (d.delta === 0) continue;
    await db
      .insertInto('session_facets')
      .values({ app_id: appId, repo: d.repo, kind: d.kind, value: d.value, label: d.label, sessions: d.delta })
      .onConflict((oc) =>
        oc.columns(['app_id', 'repo', 'kind', 'value']).doUpdateSet((eb) => ({
          sessions: eb('session_facets.sessions', '+', eb.ref('excluded.sessions')),
          label: eb.fn.coalesce(eb.ref('excluded.label'), eb.ref('session_facets.label')),
        })),
      )
      .execute();
  }
}

export async function applyRepoDelta(db: Db, appId: string, repo: string, sessions: number, costMicros: number): Promise<void> {
  if (sessions === 0 && costMicros === 0) return;
  await db
    .insertInto('session_repos')
    .values({ app_id: appId, repo, sessions, cost_micros: costMicros })
    .onConflict((oc) =>
      oc.columns(['app_id', 'repo']).doUpdateSet((eb) => ({
        sessions: eb('session_repos.sessions', '+', eb.ref('excluded.sessions')),
        cost_micros: eb('session_repos.cost_micros', '+', eb.ref('excluded.cost_micros')),
      })),
    )
    .execute();
}

export async function repos(db: Db, appId: string): Promise<{ repo: string; sessions: number; cost_micros: number }[]> {
  return db
    .selectFrom('session_repos')
    .select(['repo', 'sessions', 'cost_micros'])
    .where('app_id', '=', appId)
    .where((eb) => eb.or([eb('sessions', '>', 0), eb('cost_micros', '>', 0)]))
    .orderBy('cost_micros', 'desc')
    .orderBy('sessions', 'desc')
    .orderBy('repo')
    .execute();
}

/** Facet values with their session counts, in one repo or (repo null) summed across all of them. */
export async function facets(db: Db, appId: string, repo: string | null): Promise<{ kind: string; value: string; label: string | null; sessions: number }[]> {
  if (repo !== null) {
    return db
      .selectFrom('session_facets')
      .select(['kind', 'value', 'label', 'sessions'])
      .where('app_id', '=', appId)
      .where('repo', '=', repo)
      .where('sessions', '>', 0)
      .execute();
  }
  return db
    .selectFrom('session_facets')
    .select((eb) => ['kind', 'value', eb.fn.max('label').as('label'), eb.fn.sum<number>('sessions').as('sessions')])
    .where('app_id', '=', appId)
    .where('sessions', '>', 0)
    .groupBy(['kind', 'value'])
    .execute();
}

export type SortColumn = 'started_at' | 'cost_micros' | 'error_count' | 'turn_count' | 'steering_count' | 'tool_error_rate_ppm';
export type Signal = 'hands-on' | 'denied' | 'tool-errors' | 'provider-errors' | 'clean';

export interface ListFilter {
  /** null: every repository. */
  repo: string | null;
  includeSubagents: boolean;
  branch?: string;
  agentType?: string;
  model?: string;
  workerKind?: string;
  actorId?: string;
  origins?: string[];
  q?: string;
  from?: number;
  to?: number;
  signal?: Signal;
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function where(filter: ListFilter, _dialect: Dialect) {
  return (eb: ExpressionBuilder<{ sessions: SessionsTable }, 'sessions'>): Expression<SqlBool> => {
    const parts: Expression<SqlBool>[] = [];
    if (filter.repo !== null) parts.push(eb('sessions.repo', '=', filter.repo));
    if (!filter.includeSubagents) parts.push(eb('sessions.is_subagent', '=', 0));
    if (filter.branch !== undefined) parts.push(eb('sessions.branch', '=', filter.branch));
    if (filter.agentType !== undefined) parts.push(eb('sessions.agent_type', '=', filter.agentType));
    if (filter.workerKind !== undefined) parts.push(eb('sessions.worker_kind', '=', filter.workerKind));
    if (filter.actorId !== undefined) parts.push(eb('sessions.actor_id', '=', filter.actorId));
    if (filter.origins?.length) parts.push(eb('sessions.origin', 'in', filter.origins));
    if (filter.from !== undefined) parts.push(eb('sessions.started_at', '>=', filter.from));
    if (filter.to !== undefined) parts.push(eb('sessions.started_at', '<', filter.to));
    if (filter.q !== undefined && filter.q !== '') {
      const pattern = `%${escapeLike(filter.q.toLowerCase())}%`;
      // Same SQL on both dialects; lower() on both sides makes it case-insensitive everywhere.
      parts.push(sql<SqlBool>`lower(coalesce(sessions.title, '')) like ${pattern} escape '\\'`);
    }
    if (filter.model !== undefined) {
      const model = filter.model;
      parts.push(sql<SqlBool>`exists (select 1 from session_model_usage mu where mu.session_id = sessions.id and mu.app_id = sessions.app_id and mu.model = ${model})`);
    }
    switch (filter.signal) {
      case 'hands-on': parts.push(eb('sessions.steering_count', '>', 0)); break;
      case 'denied': parts.push(eb('sessions.rejected_tool_call_count', '>', 0)); break;
      case 'tool-errors': parts.push(eb('sessions.tool_error_count', '>', 0)); break;
      case 'provider-errors': parts.push(eb('sessions.api_error_count', '>', 0)); break;
      case 'clean':
        parts.push(eb('sessions.tool_error_count', '=', 0), eb('sessions.api_error_count', '=', 0), eb('sessions.rejected_tool_call_count', '=', 0));
        break;
      default: break;
    }
    return eb.and(parts);
  };
}

export async function listPage(
  db: Db, dialect: Dialect, appId: string, filter: ListFilter, sort: SortColumn, dir: 'asc' | 'desc', limit: number, offset: number,
): Promise<SessionRow[]> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('sessions.app_id', '=', appId)
    .where(where(filter, dialect))
    .orderBy(sort, dir)
    .orderBy('id', dir)
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countMatching(db: Db, dialect: Dialect, appId: string, filter: ListFilter): Promise<number> {
  const row = await db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('sessions.app_id', '=', appId)
    .where(where(filter, dialect))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findById(db: Db, appId: string, id: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
}
