// The org audit trail. Every row is chained to the one before it in the same org:
// row_hash = sha256(prev_hash ‖ canonical JSON of the row), so editing or deleting a row breaks the chain
// from that row on. `seq` numbers rows per org; a unique (org_id, seq) makes concurrent writers retry
// instead of forking the chain.
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
  | 'artifact';

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

function actorFields(actor: Principal | null, user: { name: string; email: string } | undefined) {
  if (!actor)
    return { actor_id: 'system', actor_type: 'system', actor_name: 'Attest', actor_email: '', actor_label: 'system' };
  const type: AuditActorType =
    actor.kind === 'login_token' || actor.kind === 'dashboard_session'
      ? 'user'
      : actor.kind === 'management_key'
        ? 'management_key'
        : actor.kind === 'admin_token'
          ? 'admin'
          : 'api_key';
  return {
    actor_id: type === 'user' ? (actor.userId ?? actor.credentialId) : actor.credentialId,
    actor_type: type,
    actor_name: user?.name ?? '',
    actor_email: user?.email ?? '',
    actor_label: actor.label,
  };
}

export async function recordAudit(db: Db, clock: Clock, event: AuditEvent): Promise<void> {
  const user = event.actor?.userId
    ? await db.selectFrom('users').select(['name', 'email']).where('id', '=', event.actor.userId).executeTakeFirst()
    : undefined;
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
      ...actorFields(event.actor, user),
      target_id: event.targetId,
      target_type: event.targetType,
      target_identifier: event.targetIdentifier,
      details: canonicalJson(event.details ?? {}),
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
