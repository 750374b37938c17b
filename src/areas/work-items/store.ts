// SQL for work items, their claims and the pull requests declared onto them. Every query names the
// factory (app_id); rules (liveness, startability, who may do what) live in service.ts.
import { sql, type Transaction } from 'kysely';
import { isPostgres, type Db } from '../../db/connection.js';
import type { Database } from '../../db/schema.js';
import { kindLiteral } from '../../db/literals.js';
import { preparedQuery } from '../../db/prepared.js';

export interface WorkItemsTable {
  id: string;
  org_id: string;
  app_id: string;
  number: number;
  tracker: string;
  tracker_key: string;
  title: string;
  spec_repository: string;
  spec_number: number;
  stage: string;
  section: string;
  block_class: string;
  repository: string | null;
  withdrawn_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface ClaimsTable {
  id: string;
  org_id: string;
  app_id: string;
  work_item_id: string;
  source: string;
  branch: string | null;
  ttl_seconds: number;
  claimed_at: number;
  expires_at: number;
  credential_id: string | null;
  ended_at: number | null;
  end_reason: string | null;
  /** When the lease running out was announced (work_item.claim_expired); null before. */
  expiry_noticed_at: number | null;
}

export interface WorkItemPullRequestsTable {
  app_id: string;
  work_item_id: string;
  repository: string;
  number: number;
  url: string;
  linked_at: number;
}

export interface WorkItemCountersTable {
  app_id: string;
  last_number: number;
}

declare module '../../db/schema.js' {
  interface Database {
    work_item_counters: WorkItemCountersTable;
    work_items: WorkItemsTable;
    claims: ClaimsTable;
    work_item_pull_requests: WorkItemPullRequestsTable;
  }
}

export type WorkItemRow = WorkItemsTable;
export type ClaimRow = ClaimsTable;
type Tx = Transaction<Database>;

// ---- work items ----

export function findItemById(db: Db, appId: string, id: string): Promise<WorkItemRow | undefined> {
  return db.selectFrom('work_items').selectAll().where('app_id', '=', appId).where('id', '=', id).executeTakeFirst();
}

export function findItemByNumber(db: Db, appId: string, number: number): Promise<WorkItemRow | undefined> {
  return db
    .selectFrom('work_items')
    .selectAll()
    .where('app_id', '=', appId)
    .where('number', '=', number)
    .executeTakeFirst();
}

export function findItemByTrackerKey(
  db: Db,
  appId: string,
  tracker: string,
  trackerKey: string,
): Promise<WorkItemRow | undefined> {
  return db
    .selectFrom('work_items')
    .selectAll()
    .where('app_id', '=', appId)
    .where('tracker', '=', tracker)
    .where('tracker_key', '=', trackerKey)
    .executeTakeFirst();
}

/** Takes the factory's next item number (1 for its first). Call inside the transaction that inserts the item. */
export async function takeNextNumber(db: Db, appId: string): Promise<number> {
  const row = await db
    .insertInto('work_item_counters')
    .values({ app_id: appId, last_number: 1 })
    .onConflict((oc) =>
      oc.column('app_id').doUpdateSet((eb) => ({ last_number: eb('work_item_counters.last_number', '+', 1) })),
    )
    .returning('last_number')
    .executeTakeFirstOrThrow();
  return Number(row.last_number);
}

/** Moves the counter past `number` when it lags behind (items recorded without it, e.g. imported). */
export async function bumpCounterTo(db: Db, appId: string, number: number): Promise<void> {
  await db
    .updateTable('work_item_counters')
    .set({ last_number: number })
    .where('app_id', '=', appId)
    .where('last_number', '<', number)
    .execute();
}

export async function highestNumber(db: Db, appId: string): Promise<number> {
  const row = await db
    .selectFrom('work_items')
    .select((eb) => eb.fn.max('number').as('n'))
    .where('app_id', '=', appId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertItem(db: Db, row: WorkItemRow): Promise<void> {
  await db.insertInto('work_items').values(row).execute();
}

export type ItemChanges = Partial<
  Pick<
    WorkItemRow,
    'title' | 'spec_repository' | 'spec_number' | 'stage' | 'section' | 'block_class' | 'repository' | 'withdrawn_at'
  >
>;

export async function updateItem(db: Db, appId: string, id: string, changes: ItemChanges, now: number): Promise<void> {
  await db
    .updateTable('work_items')
    .set({ ...changes, updated_at: now })
    .where('app_id', '=', appId)
    .where('id', '=', id)
    .execute();
}

/** Marks the item withdrawn unless it already is; true when this call withdrew it. */
export async function withdrawItem(db: Db, appId: string, id: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('work_items')
    .set({ withdrawn_at: now, updated_at: now })
    .where('app_id', '=', appId)
    .where('id', '=', id)
    .where('withdrawn_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export interface ItemWithOpenClaim {
  item: WorkItemRow;
  claim: ClaimRow | null;
}

/** The items page of GET /v1/work-items, live or withdrawn: compiled once each (src/db/prepared.ts). */
const itemsPage = (withdrawn: boolean) =>
  preparedQuery(3, (db: Db, appId: string, afterNumber: number, limit: number) =>
    db
      .selectFrom('work_items')
      .selectAll()
      .where('app_id', '=', appId)
      .where('withdrawn_at', withdrawn ? 'is not' : 'is', null)
      .where('number', '>', afterNumber)
      .orderBy('number')
      .limit(limit),
  );
const liveItemsPage = itemsPage(false);
const withdrawnItemsPage = itemsPage(true);

/**
 * Live (or, with `withdrawn`, only withdrawn) items of the factory with number > afterNumber, by number, with their
 * open claim.
 */
export async function listLiveItems(
  db: Db,
  appId: string,
  afterNumber: number,
  limit: number,
  withdrawn = false,
): Promise<ItemWithOpenClaim[]> {
  const items = await (withdrawn ? withdrawnItemsPage : liveItemsPage)(db, appId, afterNumber, limit);
  if (items.length === 0) return [];
  const claims = await db
    .selectFrom('claims')
    .selectAll()
    .where('app_id', '=', appId)
    .where('ended_at', 'is', null)
    .where(
      'work_item_id',
      'in',
      items.map((i) => i.id),
    )
    .execute();
  const byItem = new Map(claims.map((c) => [c.work_item_id, c]));
  return items.map((item) => ({ item, claim: byItem.get(item.id) ?? null }));
}

// ---- claims ----

/** The claims of one item (every read of them selects from here). */
function claimsOf(db: Db, appId: string, workItemId: string) {
  return db.selectFrom('claims').where('app_id', '=', appId).where('work_item_id', '=', workItemId);
}

export function findOpenClaim(db: Db, appId: string, workItemId: string): Promise<ClaimRow | undefined> {
  return claimsOf(db, appId, workItemId).selectAll().where('ended_at', 'is', null).executeTakeFirst();
}

export function findLatestClaim(db: Db, appId: string, workItemId: string): Promise<ClaimRow | undefined> {
  return claimsOf(db, appId, workItemId)
    .selectAll()
    .orderBy('claimed_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Every claim the item ever had (open and ended), newest first, for its history. */
export function listClaims(
  db: Db,
  appId: string,
  workItemId: string,
  limit: number,
  offset: number,
): Promise<ClaimRow[]> {
  return claimsOf(db, appId, workItemId)
    .selectAll()
    .orderBy('claimed_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countClaims(db: Db, appId: string, workItemId: string): Promise<number> {
  const row = await claimsOf(db, appId, workItemId)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export function findClaimByCredential(db: Db, appId: string, credentialId: string): Promise<ClaimRow | undefined> {
  return db
    .selectFrom('claims')
    .selectAll()
    .where('app_id', '=', appId)
    .where('credential_id', '=', credentialId)
    .executeTakeFirst();
}

/**
 * Ends the item's open claim if its lease ran out by `now`. It is the first statement of the claim
 * transaction on purpose: a write first takes SQLite's write lock (waiting on busy_timeout) before anything
 * is read, and on PostgreSQL it row-locks the expired claim so a racing claimer re-checks after us.
 * Returns the item keys of the claims it ended, so the caller can revoke them in the same transaction.
 */
export async function endExpiredClaim(tx: Tx, appId: string, workItemId: string, now: number): Promise<string[]> {
  const ended = await tx
    .updateTable('claims')
    .set({ ended_at: now, end_reason: 'expired' })
    .where('app_id', '=', appId)
    .where('work_item_id', '=', workItemId)
    .where('ended_at', 'is', null)
    .where('expires_at', '<=', now)
    .returning(['credential_id'])
    .execute();
  return ended.map((c) => c.credential_id).filter((id): id is string => id !== null);
}

export async function insertClaim(db: Db, row: Omit<ClaimRow, 'expiry_noticed_at'>): Promise<void> {
  await db.insertInto('claims').values(row).execute();
}

export async function setClaimCredential(db: Db, claimId: string, credentialId: string): Promise<void> {
  await db.updateTable('claims').set({ credential_id: credentialId }).where('id', '=', claimId).execute();
}

/** Pushes the lease of a still-live claim to newExpiresAt; false when the claim ended or expired first. */
export async function extendClaim(
  db: Db,
  appId: string,
  claimId: string,
  now: number,
  newExpiresAt: number,
): Promise<boolean> {
  const res = await db
    .updateTable('claims')
    .set({ expires_at: newExpiresAt })
    .where('app_id', '=', appId)
    .where('id', '=', claimId)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Ends an open claim; false when someone else ended it first. */
export async function endClaim(db: Db, appId: string, claimId: string, now: number, reason: string): Promise<boolean> {
  const res = await db
    .updateTable('claims')
    .set({ ended_at: now, end_reason: reason })
    .where('app_id', '=', appId)
    .where('id', '=', claimId)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export async function revokeItemKeys(db: Db, appId: string, credentialIds: string[], now: number): Promise<void> {
  if (credentialIds.length === 0) return;
  await db
    .updateTable('credentials')
    .set({ revoked_at: now })
    .where('app_id', '=', appId)
    .where('kind', '=', kindLiteral('item_key'))
    .where('id', 'in', credentialIds)
    .where('revoked_at', 'is', null)
    .execute();
}

// ---- pull requests declared onto an item ----

export async function upsertPullRequest(db: Db, row: WorkItemPullRequestsTable): Promise<void> {
  await db
    .insertInto('work_item_pull_requests')
    .values(row)
    .onConflict((oc) => oc.columns(['work_item_id', 'repository', 'number']).doUpdateSet({ url: row.url }))
    .execute();
}

export function listPullRequests(db: Db, appId: string, workItemId: string) {
  return listPullRequestsQuery(db, appId, workItemId).execute();
}

/**
 * listPullRequests's statement (exported so a test can ask the store for its plan): one item's links, by the
 * primary key (work_item_id, repository, number). Without statistics both stores also read the factory's links
 * through (app_id, repository, number): SQLite, which never has statistics here, read them instead of the key
 * (about forty times slower for an item among 20,000 links of the factory); PostgreSQL ANDed them with the
 * key while the table was not analyzed. SQLite's factory condition is written `+app_id`, which it never takes to
 * an index; PostgreSQL's is checked outside a subquery that `offset 0` keeps whole, so the item's rows are found
 * by the key alone.
 */
export function listPullRequestsQuery(db: Db, appId: string, workItemId: string) {
  if (isPostgres(db)) {
    return db
      .selectFrom((eb) =>
        eb.selectFrom('work_item_pull_requests').selectAll().where('work_item_id', '=', workItemId).offset(0).as('l'),
      )
      .selectAll()
      .where('l.app_id', '=', appId)
      .orderBy('l.linked_at')
      .orderBy('l.repository')
      .orderBy('l.number');
  }
  return db
    .selectFrom('work_item_pull_requests')
    .selectAll()
    .where(sql`+app_id`, '=', appId)
    .where('work_item_id', '=', workItemId)
    .orderBy('linked_at')
    .orderBy('repository')
    .orderBy('number');
}

/** Items a pull request is declared onto (any case of `owner/repo`), oldest link first. */
export function itemsLinkedToPullRequest(db: Db, appId: string, repository: string, number: number) {
  return db
    .selectFrom('work_item_pull_requests as l')
    .innerJoin('work_items as w', (j) => j.onRef('w.id', '=', 'l.work_item_id').onRef('w.app_id', '=', 'l.app_id'))
    .select(['w.id as id', 'w.number as number', 'w.title as title'])
    .where('l.app_id', '=', appId)
    .where(sql<string>`lower(l.repository)`, '=', repository.toLowerCase())
    .where('l.number', '=', number)
    .orderBy('l.linked_at')
    .orderBy('w.id')
    .execute();
}

/**
 * Claims of every factory whose lease ran out in (expiredAfter, now] without a release (still open, or ended as
 * expired) and that were not announced yet, with their item; the earliest first.
 */
export function unannouncedExpiredClaims(db: Db, now: number, expiredAfter: number, limit: number) {
  return db
    .selectFrom('claims')
    .innerJoin('work_items', (j) =>
      j.onRef('work_items.id', '=', 'claims.work_item_id').onRef('work_items.app_id', '=', 'claims.app_id'),
    )
    .select([
      'claims.id',
      'claims.org_id',
      'claims.app_id',
      'claims.source',
      'claims.branch',
      'claims.claimed_at',
      'claims.expires_at',
      'work_items.id as item_id',
      'work_items.number as item_number',
      'work_items.title as item_title',
    ])
    .where('claims.expires_at', '<=', now)
    .where('claims.expires_at', '>', expiredAfter)
    .where('claims.expiry_noticed_at', 'is', null)
    .where((eb) => eb.or([eb('claims.ended_at', 'is', null), eb('claims.end_reason', '=', 'expired')]))
    .orderBy('claims.expires_at')
    .limit(limit)
    .execute();
}

export async function markExpiryNoticed(db: Db, appId: string, claimId: string, now: number): Promise<void> {
  await db
    .updateTable('claims')
    .set({ expiry_noticed_at: now })
    .where('app_id', '=', appId)
    .where('id', '=', claimId)
    .where('expiry_noticed_at', 'is', null)
    .execute();
}
