// SQL for factories (apps). Every read is scoped by org; deleted factories are tombstoned (deleted_at).
import type { Db } from '../../db/connection.js';
import type { AppsTable } from '../../db/schema.js';

export type AppRow = AppsTable;

export function insertApp(db: Db, row: AppRow) {
  return db.insertInto('apps').values(row).execute();
}

export function findLiveApp(db: Db, orgId: string, appId: string) {
  return db
    .selectFrom('apps')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', appId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export function findLiveAppByName(db: Db, orgId: string, name: string) {
  return db
    .selectFrom('apps')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('name', '=', name)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export function listLiveApps(db: Db, orgId: string) {
  return db
    .selectFrom('apps')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('deleted_at', 'is', null)
    .orderBy('name')
    .orderBy('id')
    .execute();
}

export type AppPatch = Partial<
  Pick<
    AppRow,
    | 'name'
    | 'display_name'
    | 'runner_updates_mode'
    | 'runner_updates_version'
    | 'pr_comment'
    | 'pr_check'
    | 'retention_full_days'
    | 'retention_redacted_days'
    | 'retention_sessions_days'
    | 'retention_artifacts_days'
  >
> &
  Pick<AppRow, 'updated_at' | 'updated_by'>;

export function updateApp(db: Db, orgId: string, appId: string, patch: AppPatch) {
  return db
    .updateTable('apps')
    .set(patch)
    .where('org_id', '=', orgId)
    .where('id', '=', appId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export function tombstoneApp(db: Db, orgId: string, appId: string, now: number, by: string) {
  return db
    .updateTable('apps')
    .set({ deleted_at: now, updated_at: now, updated_by: by })
    .where('org_id', '=', orgId)
    .where('id', '=', appId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Revoke every live credential bound to the factory (factory keys and item keys). */
export function revokeAppCredentials(db: Db, appId: string, now: number) {
  return db
    .updateTable('credentials')
    .set({ revoked_at: now })
    .where('app_id', '=', appId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Every live factory of every org the user belongs to, with the org and the user's role there. */
export function listFactoriesOfUser(db: Db, userId: string) {
  return db
    .selectFrom('memberships')
    .innerJoin('orgs', 'orgs.id', 'memberships.org_id')
    .innerJoin('apps', 'apps.org_id', 'memberships.org_id')
    .select([
      'apps.id as id',
      'apps.name as name',
      'apps.display_name as display_name',
      'orgs.id as org_id',
      'orgs.name as org_name',
      'memberships.role as role',
    ])
    .where('memberships.user_id', '=', userId)
    .where('apps.deleted_at', 'is', null)
    .orderBy('orgs.name')
    .orderBy('apps.name')
    .orderBy('apps.id')
    .execute();
}

export function appsWithRetention(db: Db) {
  return db
    .selectFrom('apps')
    .selectAll()
    .where('deleted_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('retention_full_days', 'is not', null),
        eb('retention_redacted_days', 'is not', null),
        eb('retention_sessions_days', 'is not', null),
        eb('retention_artifacts_days', 'is not', null),
      ]),
    )
    .orderBy('id')
    .execute();
}
