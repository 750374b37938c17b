// The org audit trail. Every row is chained to the one before it in the same org:
// row_hash = sha256(prev_hash ‖ canonical JSON of the row), so editing or deleting a row breaks the chain
// from that row on. A row names people and credentials only by pseudonym (actor_ref, target_ref); who a
// pseudonym is lives in audit_identities, outside the hash, so erasing a person leaves the chain verifiable.
// `seq` numbers rows per org; a unique (org_id, seq) makes concurrent writers retry instead of forking the chain.
import crypto from 'node:crypto';
import type { Db } from '../db/connection.js';
import type { AuditLogTable } from '../db/schema.js';
import type { Clock } from './clock.js';
import type { Principal } from './auth/principal.js';

export type AuditActorType = 'user' | 'api_key' | 'management_key' | 'admin' | 'system';
export type AuditTargetType =
  | 'org'
  | 'member'
  | 'app'
  | 'api_key'
  | 'management_key'
  | 'work_item'
  | 'repository'
  | 'invitation'
  | 'session'
  | 'artifact'
  | 'person';

export interface AuditEvent {
  orgId: string;
  actionType: string;
  /** The caller, or null for the gateway itself. */
  actor: Principal | null;
  targetType: AuditTargetType;
  targetId: string;
  targetIdentifier: string;
  details?: Record<string, unknown>;
}

export const GENESIS_HASH = '0'.repeat(64);

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The hash of a row given the hash before it; the fields hashed are every column but the two hashes. */
export function hashRow(prevHash: string, row: Omit<AuditLogTable, 'prev_hash' | 'row_hash'>): string {
  return crypto.createHash('sha256').update(prevHash).update(canonicalJson(row)).digest('hex');
}

/** What an audit row names, kept out of the hashed row: its pseudonym's row says who it is. */
export interface AuditSubject {
  subject: string;
  name?: string;
  email?: string;
  label?: string;
}

function actorType(actor: Principal): AuditActorType {
  return actor.kind === 'login_token' || actor.kind === 'dashboard_session'
    ? 'user'
    : actor.kind === 'management_key'
      ? 'management_key'
      : actor.kind === 'admin_token'
        ? 'admin'
        : 'api_key';
}

/** A person is a user subject; a key is a credential subject (its name is its label, and may name a person). */
function actorSubject(actor: Principal, user: { name: string; email: string } | undefined): AuditSubject {
  if (actorType(actor) === 'user') {
    const id = actor.userId ?? actor.credentialId;
    return { subject: `user:${id}`, name: user?.name ?? '', email: user?.email ?? '', label: actor.label };
  }
  return { subject: `credential:${actor.credentialId}`, label: actor.label };
}

/** The subject of a target that names a person or a credential; null for the rest (apps, repositories, ...). */
export function targetSubject(event: Pick<AuditEvent, 'targetType' | 'targetId' | 'targetIdentifier'>) {
  const { targetType: type, targetId: id, targetIdentifier: identifier } = event;
  if (type === 'member') return { subject: `user:${id}`, email: identifier, label: identifier };
  if (type === 'invitation' && identifier.includes('@')) {
    const email = identifier.toLowerCase();
    return { subject: `email:${email}`, email, label: email };
  }
  if (type === 'api_key' || type === 'management_key') return { subject: `credential:${id}`, label: identifier };
  return null;
}

/**
 * The org's pseudonym of a subject, made on first use; its name, email and label follow the latest event that
 * gives them. Pseudonyms are per org, so two orgs' logs cannot be joined on them.
 */
async function pseudonymOf(db: Db, clock: Clock, orgId: string, s: AuditSubject): Promise<string> {
  const fields = Object.fromEntries(
    (['name', 'email', 'label'] as const).filter((k) => s[k]).map((k) => [k, s[k] as string]),
  );
  const row = await db
    .insertInto('audit_identities')
    .values({
      id: crypto.randomUUID(),
      org_id: orgId,
      subject: s.subject,
      name: s.name ?? '',
      email: s.email ?? '',
      label: s.label ?? '',
      created_at: clock.now(),
    })
    // The no-op set of `subject` makes the conflict answer the existing row's id too.
    .onConflict((oc) =>
      oc.columns(['org_id', 'subject']).doUpdateSet((eb) => ({ subject: eb.ref('excluded.subject'), ...fields })),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function recordAudit(db: Db, clock: Clock, event: AuditEvent): Promise<void> {
  const user = event.actor?.userId
    ? await db.selectFrom('users').select(['name', 'email']).where('id', '=', event.actor.userId).executeTakeFirst()
    : undefined;
  const actorRef = event.actor ? await pseudonymOf(db, clock, event.orgId, actorSubject(event.actor, user)) : null;
  const target = targetSubject(event);
  const targetRef = target ? await pseudonymOf(db, clock, event.orgId, target) : null;
  // An invitation's email is its target's pseudonym, not a detail.
  const { email: _email, ...rest } = event.details ?? {};
  const details = event.targetType === 'invitation' ? rest : (event.details ?? {});
  for (let attempt = 0; ; attempt++) {
    const last = await db
      .selectFrom('audit_log')
      .select(['seq', 'row_hash'])
      .where('org_id', '=', event.orgId)
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    const row = {
      id: crypto.randomUUID(),
      org_id: event.orgId,
      seq: (last?.seq ?? 0) + 1,
      action_type: event.actionType,
      actor_id: event.actor
        ? actorType(event.actor) === 'user'
          ? (event.actor.userId ?? event.actor.credentialId)
          : event.actor.credentialId
        : 'system',
      actor_type: event.actor ? actorType(event.actor) : 'system',
      actor_ref: actorRef,
      target_id: event.targetId,
      target_type: event.targetType,
      target_ref: targetRef,
      target_identifier: targetRef ? '' : event.targetIdentifier,
      details: canonicalJson(details),
      created_at: clock.now(),
    };
    const prevHash = last?.row_hash ?? GENESIS_HASH;
    try {
      await db
        .insertInto('audit_log')
        .values({ ...row, prev_hash: prevHash, row_hash: hashRow(prevHash, row) })
        .execute();
      return;
    } catch (err) {
      if (attempt >= 20) throw err;
      // Another writer took this seq: read the new tail and chain onto it.
    }
  }
}
