// SQL for findings recorded on a work item; scoped by factory on every call.
import type { Db } from '../../db/connection.js';

export interface FindingsTable {
  id: string;
  org_id: string;
  app_id: string;
  work_item_id: string;
  source: string;
  about: string;
  severity: string;
  title: string;
  body: string | null;
  path: string | null;
  line: number | null;
  rule: string | null;
  pr_number: number | null;
  created_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    findings: FindingsTable;
  }
}

export type FindingRow = FindingsTable;

export async function insertFinding(db: Db, row: FindingRow): Promise<void> {
  await db.insertInto('findings').values(row).execute();
}

export function listFindings(
  db: Db,
  appId: string,
  workItemId: string,
  limit: number,
  offset: number,
): Promise<FindingRow[]> {
  return db
    .selectFrom('findings')
    .selectAll()
    .where('app_id', '=', appId)
    .where('work_item_id', '=', workItemId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countFindings(db: Db, appId: string, workItemId: string): Promise<number> {
  const row = await db
    .selectFrom('findings')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('app_id', '=', appId)
    .where('work_item_id', '=', workItemId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
