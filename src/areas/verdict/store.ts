// SQL of the verdict (migration 0028): each session's verification facts, every evaluation of a pull request
// (a new row only when it differs from the PR's latest), and what the App read from GitHub, cached per head
// commit (the PR's commits and changed files) and per base commit (the repository's policy files). Every
// statement is scoped by factory.
import { chunks } from '../../db/chunked.js';
import { valuesInKeyOrder } from '../../db/counter-deltas.js';
import type { Db } from '../../db/connection.js';

export interface SessionVerificationsTable {
  session_id: string;
  app_id: string;
  verification: string | null;
  updated_at: number;
}

export interface PrEvaluationsTable {
  id: string;
  org_id: string;
  app_id: string;
  repository: string;
  number: number;
  head_sha: string | null;
  verdict: string;
  flagged: number;
  blocked: number;
  rows: string;
  policy: string;
  digest: string;
  evaluated_at: number;
}

export interface VerdictPrInputsTable {
  app_id: string;
  repository: string;
  number: number;
  head_sha: string;
  commits: string | null;
  files: string | null;
  fetched_at: number;
}

export interface VerdictPoliciesTable {
  app_id: string;
  repository: string;
  base_sha: string;
  files: string;
  fetched_at: number;
}

/** The kinds of run a repository's sessions' facts ever held (migration 0031). */
export interface RepositoryRunKindsTable {
  app_id: string;
  repository: string;
  kind: string;
}

declare module '../../db/schema.js' {
  interface Database {
    repository_run_kinds: RepositoryRunKindsTable;
    session_verifications: SessionVerificationsTable;
    pr_evaluations: PrEvaluationsTable;
    verdict_pr_inputs: VerdictPrInputsTable;
    verdict_policies: VerdictPoliciesTable;
  }
}

/**
 * Replace the facts of these sessions (the ingest calls this inside its transaction): one statement for up to
 * 500 sessions, in session id order (the order every writer takes these rows in, so two ingests of the same
 * sessions wait for each other instead of deadlocking). A session named twice keeps its last row (one
 * statement may not update a row twice).
 */
