// SQL for connected repositories, always scoped by factory.
import type { Db } from '../../db/connection.js';

export interface RepositoriesTable {
  id: string;
  org_id: string;
  app_id: string;
  full_name: string;
  full_name_key: string;
  github_id: number;
  installation_id: number;
  default_branch: string;
  connected_by: string | null;
  created_at: number;
  updated_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    repositories: RepositoriesTable;
  }
}

export type RepositoryRow = RepositoriesTable;

export function nameKey(fullName: string): string {
  return fullName.toLowerCase();
}

export function listRepositories(db: Db, appId: string): Promise<RepositoryRow[]> {
  return db.selectFrom('repositories').selectAll().where('app_id', '=', appId).orderBy('full_name_key').execute();
}

export function findRepository(db: Db, appId: string, fullName: string): Promise<RepositoryRow | undefined> {
  return db.selectFrom('repositories').selectAll().where('app_id', '=', appId).where('full_name_key', '=', nameKey(fullName)).executeTakeFirst();
}

export async function insertRepository(db: Db, row: RepositoryRow): Promise<void> {
  await db.insertInto('repositories').values(row).execute();
}

export async function updateConnection(
  db: Db, appId: string, id: string, change: Pick<RepositoryRow, 'full_name' | 'github_id' | 'installation_id' | 'default_branch' | 'updated_at'>,
): Promise<void> {
  await db.updateTable('repositories').set(change).where('app_id', '=', appId).where('id', '=', id).execute();
}

export async function deleteRepository(db: Db, appId: string, fullName: string): Promise<boolean> {
  const result = await db.deleteFrom('repositories').where('app_id', '=', appId).where('full_name_key', '=', nameKey(fullName)).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Every live factory that connected `owner/repo` (through `installationId` when given). The one read
 * across factories: a webhook delivery names a repository, not a factory.
 */
export function factoriesConnectedTo(db: Db, fullName: string, installationId: number | null): Promise<Array<{ orgId: string; appId: string }>> {
  let q = db
    .selectFrom('repositories')
    .innerJoin('apps', 'apps.id', 'repositories.app_id')
    .select(['repositories.org_id as orgId', 'repositories.app_id as appId'])
    .where('repositories.full_name_key', '=', nameKey(fullName))
    .where('apps.deleted_at', 'is', null);
  if (installationId !== null) q = q.where('repositories.installation_id', '=', installationId);
  return q.orderBy('repositories.app_id').execute();
}
