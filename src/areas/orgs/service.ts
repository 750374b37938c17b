// Organizations, users and memberships: the rules (names, last owner, audit), no HTTP.
import crypto from 'node:crypto';
import type { Db } from '../../db/connection.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Clock } from '../../server/clock.js';
import type { Principal } from '../../server/auth/principal.js';
import { apiError } from '../../server/errors.js';
import { INSTANT_RANGE_MESSAGE, instantInRange } from '../../server/schemas.js';
import type { OrgContext } from '../../server/context.js';
import { ROLE_PERMISSIONS, ROLES, type Permission, type Role } from '../../server/permissions.js';
import { GENESIS_HASH, hashRow, recordAudit } from '../../server/audit.js';
import type { AuditEntry, AuditLogQuery, AuditVerify, Member, Org, OrgSelf, User } from './schema.js';
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

export const iso = (ms: number): string => new Date(ms).toISOString();

export function orgToWire(row: store.OrgRow): Org {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function userToWire(row: store.UserRow): User {
  return { id: row.id, email: row.email, name: row.name, created_at: iso(row.created_at) };
}

export async function requireOrg(db: Db, name: string): Promise<store.OrgRow> {
  const org = await store.findOrgByName(db, name);
  if (!org) throw apiError('org_not_found', `No organization named "${name}".`);
  return org;
}

export async function createOrg(actor: Actor, name: string, plan: PlanName): Promise<Org> {
  const now = actor.clock.now();
  const row = { id: crypto.randomUUID(), name: name.toLowerCase(), plan, created_at: now, updated_at: now };
  try {
    await store.insertOrg(actor.db, row);
  } catch (err) {
    if (isUniqueViolation(err))
      throw apiError('duplicate_org_name', `An organization named "${row.name}" already exists.`);
    throw err;
  }
  await recordAudit(actor.db, actor.clock, {
    orgId: row.id,
    actionType: 'org.created',
    actor: actor.principal,
    targetType: 'org',
    targetId: row.id,
    targetIdentifier: row.name,
    details: { plan },
  });
  return orgToWire(row);
}

export async function changePlan(actor: Actor, orgName: string, plan: PlanName): Promise<Org> {
  const org = await requireOrg(actor.db, orgName);
  const now = actor.clock.now();
  await store.updateOrgPlan(actor.db, org.id, plan, now);
  await recordAudit(actor.db, actor.clock, {
    orgId: org.id,
    actionType: 'org.plan_changed',
    actor: actor.principal,
    targetType: 'org',
    targetId: org.id,
    targetIdentifier: org.name,
    details: { from: org.plan, to: plan },
  });
  actor.invalidateAuth?.();
  return orgToWire({ ...org, plan, updated_at: now });
}

export async function createUser(actor: Actor, email: string, name: string): Promise<User> {
  const row = { id: crypto.randomUUID(), email: email.toLowerCase(), name, created_at: actor.clock.now() };
  try {
    await store.insertUser(actor.db, row);
  } catch (err) {
    if (isUniqueViolation(err))
      throw apiError('duplicate_user_email', `A user with email "${row.email}" already exists.`);
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
  await recordAudit(actor.db, actor.clock, {
    orgId: org.id,
    actionType: 'member.added',
    actor: actor.principal,
    targetType: 'member',
    targetId: user.id,
    targetIdentifier: user.email,
    details: { role },
  });
  actor.invalidateAuth?.();
  return { userId: user.id, email: user.email, name: user.name, role, joined_at: iso(now) };
}

/**
 * Change memberships of one org under a lock on the org row, so two concurrent demotions or removals of
 * the last two owners cannot both pass the "at least one owner" check (PostgreSQL row lock; SQLite takes
 * its single write lock). `change` returns what to audit, or null when nothing changed.
 */
async function underOrgLock<T>(db: Db, orgId: string, change: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (tx) => {
    await store.lockOrg(tx, orgId);
    return change(tx);
  });
}

async function assertNotLastOwner(tx: Db, orgId: string, currentRole: string): Promise<void> {
  if (currentRole === 'owner' && Number((await store.countOwners(tx, orgId)).n) <= 1) {
    throw apiError('last_owner', 'The organization must keep at least one owner.');
  }
}

export async function removeMember(actor: Actor, org: store.OrgRow, userId: string): Promise<void> {
  const membership = await underOrgLock(actor.db, org.id, async (tx) => {
    const found = await store.findMembership(tx, org.id, userId);
    if (!found) throw apiError('member_not_found', 'No such member in this organization.');
    await assertNotLastOwner(tx, org.id, found.role);
    await store.deleteMembership(tx, org.id, userId);
    return found;
  });
  // Their login tokens no longer reach this org's factories, and keys they minted answer 403.
  actor.invalidateAuth?.();
  const user = await store.findUserById(actor.db, userId);
  await recordAudit(actor.db, actor.clock, {
    orgId: org.id,
    actionType: 'member.removed',
    actor: actor.principal,
    targetType: 'member',
    targetId: userId,
    targetIdentifier: user?.email ?? userId,
    details: { role: membership.role },
  });
}

export async function membershipOf(db: Db, orgId: string, userId: string) {
  return store.findMembership(db, orgId, userId);
}

// ---- Org management through a management key (routes under /v1/orgs/{orgName}/...) ----

export function actorOf(ctx: OrgContext): Actor {
  return {
    db: ctx.db,
    clock: ctx.clock,
    principal: ctx.principal,
    invalidateAuth: () => ctx.gateway.auth.invalidate(),
  };
}

async function requireOrgById(db: Db, orgId: string): Promise<store.OrgRow> {
  const org = await store.findOrgById(db, orgId);
  if (!org) throw apiError('org_not_found', 'No such organization.');
  return org;
}

export async function listMembers(ctx: OrgContext): Promise<Member[]> {
  return (await store.listMembers(ctx.db, ctx.orgId)).map((m) => ({
    userId: m.user_id,
    email: m.email,
    name: m.name,
    role: m.role,
    joined_at: iso(m.created_at),
  }));
}

/**
 * Add an existing user by email. Users are gateway-wide (one email, one person across orgs), so an org's
 * key may not create them: an unknown email is 404 user_not_found and the operator creates the user first.
 */
export async function addMemberByEmail(ctx: OrgContext, email: string, role: Role): Promise<Member> {
  const org = await requireOrgById(ctx.db, ctx.orgId);
  const user = await store.findUserByEmail(ctx.db, email);
  if (!user)
    throw apiError(
      'user_not_found',
      `No user with email "${email.toLowerCase()}"; the operator creates users (POST /v1/admin/users).`,
    );
  return addMember(actorOf(ctx), org, user, role);
}

export async function changeMemberRole(ctx: OrgContext, userId: string, role: Role): Promise<Member> {
  const user = await store.findUserById(ctx.db, userId);
  const membership = await underOrgLock(ctx.db, ctx.orgId, async (tx) => {
    const found = await store.findMembership(tx, ctx.orgId, userId);
    if (!found || !user) throw apiError('member_not_found', 'No such member in this organization.');
    if (found.role !== role) {
      await assertNotLastOwner(tx, ctx.orgId, found.role);
      await store.updateMembershipRole(tx, ctx.orgId, userId, role);
    }
    return found;
  });
  if (membership.role !== role && user) {
    // Login tokens act with the member's current role; cached principals carry the old one.
    ctx.gateway.auth.invalidate();
    await recordAudit(ctx.db, ctx.clock, {
      orgId: ctx.orgId,
      actionType: 'member.role_changed',
      actor: ctx.principal,
      targetType: 'member',
      targetId: userId,
      targetIdentifier: user.email,
      details: { from: membership.role, to: role },
    });
  }
  return { userId, email: user?.email ?? '', name: user?.name ?? '', role, joined_at: iso(membership.created_at) };
}

export async function removeMemberFromOrg(ctx: OrgContext, userId: string): Promise<void> {
  await removeMember(actorOf(ctx), await requireOrgById(ctx.db, ctx.orgId), userId);
}

export function listRoles(): { name: Role; permissions: Permission[] }[] {
  return ROLES.map((name) => ({ name, permissions: [...ROLE_PERMISSIONS[name]] }));
}

// ---- The audit log (API.md §5) ----

/** The plan that carries the audit_log entitlement. */
const AUDIT_LOG_PLAN: PlanName = 'enterprise';

async function requireAuditEntitlement(ctx: OrgContext): Promise<void> {
  // Read the plan from the store, not the cached principal: a plan change applies to the next request.
  const org = await requireOrgById(ctx.db, ctx.orgId);
  if (org.plan !== AUDIT_LOG_PLAN) {
    throw apiError(
      'entitlement_required',
      `The audit log needs the ${AUDIT_LOG_PLAN} plan; this organization is on ${org.plan}.`,
      {
        entitlement: 'audit_log',
        current: org.plan,
        limit: AUDIT_LOG_PLAN,
      },
    );
  }
}

/** The spec's date pattern: YYYY-MM-DD, optionally THH:MM:SS with optional .f to .fff and optional Z. */
const DAY_MS = 86_400_000;

/**
 * Epoch ms of a date that matched AUDIT_DATE_PATTERN (schema.ts), read as UTC. A bare date as an end bound means the
 * whole day (up to its last millisecond). Calendar nonsense such as 2026-02-30 is a 400.
 */
export function parseAuditDate(value: string, param: string, bound: 'start' | 'end'): number {
  const dateOnly = value.length === 10;
  const ms = Date.parse(dateOnly ? `${value}T00:00:00.000Z` : value.endsWith('Z') ? value : `${value}Z`);
  const sameDay = Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === value.slice(0, 10);
  if (!sameDay)
    throw apiError('invalid_query_params', `${param} is not a real date.`, {
      details: [{ path: param, message: 'is not a real date' }],
    });
  const instant = dateOnly && bound === 'end' ? ms + DAY_MS - 1 : ms;
  if (!instantInRange(instant))
    throw apiError('invalid_query_params', `${param} is out of range.`, {
      details: [{ path: param, message: INSTANT_RANGE_MESSAGE }],
    });
  return instant;
}

const PREVIEW_CHARS = 200;

export function detailsPreview(details: string): string {
  return details.length <= PREVIEW_CHARS ? details : `${details.slice(0, PREVIEW_CHARS - 1)}…`;
}

export async function listAuditLog(ctx: OrgContext, query: AuditLogQuery) {
  await requireAuditEntitlement(ctx);
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? 25;
  const filter: store.AuditFilter = {};
  if (query.actionType !== undefined) filter.actionType = query.actionType;
  if (query.targetType !== undefined) filter.targetType = query.targetType;
  if (query.startDate !== undefined) filter.from = parseAuditDate(query.startDate, 'startDate', 'start');
  if (query.endDate !== undefined) filter.to = parseAuditDate(query.endDate, 'endDate', 'end');
  if (filter.from !== undefined && filter.to !== undefined && filter.from > filter.to) {
    throw apiError('invalid_date_range', 'startDate is after endDate.');
  }
  const total = Number((await store.countAudit(ctx.db, ctx.orgId, filter)).n);
  const offset = (page - 1) * pageSize;
  // A page past the end is empty; not asking the store keeps absurd offsets away from bigint limits.
  const rows = offset < total ? await store.listAudit(ctx.db, ctx.orgId, filter, pageSize, offset) : [];
  const data: AuditEntry[] = rows.map((r) => ({
    id: r.id,
    action_type: r.action_type,
    actor_id: r.actor_id,
    actor_type: r.actor_type,
    ...actorOfRow(r),
    target_id: r.target_id,
    target_type: r.target_type,
    target_identifier: r.target_ref === null ? r.target_identifier : (r.target_label ?? ERASED),
    details_preview: detailsPreview(r.details),
    created_at: iso(Number(r.created_at)),
  }));
  return { data, pagination: { page, pageSize, total, totalPages: Math.ceil(total / pageSize) } };
}

/** What an audit row shows for a pseudonym whose person was erased (its audit_identities row is gone). */
export const ERASED = 'erased person';

function actorOfRow(r: {
  actor_type: string;
  actor_ref: string | null;
  actor_name: string | null;
  actor_email: string | null;
  actor_label: string | null;
}) {
  if (r.actor_ref === null) return { actor_name: 'Attest', actor_email: '', actor_label: 'system' };
  if (r.actor_label === null) return { actor_name: ERASED, actor_email: '', actor_label: ERASED };
  return { actor_name: r.actor_name ?? '', actor_email: r.actor_email ?? '', actor_label: r.actor_label };
}

const VERIFY_BATCH = 1000;

/**
 * Walk the org's chain oldest first: each row must follow the previous seq, carry the previous row's hash
 * as prev_hash, and hash to its own row_hash. An edited row fails its own hash; a deleted row breaks the
 * seq (and prev_hash) of the row after it. `checked` counts rows examined, the bad one included.
 */
export async function verifyAuditLog(ctx: OrgContext): Promise<AuditVerify> {
  await requireAuditEntitlement(ctx);
  let checked = 0;
  let prevSeq = 0;
  let prevHash = GENESIS_HASH;
  for (;;) {
    const batch = await store.auditChainBatch(ctx.db, ctx.orgId, prevSeq, VERIFY_BATCH);
    for (const r of batch) {
      checked++;
      const seq = Number(r.seq);
      const { prev_hash: storedPrev, row_hash: storedHash, ...fields } = r;
      const expected = hashRow(storedPrev, { ...fields, seq, created_at: Number(r.created_at) });
      if (seq !== prevSeq + 1 || storedPrev !== prevHash || storedHash !== expected) {
        return { intact: false, checked, firstBadRow: { id: r.id, seq } };
      }
      prevSeq = seq;
      prevHash = storedHash;
    }
    if (batch.length < VERIFY_BATCH) return { intact: true, checked, firstBadRow: null };
  }
}

/** The org the credential acts on, its plan, and what the caller may do in it. */
export async function describeOrg(ctx: OrgContext): Promise<OrgSelf> {
  const row = await store.findOrgById(ctx.db, ctx.orgId);
  if (!row) throw apiError('org_not_found', 'No such organization.');
  return {
    ...orgToWire(row),
    role: ctx.principal.role,
    permissions: [...ctx.principal.permissions].sort(),
    autoJoin: row.auto_join ? (JSON.parse(row.auto_join) as OrgSelf['autoJoin']) : null,
  };
}
