// SQL of budgets: the rows, the spend of a scope over a window (the sessions' stored costs, as the metrics
// read them: every session, subagent transcripts included, by its start time), the notices kept once per
// budget, period, kind and threshold, and the per-factory evaluation watermark. Scoped by factory throughout,
// except the worker's list of factories that have budgets.
import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

export interface BudgetsTable {
  id: string;
  org_id: string;
  app_id: string;
  name: string;
  scope_kind: string;
  scope_value: string;
  amount_micros: number;
  period: string;
  time_zone: string;
  thresholds: string;
  notify: string;
  created_at: number;
  updated_at: number;
}

export interface BudgetNoticesTable {
  id: string;
  app_id: string;
  budget_id: string;
  period_key: string;
  kind: string;
  threshold: number;
  spend_micros: number;
  created_at: number;
}

export interface BudgetEvaluationsTable {
  app_id: string;
  watermark: number;
  ties: number;
  evaluated_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    budgets: BudgetsTable;
    budget_notices: BudgetNoticesTable;
    budget_evaluations: BudgetEvaluationsTable;
  }
}

export type BudgetRow = BudgetsTable;

export interface SpendScope {
  appId: string;
  kind: string;
  value: string;
}

export async function insertBudget(db: Db, row: BudgetRow): Promise<void> {
  await db.insertInto('budgets').values(row).execute();
}

export function listBudgets(db: Db, appId: string): Promise<BudgetRow[]> {
  return db.selectFrom('budgets').selectAll().where('app_id', '=', appId).orderBy('created_at').orderBy('id').execute();
}

export function findBudget(db: Db, appId: string, id: string): Promise<BudgetRow | undefined> {
  return db.selectFrom('budgets').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
}

export async function updateBudget(db: Db, appId: string, id: string, set: Partial<BudgetRow>): Promise<void> {
  await db.updateTable('budgets').set(set).where('app_id', '=', appId).where('id', '=', id).execute();
}

export async function deleteBudget(db: Db, appId: string, id: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('budget_notices').where('app_id', '=', appId).where('budget_id', '=', id).execute();
    const r = await trx.deleteFrom('budgets').where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  });
}

function scoped(db: Db, s: SpendScope, from: number, to: number) {
  let q = db
    .selectFrom('sessions')
    .where('app_id', '=', s.appId)
    .where('started_at', '>=', from)
    .where('started_at', '<', to);
  if (s.kind === 'actor') q = q.where('actor_id', '=', s.value);
  else if (s.kind === 'repository') q = q.where('repo', '=', s.value);
  else if (s.kind === 'attribute') {
    const [key, value] = JSON.parse(s.value) as [string, string];
    q = q.where(
      'session_key',
      'in',
      db
        .selectFrom('session_attributes')
        .select('session_attributes.session_key')
        .where('session_attributes.app_id', '=', s.appId)
        .where('session_attributes.key', '=', key)
        .where('session_attributes.value', '=', value),
    );
  }
  return q;
}

/** Spend (micro-dollars) before each of `ends`, from `from`: one conditional sum per end (the burn-down). */
export async function cumulativeSpend(db: Db, s: SpendScope, from: number, ends: readonly number[]): Promise<number[]> {
  if (ends.length === 0) return [];
  const to = Math.max(...ends);
  const row = await scoped(db, s, from, to)
    .select(
      ends.map((end, i) =>
        sql<number>`coalesce(sum(case when started_at < ${end} then cost_micros else 0 end), 0)`.as(`e${i}`),
      ),
    )
    .executeTakeFirst();
  const r = (row ?? {}) as Record<string, unknown>;
  return ends.map((_, i) => Number(r[`e${i}`] ?? 0));
}

export async function topSessions(
  db: Db,
  s: SpendScope,
  from: number,
  to: number,
  limit: number,
): Promise<Array<{ id: string; title: string | null; actor_name: string; cost_micros: number }>> {
  return scoped(db, s, from, to)
    .select(['id', 'title', 'actor_name', 'cost_micros'])
    .where('cost_micros', '>', 0)
    .orderBy('cost_micros', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function topActors(
  db: Db,
  s: SpendScope,
  from: number,
  to: number,
  limit: number,
): Promise<Array<{ actor_id: string; actor_name: string; cost_micros: number }>> {
  const rows = await scoped(db, s, from, to)
    .select((eb) => [
      'actor_id',
      eb.fn.max('actor_name').as('actor_name'),
      eb.fn.sum<number>('cost_micros').as('cost_micros'),
    ])
    .groupBy('actor_id')
    .orderBy(sql`sum(cost_micros)`, 'desc')
    .orderBy('actor_id')
    .limit(limit)
    .execute();
  return rows
    .map((r) => ({ actor_id: r.actor_id, actor_name: String(r.actor_name), cost_micros: Number(r.cost_micros) }))
    .filter((r) => r.cost_micros > 0);
}

/** Keep a notice once: false when this budget already had it this period (another replica, a re-sync). */
export async function insertNotice(db: Db, row: BudgetNoticesTable): Promise<boolean> {
  const r = await db
    .insertInto('budget_notices')
    .values(row)
    .onConflict((oc) => oc.columns(['budget_id', 'period_key', 'kind', 'threshold']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return r !== undefined;
}

/** Factories with budgets, with the sessions' updated_at up to which they were evaluated and when. */
export function factoriesWithBudgets(
  db: Db,
): Promise<
  Array<{ app_id: string; org_id: string; watermark: number | null; ties: number | null; evaluated_at: number | null }>
> {
  return db
    .selectFrom('budgets')
    .leftJoin('budget_evaluations', 'budget_evaluations.app_id', 'budgets.app_id')
    .select([
      'budgets.app_id',
      'budgets.org_id',
      'budget_evaluations.watermark',
      'budget_evaluations.ties',
      'budget_evaluations.evaluated_at',
    ])
    .distinct()
    .execute();
}

/** The latest updated_at of the factory's sessions at or after `since`, and how many sessions are there. */
export async function sessionChanges(
  db: Db,
  appId: string,
  since: number,
): Promise<{ latest: number | null; count: number }> {
  const r = await db
    .selectFrom('sessions')
    .select((eb) => [eb.fn.max('updated_at').as('latest'), eb.fn.countAll<number>().as('n')])
    .where('app_id', '=', appId)
    .where('updated_at', '>=', since)
    .executeTakeFirst();
  return {
    latest: r?.latest === null || r?.latest === undefined ? null : Number(r.latest),
    count: Number(r?.n ?? 0),
  };
}

export async function setEvaluated(db: Db, appId: string, watermark: number, ties: number, now: number): Promise<void> {
  await db
    .insertInto('budget_evaluations')
    .values({ app_id: appId, watermark, ties, evaluated_at: now })
    .onConflict((oc) => oc.column('app_id').doUpdateSet({ watermark, ties, evaluated_at: now }))
    .execute();
}

/** Ask for the factory's budgets to be evaluated on the worker's next run (a budget was created or changed). */
export async function invalidateEvaluation(db: Db, appId: string): Promise<void> {
  await db.deleteFrom('budget_evaluations').where('app_id', '=', appId).execute();
}

/** The kind:threshold notices the budget already had in the period. */
export async function noticesOf(db: Db, budgetId: string, periodKey: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('budget_notices')
    .select(['kind', 'threshold'])
    .where('budget_id', '=', budgetId)
    .where('period_key', '=', periodKey)
    .execute();
  return new Set(rows.map((r) => `${r.kind}:${Number(r.threshold)}`));
}
