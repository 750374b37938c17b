// SQL for organizations, users and memberships.
import type { Db } from '../../db/connection.js';
import type { MembershipsTable, OrgsTable, UsersTable } from '../../db/schema.js';

export type OrgRow = OrgsTable;
export type UserRow = UsersTable;

export function insertOrg(db: Db, row: OrgRow) {
  return db.insertInto('orgs').values(row).execute();
}

export function findOrgByName(db: Db, name: string) {
  return db.selectFrom('orgs').selectAll().where('name', '=', name.toLowerCase()).executeTakeFirst();
}

export function findOrgById(db: Db, id: string) {
  return db.selectFrom('orgs').selectAll().where('id', '=', id).executeTakeFirst();
}

export function countOrgs(db: Db) {
  return db.selectFrom('orgs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
}

export function updateOrgPlan(db: Db, id: string, plan: string, now: number) {
  return db.updateTable('orgs').set({ plan, updated_at: now }).where('id', '=', id).execute();
}

export function insertUser(db: Db, row: UserRow) {
  return db.insertInto('users').values(row).execute();
}

export function findUserById(db: Db, id: string) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findUserByEmail(db: Db, email: string) {
  return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
}

export function insertMembership(db: Db, row: MembershipsTable) {
  return db.insertInto('memberships').values(row).execute();
}

export function findMembership(db: Db, orgId: string, userId: string) {
  return db.selectFrom('memberships').selectAll().where('org_id', '=', orgId).where('user_id', '=', userId).executeTakeFirst();
}

export function deleteMembership(db: Db, orgId: string, userId: string) {
  return db.deleteFrom('memberships').where('org_id', '=', orgId).where('user_id', '=', userId).executeTakeFirst();
}

export function countOwners(db: Db, orgId: string) {
  return db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('org_id', '=', orgId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
}
