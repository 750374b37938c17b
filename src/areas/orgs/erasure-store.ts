// SQL of erasing a person from an org (issue 42) outside the sessions, metrics and telemetry, which their areas
// erase: the org's credentials, invitations, grants, membership, notification bodies, budgets, audit pseudonyms,
// and (when the person belongs to no other org) their account and everything signed in with it.
import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

export function factoriesOfOrg(db: Db, orgId: string) {
  // Deleted factories too: their rows are unreachable, not gone.
  return db.selectFrom('apps').select('id').where('org_id', '=', orgId).orderBy('id').execute();
}

export function sessionsOfActors(db: Db, appId: string, actorIds: readonly string[]) {
  return db
    .selectFrom('sessions')
    .select(['session_key', 'session_id'])
    .where('app_id', '=', appId)
    .where('actor_id', 'in', [...actorIds])
    .execute();
}

/** `s` inside a LIKE pattern: its % and _ become the one-character wildcard, matching a little more, never less. */
function like(s: string): string {
  return `%${s.toLowerCase().replace(/[%_]/g, '_')}%`;
}

/** The org's keys whose name names the person (their email, or their full name of 3 characters or more). */
export function keysNamingPerson(db: Db, orgId: string, email: string | null, name: string | null) {
  const needles = [email, name && name.trim().length >= 3 ? name.trim() : null].filter((s): s is string => !!s);
  if (!needles.length) return Promise.resolve([]);
  return db
    .selectFrom('credentials')
    .select(['id', 'kind'])
    .where('org_id', '=', orgId)
    .where('kind', 'in', ['factory_key', 'management_key', 'item_key'])
    .where((eb) => eb.or(needles.map((n) => eb(eb.fn('lower', ['name']), 'like', like(n)))))
    .execute();
}

/** A key's name no longer names anyone; unique per key, as live factory key names must be. */
export async function renameKeys(db: Db, ids: readonly string[]): Promise<void> {
  for (const id of ids)
    await db
      .updateTable('credentials')
      .set({ name: `erased key ${id.slice(0, 8)}` })
      .where('id', '=', id)
      .execute();
}

/** The user's sign-in credentials that act in this org (all of them with `everywhere`). */
export function userCredentials(db: Db, orgId: string, userId: string, everywhere: boolean) {
  let q = db.selectFrom('credentials').select('id').where('user_id', '=', userId);
  if (!everywhere) q = q.where('org_id', '=', orgId);
  return q.execute();
}

export async function deleteCredentials(db: Db, ids: readonly string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 300)
    await db
      .deleteFrom('credentials')
      .where('id', 'in', ids.slice(i, i + 300))
      .execute();
}

export async function deleteInvitations(db: Db, orgId: string, email: string): Promise<number> {
  const res = await db
    .deleteFrom('invitations')
    .where('org_id', '=', orgId)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email))
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

export async function deleteGrants(db: Db, orgId: string | null, userId: string): Promise<void> {
  let q = db.deleteFrom('oauth_grants').where('user_id', '=', userId);
  if (orgId !== null) q = q.where('org_id', '=', orgId);
  await q.execute();
}

export function otherMemberships(db: Db, orgId: string, userId: string) {
  return db
    .selectFrom('memberships')
    .select('org_id')
    .where('user_id', '=', userId)
    .where('org_id', '!=', orgId)
    .execute();
}

/**
 * Replace the person's email and name in the org's notification deliveries (the bodies sent and received keep
 * a budget's top spenders by name). Answers the rows changed.
 */
export async function scrubDeliveries(db: Db, orgId: string, needles: readonly string[], by: string) {
  let changed = 0;
  for (const n of needles) {
    const res = await db
      .updateTable('notification_deliveries')
      .set({
        event: sql`replace(event, ${n}, ${by})`,
        request_body: sql`replace(request_body, ${n}, ${by})`,
        response_body: sql`replace(response_body, ${n}, ${by})`,
        error: sql`replace(error, ${n}, ${by})`,
      })
      .where('org_id', '=', orgId)
      .where((eb) =>
        eb.or((['event', 'request_body', 'response_body', 'error'] as const).map((c) => eb(c, 'like', `%${n}%`))),
      )
      .executeTakeFirst();
    changed += Number(res.numUpdatedRows);
  }
  return changed;
}

/** Budgets scoped to the person follow their pseudonym (their spend still counts under it). */
export async function moveBudgets(db: Db, orgId: string, actorIds: readonly string[], pseudonym: string) {
  const res = await db
    .updateTable('budgets')
    .set({ scope_value: pseudonym })
    .where('org_id', '=', orgId)
    .where('scope_kind', '=', 'actor')
    .where('scope_value', 'in', [...actorIds])
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

export async function deleteAuditIdentities(db: Db, orgId: string, subjects: readonly string[]): Promise<number> {
  if (!subjects.length) return 0;
  const res = await db
    .deleteFrom('audit_identities')
    .where('org_id', '=', orgId)
    .where('subject', 'in', [...subjects])
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** The account and what signing in with it left: identities, codes, tokens, links (cascades, spelled out). */
export async function deleteAccount(db: Db, userId: string): Promise<void> {
  for (const table of [
    'identities',
    'cli_login_codes',
    'cli_device_codes',
    'github_user_tokens',
    'dashboard_links',
  ] as const)
    await db.deleteFrom(table).where('user_id', '=', userId).execute();
  await db.deleteFrom('credentials').where('user_id', '=', userId).execute();
  await db.deleteFrom('memberships').where('user_id', '=', userId).execute();
  await db.deleteFrom('users').where('id', '=', userId).execute();
}

/** The report of an earlier erasure of the same person in this org (its audit row), if any. */
export function earlierErasure(db: Db, orgId: string, ref: string) {
  return db
    .selectFrom('audit_log')
    .select(['details', 'created_at'])
    .where('org_id', '=', orgId)
    .where('action_type', '=', 'person.erased')
    .where('target_id', '=', ref)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}
