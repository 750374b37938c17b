// SQL for emitted results, always scoped by factory (app_id).
import type { Selectable } from 'kysely';
import type { Db } from '../../db/connection.js';

export interface EmittedResultsTable {
  id: string;
  org_id: string;
  app_id: string;
  client_emit_id: string;
  name: string;
  result: string;
  link: string;
  repository: string;
  pr_number: number;
  head_sha: string | null;
  /** JSON object (the `ci` field as sent), or null. */
  ci: string | null;
  emitted_at: number;
  created_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    emitted_results: EmittedResultsTable;
  }
}

export type EmittedResultRow = Selectable<EmittedResultsTable>;

export async function insertResult(db: Db, row: EmittedResultRow): Promise<void> {
  await db.insertInto('emitted_results').values(row).execute();
}

export function findByClientId(db: Db, appId: string, clientEmitId: string) {
  return db
    .selectFrom('emitted_results')
    .selectAll()
    .where('app_id', '=', appId)
    .where('client_emit_id', '=', clientEmitId)
    .executeTakeFirst();
}

/** Every result emitted for one pull request, newest first (by emittedAt, then arrival, then id). */
export function listForPullRequest(db: Db, appId: string, repository: string, prNumber: number) {
  return db
    .selectFrom('emitted_results')
    .selectAll()
    .where('app_id', '=', appId)
    .where('repository', '=', repository)
    .where('pr_number', '=', prNumber)
    .orderBy('emitted_at', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}
