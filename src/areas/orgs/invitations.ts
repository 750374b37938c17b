// Joining an org without the operator: invitations (a single-use link valid 7 days, optionally for one
// email) and auto-join by verified email domain. Every join, invitation and revocation is audit-logged.
// The emails compared here are users' stored emails, which are always verified: the operator sets them, and
// a sign-in stores one only when the identity provider says it is verified (src/areas/sign-in).
import crypto from 'node:crypto';
import type { Db } from '../../db/connection.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Clock } from '../../server/clock.js';
import type { Principal } from '../../server/auth/principal.js';
import type { OrgContext } from '../../server/context.js';
import { digestOf } from '../../server/credentials.js';
import { apiError } from '../../server/errors.js';
import { recordAudit } from '../../server/audit.js';
import type { Role } from '../../server/permissions.js';
import type { AutoJoin, Invitation, JoinedOrg, NewInvitation, OrgSelf } from './schema.js';
import { describeOrg, iso } from './service.js';
import * as store from './store.js';
import * as invitations from './invitations-store.js';

export const INVITATION_TTL_MS = 7 * 86_400_000;
/** Token length bounds: what `crypto.randomBytes(32)` in base64url gives, with room; anything else is unknown. */
const TOKEN = /^[A-Za-z0-9_-]{40,100}$/;

function toWire(row: invitations.InvitationsTable): Invitation {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    expiresAt: iso(row.expires_at),
    createdAt: iso(row.created_at),
  };
}

export async function createInvitation(
  ctx: OrgContext,
  input: { email?: string | undefined; role: Role },
): Promise<NewInvitation> {
  const now = ctx.clock.now();
  const token = crypto.randomBytes(32).toString('base64url');
  const row: invitations.InvitationsTable = {
    id: crypto.randomUUID(),
    org_id: ctx.orgId,
    digest: digestOf(token, ctx.gateway.pepper),
    email: input.email ? input.email.toLowerCase() : null,
    role: input.role,
    created_by: ctx.principal.userId ?? null,
    created_at: now,
    expires_at: now + INVITATION_TTL_MS,
    accepted_at: null,
    accepted_by: null,
    revoked_at: null,
  };
  await invitations.insertInvitation(ctx.db, row);
  await recordAudit(ctx.db, ctx.clock, {
    orgId: ctx.orgId,
    actionType: 'invitation.created',
    actor: ctx.principal,
    targetType: 'invitation',
    targetId: row.id,
    targetIdentifier: row.email ?? 'anyone with the link',
    details: { role: row.role, email: row.email, expiresAt: iso(row.expires_at) },
  });
  return { ...toWire(row), url: `${ctx.config.publicUrl}/invite/${token}` };
}

export async function listInvitations(ctx: OrgContext): Promise<Invitation[]> {
  return (await invitations.listOpen(ctx.db, ctx.orgId, ctx.clock.now())).map(toWire);
}

export async function revokeInvitation(ctx: OrgContext, id: string): Promise<void> {
  const now = ctx.clock.now();
  if (!(await invitations.revoke(ctx.db, ctx.orgId, id, now)))
    throw apiError('invitation_not_found', 'No open invitation with this id in this organization.');
  const row = await invitations.findById(ctx.db, ctx.orgId, id);
  await recordAudit(ctx.db, ctx.clock, {
    orgId: ctx.orgId,
    actionType: 'invitation.revoked',
    actor: ctx.principal,
    targetType: 'invitation',
    targetId: id,
    targetIdentifier: row?.email ?? 'anyone with the link',
    details: { role: row?.role },
  });
}

export interface Joiner {
  db: Db;
  clock: Clock;
  pepper: string;
  /** The signed-in caller (audited as the actor), or null when the join happens inside a sign-in. */
  principal: Principal | null;
  invalidateAuth: () => void;
}

/**
 * Accepts an invitation for `user`: the link must be open (not used, revoked or expired), and an invitation
 * for an email accepts only a user with that email.
 */