export async function upsertVerifications(db: Db, rows: readonly SessionVerificationsTable[]): Promise<void> {
  const last = new Map<string, SessionVerificationsTable>();
  for (const row of rows) last.set(row.session_id, row);
  const ordered = valuesInKeyOrder(last);
  for (const part of chunks(ordered, 500)) {
    await db
      .insertInto('session_verifications')
      .values(part)
      .onConflict((oc) =>
        oc.column('session_id').doUpdateSet((eb) => ({
          verification: eb.ref('excluded.verification'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
}

export interface LinkedFactsRow {
  id: string;
  session_id: string;
  started_at: number;
  ended_at: number | null;
  capture_tier: string;
  verification: string | null;
  has_facts: number;
}

/** The facts of the factory's sessions with these trace ids (a session without a facts row has has_facts 0). */
export async function factsOfSessions(db: Db, appId: string, traceIds: readonly string[]): Promise<LinkedFactsRow[]> {
  if (traceIds.length === 0) return [];
  const rows = await db
    .selectFrom('sessions as s')
    .leftJoin('session_verifications as v', 'v.session_id', 's.id')
    .select([
      's.id',
      's.session_id',
      's.started_at',
      's.ended_at',
      's.capture_tier',
      'v.verification',
      'v.session_id as facts_of',
    ])
    .where('s.app_id', '=', appId)
    .where('s.id', 'in', [...traceIds])
    .execute();
  return rows.map((r) => ({
    id: r.id,
    session_id: r.session_id,
    started_at: Number(r.started_at),
    ended_at: r.ended_at === null ? null : Number(r.ended_at),
    capture_tier: r.capture_tier,
    verification: r.verification ?? null,
    has_facts: r.facts_of === null ? 0 : 1,
  }));
}

/** The stored facts of one session of the factory; undefined when it has none. */
export function factsOfSession(
  db: Db,
  appId: string,
  traceId: string,
): Promise<{ verification: string | null } | undefined> {
  return db
    .selectFrom('session_verifications')
    .select('verification')
    .where('app_id', '=', appId)
    .where('session_id', '=', traceId)
    .executeTakeFirst();
}

export function latestEvaluation(
  db: Db,
  appId: string,
  repository: string,
  number: number,
): Promise<PrEvaluationsTable | undefined> {
  return db
    .selectFrom('pr_evaluations')
    .selectAll()
    .where('app_id', '=', appId)
    .where('repository', '=', repository)
    .where('number', '=', number)
    .orderBy('evaluated_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function insertEvaluation(db: Db, row: PrEvaluationsTable): Promise<void> {
  await db.insertInto('pr_evaluations').values(row).execute();
}

/** The latest evaluation of each of the factory's pull requests (for the PR list and the Overview). */
export async function latestEvaluations(
  db: Db,
  appId: string,
): Promise<Map<string, Pick<PrEvaluationsTable, 'verdict' | 'flagged'>>> {
  const rows = await db
    .selectFrom('pr_evaluations')
    .select(['repository', 'number', 'verdict', 'flagged', 'evaluated_at', 'id'])
    .where('app_id', '=', appId)
    .orderBy('evaluated_at')
    .orderBy('id')
    .execute();
  const out = new Map<string, Pick<PrEvaluationsTable, 'verdict' | 'flagged'>>();
  for (const r of rows)
    out.set(`${r.repository}#${Number(r.number)}`, { verdict: r.verdict, flagged: Number(r.flagged) });
  return out;
}

export function findPrInputs(
  db: Db,
  appId: string,
  repository: string,
  number: number,
  headSha: string,
): Promise<VerdictPrInputsTable | undefined> {
  return db
    .selectFrom('verdict_pr_inputs')
    .selectAll()
    .where('app_id', '=', appId)
    .where('repository', '=', repository)
    .where('number', '=', number)
    .where('head_sha', '=', headSha)
    .executeTakeFirst();
}

export async function savePrInputs(db: Db, row: VerdictPrInputsTable): Promise<void> {
  await db
    .insertInto('verdict_pr_inputs')
    .values(row)
    .onConflict((oc) => oc.columns(['app_id', 'repository', 'number', 'head_sha']).doNothing())
    .execute();
}

export function findPolicy(
  db: Db,
  appId: string,
  repository: string,
  baseSha: string,
): Promise<VerdictPoliciesTable | undefined> {
  return db
    .selectFrom('verdict_policies')
    .selectAll()
    .where('app_id', '=', appId)
    .where('repository', '=', repository)
    .where('base_sha', '=', baseSha)
    .executeTakeFirst();
}

export async function savePolicy(db: Db, row: VerdictPoliciesTable): Promise<void> {
  await db
    .insertInto('verdict_policies')
    .values(row)
    .onConflict((oc) => oc.columns(['app_id', 'repository', 'base_sha']).doNothing())
    .execute();
}

/** Remember the kinds of run these repositories' sessions held (the ingest calls this with the facts). */
export async function recordRunKinds(db: Db, rows: readonly RepositoryRunKindsTable[]): Promise<void> {
  const unique = [...new Map(rows.map((r) => [`${r.app_id}\n${r.repository}\n${r.kind}`, r])).values()];
  if (unique.length === 0) return;
  await db
    .insertInto('repository_run_kinds')
    .values(unique)
    .onConflict((oc) => oc.columns(['app_id', 'repository', 'kind']).doNothing())
    .execute();
}

/** Whether the factory's sessions of this repository ever ran a typecheck / a linter (the facts say so). */
export async function repositoryHistory(
  db: Db,
  appId: string,
  repos: readonly string[],
): Promise<{ typecheck: boolean; lint: boolean }> {
  if (repos.length === 0) return { typecheck: false, lint: false };
  const rows = await db
    .selectFrom('repository_run_kinds')
    .select('kind')
    .where('app_id', '=', appId)
    .where('repository', 'in', [...repos])
    .where('kind', 'in', ['typecheck', 'lint'])
    .execute();
  return { typecheck: rows.some((r) => r.kind === 'typecheck'), lint: rows.some((r) => r.kind === 'lint') };
}

export async function deleteVerifications(db: Db, appId: string, sessionIds: readonly string[]): Promise<void> {
  if (!sessionIds.length) return;
  await db
    .deleteFrom('session_verifications')
    .where('app_id', '=', appId)
    .where('session_id', 'in', [...sessionIds])
    .execute();
}
