// SQL for a work item's acceptance criteria: one ordered list per item, replaced whole.
import type { Db, Dialect } from '../../db/connection.js';
import { lockForTransaction } from '../../db/locks.js';

export interface CriteriaTable {
  app_id: string;
  work_item_id: string;
  position: number;
  criterion_id: string;
  text: string;
  proof: string | null;
  updated_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    criteria: CriteriaTable;
  }
}

export type CriterionRow = CriteriaTable;

export function listCriteria(db: Db, appId: string, workItemId: string): Promise<CriterionRow[]> {
  return db
    .selectFrom('criteria')
    .selectAll()
    .where('app_id', '=', appId)
    .where('work_item_id', '=', workItemId)
    .orderBy('position')
    .execute();
}

/**
 * Replaces the item's list in one transaction, so a reader sees the old list or the new one, never a mix.
 * Concurrent replacements of one item serialize: on PostgreSQL two transactions could both delete the (same)
 * old rows and both insert, the second failing on criteria_pk; a transaction-scoped advisory lock on the item
 * makes the second wait for the first, and the last writer wins. SQLite runs one write transaction at a time.
 */
export async function replaceCriteria(
  db: Db,
  dialect: Dialect,
  appId: string,
  workItemId: string,
  rows: CriterionRow[],
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockForTransaction(trx, dialect, `criteria:${appId}:${workItemId}`);
    await trx.deleteFrom('criteria').where('app_id', '=', appId).where('work_item_id', '=', workItemId).execute();
    if (rows.length > 0) await trx.insertInto('criteria').values(rows).execute();
  });
}
