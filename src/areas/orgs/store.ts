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
  return db
    .selectFrom('orgs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
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
  return db
    .selectFrom('memberships')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
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

export function listMembers(db: Db, orgId: string) {
  return db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select([
      'users.id as user_id',
      'users.email as email',
      'users.name as name',
      'memberships.role as role',
      'memberships.created_at as created_at',
    ])
    .where('memberships.org_id', '=', orgId)
    .orderBy('memberships.created_at')
    .orderBy('users.email')
    .execute();
}

export function updateMembershipRole(db: Db, orgId: string, userId: string, role: string) {
  return db
    .updateTable('memberships')
    .set({ role })
    .where('org_id', '=', orgId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export interface AuditFilter {
  actionType?: string;
  targetType?: string;
  /** Inclusive bounds, epoch ms. */
  from?: number;
  to?: number;
}

function auditQuery(db: Db, orgId: string, filter: AuditFilter) {
  let q = db.selectFrom('audit_log').where('audit_log.org_id', '=', orgId);
  if (filter.actionType !== undefined) q = q.where('audit_log.action_type', '=', filter.actionType);
  if (filter.targetType !== undefined) q = q.where('audit_log.target_type', '=', filter.targetType);
  if (filter.from !== undefined) q = q.where('audit_log.created_at', '>=', filter.from);
  if (filter.to !== undefined) q = q.where('audit_log.created_at', '<=', filter.to);
  return q;
}

export function countAudit(db: Db, orgId: string, filter: AuditFilter) {
  return auditQuery(db, orgId, filter)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
}

/** Newest first: seq is the order rows were chained in, so it breaks created_at ties (and survives clock steps). */
export function listAudit(db: Db, orgId: string, filter: AuditFilter, limit: number, offset: number) {
  return auditQuery(db, orgId, filter)
    .leftJoin('audit_identities as a', 'a.id', 'audit_log.actor_ref')
    .leftJoin('audit_identities as t', 't.id', 'audit_log.target_ref')
    .selectAll('audit_log')
    .select(['a.name as actor_name', 'a.email as actor_email', 'a.label as actor_label', 't.label as target_label'])
    .orderBy('seq', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

/** One batch of the chain, oldest first, after `afterSeq`. */
export function auditChainBatch(db: Db, orgId: string, afterSeq: number, limit: number) {
  return db
    .selectFrom('audit_log')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
}

/**
 * Take a write lock on the org row inside a transaction (a no-op update: a row lock on PostgreSQL, the
 * database write lock on SQLite), so membership changes of one org run one at a time.
 */
export function lockOrg(db: Db, orgId: string) {
  return db
    .updateTable('orgs')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', orgId)
    .execute();
}
