// Operator actions (API.md §9): orgs, users, memberships, login tokens, management keys, factories.
import type { RequestContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { mintCredential } from '../../server/auth/mint.js';
import { revokeCredential } from '../../server/auth/store.js';
import { isPermission, ROLE_PERMISSIONS, isRole, type Permission, type Role } from '../../server/permissions.js';
import * as orgs from '../orgs/service.js';
import * as apps from '../apps/service.js';
import { recordAudit } from '../../server/audit.js';

function actor(ctx: RequestContext): orgs.Actor {
  return {
    db: ctx.db,
    clock: ctx.clock,
    principal: ctx.principal,
    invalidateAuth: () => ctx.gateway.auth.invalidate(),
  };
}

export function createOrg(ctx: RequestContext, name: string, plan: orgs.PlanName) {
  return orgs.createOrg(actor(ctx), name, plan);
}

export function changePlan(ctx: RequestContext, orgName: string, plan: orgs.PlanName) {
  return orgs.changePlan(actor(ctx), orgName, plan);
}

export function createUser(ctx: RequestContext, email: string, name: string) {
  return orgs.createUser(actor(ctx), email, name);
}

export async function addMember(ctx: RequestContext, orgName: string, userId: string, role: Role) {
  const org = await orgs.requireOrg(ctx.db, orgName);
  const user = await orgs.requireUser(ctx.db, userId);
  return orgs.addMember(actor(ctx), org, user, role);
}

export async function removeMember(ctx: RequestContext, orgName: string, userId: string): Promise<void> {
  const org = await orgs.requireOrg(ctx.db, orgName);
  await orgs.removeMember(actor(ctx), org, userId);
}

export async function mintLoginToken(ctx: RequestContext, userId: string) {
  const user = await orgs.requireUser(ctx.db, userId);
  const minted = await mintCredential(ctx.db, ctx.gateway.pepper, ctx.clock.now(), {
    kind: 'login_token',
    name: `login ${user.email}`,
    userId: user.id,
  });
  return { token: minted.plaintext, id: minted.id, userId: user.id };
}

export async function revokeLoginToken(ctx: RequestContext, tokenId: string): Promise<void> {
  if (!(await revokeCredential(ctx.db, tokenId, 'login_token', ctx.clock.now())))
    throw apiError('login_token_not_found', 'No live login token with this id.');
  ctx.gateway.auth.invalidate();
}

export async function mintManagementKey(
  ctx: RequestContext,
  orgName: string,
  name: string,
  createdBy: string,
  permissions: readonly string[],
) {
  const org = await orgs.requireOrg(ctx.db, orgName);
  const membership = await orgs.membershipOf(ctx.db, org.id, createdBy);
  if (!membership || !isRole(membership.role))
    throw apiError('member_not_found', 'createdBy must be a member of the organization.');
  const unknown = permissions.filter((p) => !isPermission(p));
  if (unknown.length) throw apiError('invalid_permissions', `Unknown permissions: ${unknown.join(', ')}.`, { unknown });
  const granted = new Set<Permission>(ROLE_PERMISSIONS[membership.role]);
  const beyond = (permissions as Permission[]).filter((p) => !granted.has(p));
  if (beyond.length) {
    throw apiError('forbidden', `The creator's role (${membership.role}) lacks ${beyond.join(', ')}.`, {
      required_permission: beyond[0],
    });
  }
  const now = ctx.clock.now();
  const minted = await mintCredential(ctx.db, ctx.gateway.pepper, now, {
    kind: 'management_key',
    name,
    orgId: org.id,
    createdBy,
    permissions: permissions as Permission[],
  });
  await orgsAudit(ctx, org.id, minted.id, name);
  return {
    key: minted.plaintext,
    id: minted.id,
    name,
    permissions: [...permissions],
    key_prefix: minted.prefix,
    created_at: new Date(now).toISOString(),
    created_by: createdBy,
  };
}

async function orgsAudit(ctx: RequestContext, orgId: string, keyId: string, name: string): Promise<void> {
  await recordAudit(ctx.db, ctx.clock, {
    orgId,
    actionType: 'management_key.created',
    actor: ctx.principal,
    targetType: 'management_key',
    targetId: keyId,
    targetIdentifier: name,
  });
}

export async function createApp(ctx: RequestContext, orgName: string, name: string, displayName?: string) {
  const org = await orgs.requireOrg(ctx.db, orgName);
  return apps.createApp(ctx.db, ctx.clock, ctx.principal, org.id, {
    name,
    ...(displayName ? { display_name: displayName } : {}),
  });
}
