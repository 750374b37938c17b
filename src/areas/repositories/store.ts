// SQL for connected repositories, always scoped by factory.
import { isPostgres, type Db } from '../../db/connection.js';
import { isUniqueViolation } from '../../db/errors.js';

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
  return db
    .selectFrom('repositories')
    .selectAll()
    .where('app_id', '=', appId)
    .where('full_name_key', '=', nameKey(fullName))
    .executeTakeFirst();
}

export async function insertRepository(db: Db, row: RepositoryRow): Promise<void> {
  await db.insertInto('repositories').values(row).execute();
}

export async function updateConnection(
  db: Db,
  appId: string,
  id: string,
  change: Pick<RepositoryRow, 'full_name' | 'github_id' | 'installation_id' | 'default_branch' | 'updated_at'>,
): Promise<void> {
  await db.updateTable('repositories').set(change).where('app_id', '=', appId).where('id', '=', id).execute();
}

export async function deleteRepository(db: Db, appId: string, fullName: string): Promise<boolean> {
  const result = await db
    .deleteFrom('repositories')
    .where('app_id', '=', appId)
    .where('full_name_key', '=', nameKey(fullName))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Every live factory that connected `owner/repo` (through `installationId` when given). The one read
 * across factories: a webhook delivery names a repository, not a factory.
 */
export function factoriesConnectedTo(
  db: Db,
  fullName: string,
  installationId: number | null,
): Promise<Array<{ orgId: string; appId: string }>> {
  let q = db
    .selectFrom('repositories')
    .innerJoin('apps', 'apps.id', 'repositories.app_id')
    .select(['repositories.org_id as orgId', 'repositories.app_id as appId'])
    .where('repositories.full_name_key', '=', nameKey(fullName))
    .where('apps.deleted_at', 'is', null);
  if (installationId !== null) q = q.where('repositories.installation_id', '=', installationId);
  return q.orderBy('repositories.app_id').execute();
}

export interface InstallationBindingsTable {
  app_id: string;
  installation_id: number;
  org_id: string;
  account: string | null;
  bound_via: 'install_link' | 'admin';
  bound_by: string | null;
  created_at: number;
}

export interface InstallStatesUsedTable {
  digest: string;
  app_id: string;
  expires_at: number;
  used_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    installation_bindings: InstallationBindingsTable;
    install_states_used: InstallStatesUsedTable;
  }
}

export type BindingRow = InstallationBindingsTable;

export function findBinding(db: Db, appId: string, installationId: number): Promise<BindingRow | undefined> {
  return db
    .selectFrom('installation_bindings')
    .selectAll()
    .where('app_id', '=', appId)
    .where('installation_id', '=', installationId)
    .executeTakeFirst();
}

/**
 * Whether the binding is there, read after a connection was written through it. PostgreSQL: `for share`, so an
 * unbind that has removed it but not committed is waited for (its repository read may have run before the
 * connection was written; SQLite has one writer, so an unbind there is wholly before or after).
 */
export async function bindingHeld(db: Db, appId: string, installationId: number): Promise<boolean> {
  let q = db
    .selectFrom('installation_bindings')
    .select('installation_id')
    .where('app_id', '=', appId)
    .where('installation_id', '=', installationId);
  if (isPostgres(db)) q = q.forShare();
  return (await q.executeTakeFirst()) !== undefined;
}

export function listBindings(db: Db, appId: string): Promise<BindingRow[]> {
  return db
    .selectFrom('installation_bindings')
    .selectAll()
    .where('app_id', '=', appId)
    .orderBy('installation_id')
    .execute();
}

/**
 * Removes the factory's binding of `installationId` and disconnects the repositories it connected through it,
 * in one transaction. The binding goes first: a connect that checks it from then on is refused, and one that
 * checked it before and writes its connection meanwhile reads it again after (bindingHeld) and undoes its
 * connection. The binding as it was and the repositories disconnected, or undefined when the factory had none.
 */
export async function deleteBinding(
  db: Db,
  appId: string,
  installationId: number,
): Promise<{ binding: BindingRow; repositories: RepositoryRow[] } | undefined> {
  return db.transaction().execute(async (trx) => {
    // The row the delete itself returns: of two unbinds at once, only the one that removed it goes on (the
    // other answers 404), not both with the same repositories.
    const binding = await trx
      .deleteFrom('installation_bindings')
      .where('app_id', '=', appId)
      .where('installation_id', '=', installationId)
      .returningAll()
      .executeTakeFirst();
    if (!binding) return undefined;
    const repositories = await trx
      .selectFrom('repositories')
      .selectAll()
      .where('app_id', '=', appId)
      .where('installation_id', '=', installationId)
      .orderBy('full_name_key')
      .execute();
    if (repositories.length > 0)
      await trx
        .deleteFrom('repositories')
        .where('app_id', '=', appId)
        .where('installation_id', '=', installationId)
        .execute();
    return { binding, repositories };
  });
}

/** Inserts the binding; false when the factory already had it (the first binding is kept). */
export async function insertBinding(db: Db, row: BindingRow): Promise<boolean> {
  try {
    await db.insertInto('installation_bindings').values(row).execute();
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}

export async function isStateUsed(db: Db, digest: string): Promise<boolean> {
  return (
    (await db.selectFrom('install_states_used').select('digest').where('digest', '=', digest).executeTakeFirst()) !==
    undefined
  );
}

/** Deletes at most `limit` spent install states that expired before `before` (housekeeping, index 0044). */
export async function deleteSpentStatesExpiredBefore(db: Db, before: number, limit: number): Promise<number> {
  const res = await db
    .deleteFrom('install_states_used')
    .where('digest', 'in', (sub) =>
      sub.selectFrom('install_states_used').select('digest').where('expires_at', '<', before).limit(limit),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** Records a state as spent; false when it already was (another request, maybe on another replica, won). */
export async function spendState(db: Db, row: InstallStatesUsedTable): Promise<boolean> {
  try {
    await db.insertInto('install_states_used').values(row).execute();
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}
