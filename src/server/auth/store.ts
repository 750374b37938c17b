// SQL for resolving and minting credentials. Credentials of every kind share one table keyed by digest.
import type { Db } from '../../db/connection.js';
import type { CredentialKind, CredentialsTable } from '../../db/schema.js';
import { kindLiteral } from '../../db/literals.js';
import { preparedQuery } from '../../db/prepared.js';

export type CredentialRow = CredentialsTable;

// The lookups of a credential check (a cache miss in PrincipalResolver) are compiled once (src/db/prepared.ts).
const byDigest = preparedQuery(1, (db: Db, digest: string) =>
  db.selectFrom('credentials').selectAll().where('digest', '=', digest),
);
const membership = preparedQuery(2, (db: Db, orgId: string, userId: string) =>
  db.selectFrom('memberships').select(['role']).where('org_id', '=', orgId).where('user_id', '=', userId),
);
const liveApp = preparedQuery(1, (db: Db, appId: string) =>
  db
    .selectFrom('apps')
    .innerJoin('orgs', 'orgs.id', 'apps.org_id')
    .select(['apps.id as appId', 'apps.org_id as orgId', 'orgs.plan as plan', 'orgs.name as orgName'])
    .where('apps.id', '=', appId)
    .where('apps.deleted_at', 'is', null),
);
const orgById = preparedQuery(1, (db: Db, orgId: string) =>
  db.selectFrom('orgs').select(['id', 'name', 'plan']).where('id', '=', orgId),
);
const userById = preparedQuery(1, (db: Db, userId: string) =>
  db.selectFrom('users').select(['id', 'email', 'name']).where('id', '=', userId),
);

export async function findByDigest(db: Db, digest: string): Promise<CredentialRow | undefined> {
  return (await byDigest(db, digest))[0];
}

export function insertCredential(db: Db, row: CredentialRow): Promise<unknown> {
  return db.insertInto('credentials').values(row).execute();
}

export async function findMembership(db: Db, orgId: string, userId: string) {
  return (await membership(db, orgId, userId))[0];
}

export async function findLiveApp(db: Db, appId: string) {
  return (await liveApp(db, appId))[0];
}

export async function findOrg(db: Db, orgId: string) {
  return (await orgById(db, orgId))[0];
}

export async function findUser(db: Db, userId: string) {
  return (await userById(db, userId))[0];
}

export function countByKind(db: Db, kind: CredentialKind) {
  return db
    .selectFrom('credentials')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('kind', '=', kindLiteral(kind))
    .executeTakeFirstOrThrow();
}

export function findCredentialById(db: Db, id: string) {
  return db
    .selectFrom('credentials')
    .select(['id', 'kind', 'revoked_at', 'expires_at'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findOrgByName(db: Db, name: string) {
  return db.selectFrom('orgs').select(['id', 'name', 'plan']).where('name', '=', name).executeTakeFirst();
}

export async function hasAnyMembership(db: Db, userId: string): Promise<boolean> {
  return (
    (await db.selectFrom('memberships').select('org_id').where('user_id', '=', userId).limit(1).executeTakeFirst()) !==
    undefined
  );
}

/** Record use of a dashboard session (idle expiry) or a login token (its owner's list); only moves forward. */
export function touchCredential(db: Db, id: string, now: number): Promise<unknown> {
  return db
    .updateTable('credentials')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', '<', now), eb('last_used_at', 'is', null)]))
    .execute();
}

/** Revokes a live credential of `kind`; false when there is none with this id. */
export async function revokeCredential(db: Db, id: string, kind: CredentialKind, now: number): Promise<boolean> {
  const res = await db
    .updateTable('credentials')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('kind', '=', kindLiteral(kind))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * Deletes at most `limit` credentials of `kind` that ended (expired or revoked) before `before`, for
 * housekeeping; how many. With `idleMs`, also those unused for that long before `before`. Each arm reads by an
 * index of migration 0042 (kind with expires_at, with revoked_at, or with the last use).
 * A deleted credential is refused with the same 401 as an ended one, so deleting it changes no answer.
 */
export async function deleteEndedBefore(
  db: Db,
  kind: CredentialKind,
  before: number,
  limit: number,
  idleMs?: number,
): Promise<number> {
  const res = await db
    .deleteFrom('credentials')
    .where('id', 'in', (sub) =>
      sub
        .selectFrom('credentials')
        .select('id')
        .where('kind', '=', kindLiteral(kind))
        .where((eb) =>
          eb.or([
            eb('expires_at', '<', before),
            eb('revoked_at', '<', before),
            ...(idleMs === undefined ? [] : [eb(eb.fn.coalesce('last_used_at', 'created_at'), '<', before - idleMs)]),
          ]),
        )
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
