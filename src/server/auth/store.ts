// SQL for resolving and minting credentials. Credentials of every kind share one table keyed by digest.
import type { Db } from '../../db/connection.js';
import type { CredentialKind, CredentialsTable } from '../../db/schema.js';

export type CredentialRow = CredentialsTable;

export function findByDigest(db: Db, digest: string): Promise<CredentialRow | undefined> {
  return db.selectFrom('credentials').selectAll().where('digest', '=', digest).executeTakeFirst();
}

export function insertCredential(db: Db, row: CredentialRow): Promise<unknown> {
  return db.insertInto('credentials').values(row).execute();
}

export function findMembership(db: Db, orgId: string, userId: string) {
  return db.selectFrom('memberships').select(['role']).where('org_id', '=', orgId).where('user_id', '=', userId).executeTakeFirst();
}

export function findLiveApp(db: Db, appId: string) {
  return db
    .selectFrom('apps')
    .innerJoin('orgs', 'orgs.id', 'apps.org_id')
    .select(['apps.id as appId', 'apps.org_id as orgId', 'orgs.plan as plan', 'orgs.name as orgName'])
    .where('apps.id', '=', appId)
    .where('apps.deleted_at', 'is', null)
    .executeTakeFirst();
}

export function findOrg(db: Db, orgId: string) {
  return db.selectFrom('orgs').select(['id', 'name', 'plan']).where('id', '=', orgId).executeTakeFirst();
}

export function findUser(db: Db, userId: string) {
  return db.selectFrom('users').select(['id', 'email', 'name']).where('id', '=', userId).executeTakeFirst();
}

export function countByKind(db: Db, kind: CredentialKind) {
  return db.selectFrom('credentials').select((eb) => eb.fn.countAll<number>().as('n')).where('kind', '=', kind).executeTakeFirstOrThrow();
}