export async function acceptInvitation(
  j: Joiner,
  user: { id: string; email: string },
  token: string,
): Promise<JoinedOrg> {
  const row = TOKEN.test(token) ? await invitations.findByDigest(j.db, digestOf(token, j.pepper)) : undefined;
  if (!row)
    throw apiError('invitation_not_found', 'That invitation link is not valid. Check that it was copied whole.');
  const now = j.clock.now();
  if (row.accepted_at !== null) throw apiError('invitation_used', 'That invitation was already used; each works once.');
  if (row.revoked_at !== null) throw apiError('invitation_revoked', 'That invitation was revoked; ask for a new one.');
  if (row.expires_at <= now) throw apiError('invitation_expired', 'That invitation has expired; ask for a new one.');
  if (row.email !== null && row.email !== user.email.toLowerCase())
    throw apiError(
      'invitation_email_mismatch',
      'This invitation is for another email address. Sign in with the address it was sent to.',
    );
  const org = await store.findOrgById(j.db, row.org_id);
  if (!org) throw apiError('invitation_not_found', 'That invitation link is not valid.');
  if (await store.findMembership(j.db, org.id, user.id))
    throw apiError('already_member', `You are already a member of ${org.name}.`);
  if (!(await invitations.markAccepted(j.db, row.id, user.id, now)))
    throw apiError('invitation_used', 'That invitation was already used; each works once.');
  await join(j, org, user, row.role as Role, { via: 'invitation', invitationId: row.id });
  return { org: { id: org.id, name: org.name }, role: row.role };
}

async function join(
  j: Joiner,
  org: { id: string; name: string },
  user: { id: string; email: string },
  role: Role,
  details: Record<string, unknown>,
): Promise<void> {
  try {
    await store.insertMembership(j.db, { org_id: org.id, user_id: user.id, role, created_at: j.clock.now() });
  } catch (err) {
    if (isUniqueViolation(err)) throw apiError('already_member', `You are already a member of ${org.name}.`);
    throw err;
  }
  j.invalidateAuth();
  await recordAudit(j.db, j.clock, {
    orgId: org.id,
    actionType: 'member.joined',
    actor: j.principal,
    targetType: 'member',
    targetId: user.id,
    targetIdentifier: user.email,
    details: { role, ...details },
  });
}

function parseAutoJoin(raw: string | null | undefined): AutoJoin | null {
  if (!raw) return null;
  return JSON.parse(raw) as AutoJoin;
}

/** Joins `user` (just created by a first sign-in, email verified) to every org whose auto-join names its domain. */
export async function autoJoin(j: Joiner, user: { id: string; email: string }): Promise<JoinedOrg[]> {
  const domain = user.email.toLowerCase().split('@')[1] ?? '';
  const joined: JoinedOrg[] = [];
  for (const org of await invitations.orgsWithAutoJoin(j.db)) {
    const setting = parseAutoJoin(org.auto_join);
    if (!setting?.domains.includes(domain)) continue;
    if (await store.findMembership(j.db, org.id, user.id)) continue;
    await join(j, org, user, setting.role, { via: 'auto_join', domain });
    joined.push({ org: { id: org.id, name: org.name }, role: setting.role });
  }
  return joined;
}

export function autoJoinOf(org: { auto_join?: string | null }): AutoJoin | null {
  return parseAutoJoin(org.auto_join);
}

/** Sets (or turns off, with null) the org's auto-join; domains are kept lower-case and once each. */
export async function setAutoJoin(ctx: OrgContext, setting: AutoJoin | null): Promise<OrgSelf> {
  const normal = setting
    ? { domains: [...new Set(setting.domains.map((d) => d.toLowerCase()))], role: setting.role }
    : null;
  const before = await store.findOrgById(ctx.db, ctx.orgId);
  await invitations.setAutoJoin(ctx.db, ctx.orgId, normal ? JSON.stringify(normal) : null, ctx.clock.now());
  await recordAudit(ctx.db, ctx.clock, {
    orgId: ctx.orgId,
    actionType: 'org.auto_join_changed',
    actor: ctx.principal,
    targetType: 'org',
    targetId: ctx.orgId,
    targetIdentifier: before?.name ?? ctx.orgId,
    details: { from: parseAutoJoin(before?.auto_join), to: normal },
  });
  return describeOrg(ctx);
}
