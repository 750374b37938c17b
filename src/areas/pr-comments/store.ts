// SQL of the PR comment jobs: one row per pull request of a factory, upserted by every trigger, claimed
// with a lease by one replica at a time. Always scoped by factory, except the claim, which is the worker's
// read across factories (a job names its factory).
import { sql } from 'kysely';
import type { Db } from '../../db/connection.js';

export interface PrCommentJobsTable {
  id: string;
  org_id: string;
  app_id: string;
  repository: string;
  number: number;
  requested: number;
  done: number;
  pending_since: number | null;
  due_at: number | null;
  retry_at: number | null;
  attempts: number;
  lease_owner: string | null;
  lease_until: number | null;
  comment_id: number | null;
  comment_url: string | null;
  body_sha256: string | null;
  posted_at: number | null;
  last_error_code: string | null;
  last_error_message: string | null;
  last_error_at: number | null;
  /** The `Attest evidence` check run this job keeps (0028): on which head commit, what it last said, its problem. */
  check_run_id: number | null;
  check_head_sha: string | null;
  check_sha256: string | null;
  check_url: string | null;
  check_error_code: string | null;
  check_error_message: string | null;
  check_error_at: number | null;
  created_at: number;
  updated_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    pr_comment_jobs: PrCommentJobsTable;
  }
}

export type JobRow = PrCommentJobsTable;

export interface Debounce {
  /** A run waits this long after the latest trigger... */
  quietMs: number;
  /** ...but never longer than this after the first trigger it has not posted yet. */
  maxWaitMs: number;
}

/**
 * Ask for a run of the pull request's comment, only when the factory's setting is on (one statement: the
 * row is inserted from the factory's row, or bumped). A burst of triggers moves one due time; a trigger
 * during a run bumps `requested`, which makes the run's end schedule another.
 */
export async function requestRun(
  db: Db,
  id: string,
  appId: string,
  repository: string,
  number: number,
  now: number,
  d: Debounce,
  whateverTheSettings = false,
): Promise<boolean> {
  const due = now + d.quietMs;
  const wanted = whateverTheSettings ? sql`` : sql` and (pr_comment = 'on' or pr_check = 'on')`;
  const since = sql<number>`coalesce(pr_comment_jobs.pending_since, excluded.pending_since)`;
  const result = await sql`
    insert into pr_comment_jobs (id, org_id, app_id, repository, number, requested, done, pending_since, due_at,
      attempts, created_at, updated_at)
    select cast(${id} as text), org_id, id, cast(${repository} as text), cast(${number} as integer), 1, 0,
      cast(${now} as bigint), cast(${due} as bigint), 0, cast(${now} as bigint), cast(${now} as bigint)
    from apps where id = ${appId}${wanted} and deleted_at is null
    on conflict (app_id, repository, number) do update set
      requested = pr_comment_jobs.requested + 1,
      pending_since = ${since},
      due_at = case when ${since} + cast(${d.maxWaitMs} as bigint) < excluded.due_at
        then ${since} + cast(${d.maxWaitMs} as bigint) else excluded.due_at end,
      updated_at = excluded.updated_at
  `.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/** Jobs due now and not leased by a live replica, soonest first. */
export function dueJobs(db: Db, now: number, limit: number): Promise<Array<{ id: string }>> {
  return db
    .selectFrom('pr_comment_jobs')
    .select('id')
    .where('due_at', '<=', now)
    .where((eb) => eb.or([eb('retry_at', 'is', null), eb('retry_at', '<=', now)]))
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .orderBy('due_at')
    .limit(limit)
    .execute();
}

/** Take the lease when nobody holds a live one; the conditional update is what decides between replicas. */
export async function claim(db: Db, id: string, owner: string, now: number, leaseMs: number): Promise<JobRow | null> {
  const result = await db
    .updateTable('pr_comment_jobs')
    .set({ lease_owner: owner, lease_until: now + leaseMs, pending_since: null })
    .where('id', '=', id)
    .where('due_at', '<=', now)
    .where((eb) => eb.or([eb('retry_at', 'is', null), eb('retry_at', '<=', now)]))
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return null;
  const row = await db
    .selectFrom('pr_comment_jobs')
    .selectAll()
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return row ?? null;
}

/** Extend a lease still held; false when another replica took it (then this one must not write). */
export async function renewLease(db: Db, id: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
  const result = await db
    .updateTable('pr_comment_jobs')
    .set({ lease_until: now + leaseMs })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('lease_until', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface Outcome {
  /** The `requested` value the run rendered. */
  version: number;
  now: number;
  comment?: { id: number; url: string; sha256: string } | undefined;
  /** When nothing asks for another run: re-render then anyway (signed image URLs about to expire), or null. */
  refreshAt: number | null;
  error?: { code: string; message: string } | undefined;
}

/** The run ended (posted, or nothing to post, or a problem that waits for the next trigger). */
export async function finish(db: Db, id: string, owner: string, o: Outcome): Promise<void> {
  const more = sql<boolean>`requested > cast(${o.version} as integer)`;
  await db
    .updateTable('pr_comment_jobs')
    .set({
      done: o.version,
      attempts: 0,
      retry_at: null,
      lease_owner: null,
      lease_until: null,
      due_at: sql<number | null>`case when ${more} then due_at else cast(${o.refreshAt} as bigint) end`,
      pending_since: sql<number | null>`case when ${more} then pending_since else null end`,
      ...(o.comment
        ? { comment_id: o.comment.id, comment_url: o.comment.url, body_sha256: o.comment.sha256, posted_at: o.now }
        : {}),
      last_error_code: o.error?.code ?? null,
      last_error_message: o.error?.message ?? null,
      last_error_at: o.error ? o.now : null,
      updated_at: o.now,
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute();
}

/** The run failed in a way worth retrying: try again at `retryAt` (the due time stays). */
export async function retryLater(
  db: Db,
  id: string,
  owner: string,
  now: number,
  retryAt: number,
  error: { code: string; message: string },
): Promise<void> {
  await db
    .updateTable('pr_comment_jobs')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      retry_at: retryAt,
      lease_owner: null,
      lease_until: null,
      last_error_code: error.code,
      last_error_message: error.message,
      last_error_at: now,
      updated_at: now,
    }))
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute();
}

/** Forget the comment id (it was deleted on GitHub); the next run looks for the comment again. */
export async function forgetComment(db: Db, id: string): Promise<void> {
  await db
    .updateTable('pr_comment_jobs')
    .set({ comment_id: null, comment_url: null, body_sha256: null })
    .where('id', '=', id)
    .execute();
}

export function listJobs(db: Db, appId: string, limit: number): Promise<JobRow[]> {
  return db
    .selectFrom('pr_comment_jobs')
    .selectAll()
    .where('app_id', '=', appId)
    .orderBy('updated_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The latest recorded problem of each factory among `appIds` (for the factory settings read). */
export function latestProblems(db: Db, appIds: readonly string[]): Promise<JobRow[]> {
  if (appIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('pr_comment_jobs')
    .selectAll()
    .where('app_id', 'in', [...appIds])
    .where('last_error_code', 'is not', null)
    .orderBy('last_error_at', 'desc')
    .execute();
}
