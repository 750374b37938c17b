// Organizations, users and memberships: the rules (names, last owner, audit), no HTTP.
import crypto from 'node:crypto';
import type { Db } from '../../db/connection.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Clock } from '../../server/clock.js';
import type { Principal } from '../../server/auth/principal.js';
import { apiError } from '../../server/errors.js';
import type { Role } from '../../server/permissions.js';
import { recordAudit } from './audit.js';
import * as store from './store.js';

export const PLANS = ['free', 'paid', 'enterprise'] as const;
export type PlanName = (typeof PLANS)[number];

export interface Actor {
  db: Db;
  clock: Clock;
  principal: Principal | null;
  /** Called after a change that can make cached credentials wrong (membership removal). */
  invalidateAuth?: () => void;
}

export interface OrgWire {
  id: string;
  name: string;
  plan: string;
  created_at: string;
  updated_at: string;
}

export interface UserWire {
  id: string;
  email: string;
  name: string;
  created_at: string;
}

export const iso = (ms: number): string => new Date(ms).toISOString();

export function orgToWire(row: store.OrgRow): OrgWire {
  return { id: row.id, name: row.name, plan: row.plan, created_at: iso(row.created_at), updated_at: iso(row.updated_at) };
}

export function userToWire(row: store.UserRow): UserWire {
  return { id: row.id, email: row.email, name: row.name, created_at: iso(row.created_at) };
}

export async function requireOrg(db: Db, name: string): Promise<store.OrgRow> {
  const org = await store.findOrgByName(db, name);
  if (!org) throw apiError('org_not_found', `No organization named "${name}".`);
  return org;
}

export async function createOrg(actor: Actor, name: string, plan: PlanName): Promise<OrgWire> {
  const now = actor.clock.now();
  const row = { id: crypto.randomUUID(), name: name.toLowerCase(), plan, created_at: now, updated_at: now };
  try {
    await store.insertOrg(actor.db, row);
  } catch (err) {
    if (isUniqueViolation(err)) throw apiError('duplicate_org_name', `An organization named "${row.name}" already exists.`);
    throw err;
  }
  await recordAudit(actor.db, actor.clock, { orgId: row.id, actionType: 'org.created', actor: actor.principal, targetType: 'org', targetId: row.id, targetIdentifier: row.name, details: { plan } });
  return orgToWire(row);
}

export async function changePlan(actor: Actor, orgName: string, plan: PlanName): Promise<OrgWire> {
  const org = await requireOrg(actor.db, orgName);
  const now = actor.clock.now();
  await store.updateOrgPlan(actor.db, org.id, plan, now);
  await recordAudit(actor.db, actor.clock, { orgId: org.id, actionType: 'org.plan_changed', actor: actor.principal, targetType: 'org', targetId: org.id, targetIdentifier: org.name, details: { from: org.plan, to: plan } });
  actor.invalidateAuth?.();
  return orgToWire({ ...org, plan, updated_at: now });
}

export async function createUser(actor: Actor, email: string, name: string): Promise<UserWire> {
  const row = { id: crypto.randomUUID(), email: email.toLowerCase(), name, created_at: actor.clock.now() };
  try {
    await store.insertUser(actor.db, row);
  } catch (err) {
    if (isUniqueViolation(err)) throw apiError('duplicate_user_email', `A user with email "${row.email}" already exists.`);
    throw err;
  }
  return userToWire(row);
}

export async function requireUser(db: Db, userId: string): Promise<store.UserRow> {
  const user = await store.findUserById(db, userId);
  if (!user) throw apiError('user_not_found', 'No such user.');
  return user;
}

export async function findUserByEmail(db: Db, email: string): Promise<store.UserRow | undefined> {
  return store.findUserByEmail(db, email);
}

export async function addMember(actor: Actor, org: store.OrgRow, user: store.UserRow, role: Role) {
  const now = actor.clock.now();
  try {
    await store.insertMembership(actor.db, { org_id: org.id, user_id: user.id, role, created_at: now });
  } catch (err) {
    if (isUniqueViolation(err)) throw apiError('already_member', `${user.email} is already a member of ${org.name}.`);
    throw err;
  }
  await recordAudit(actor.db, actor.clock, { orgId: org.id, actionType: 'member.added', actor: actor.principal, targetType: 'member', targetId: user.id, targetIdentifier: user.email, details: { role } });
  actor.invalidateAuth?.();
  return { userId: user.id, email: user.email, name: user.name, role, joined_at: iso(now) };
}

export async function removeMember(actor: Actor, org: store.OrgRow, userId: string): Promise<void> {
  const membership = await store.findMembership(actor.db, org.id, userId);
  if (!membership) throw apiError('member_not_found', 'No such member in this organization.');
  if (membership.role === 'owner' && Number((await store.countOwners(actor.db, org.id)).n) <= 1) {
    throw apiError('last_owner', 'The organization must keep at least one owner.');
  }
  await store.deleteMembership(actor.db, org.id, userId);
  const user = await store.findUserById(actor.db, userId);
  await recordAudit(actor.db, actor.clock, { orgId: org.id, actionType: 'member.removed', actor: actor.principal, targetType: 'member', targetId: userId, targetIdentifier: user?.email ?? userId, details: { role: membership.role } });
  // Their login tokens no longer reach this org's factories, and keys they minted answer 403.
  actor.invalidateAuth?.();
}

export async function membershipOf(db: Db, orgId: string, userId: string) {
  return store.findMembership(db, orgId, userId);
}
