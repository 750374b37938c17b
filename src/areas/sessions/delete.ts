// Deleting a stored session (issue 42), inside the caller's transaction: every row that holds a copy of it or a
// count of it. Its own rows go (summary, document, usage, images; the title search follows the summary row), the
// counters it added to move back (facets, repositories, the metrics' daily rollups and the PR spend sums), and its
// tool, PR-link and verification rows go, so each total is exact without a rebuild. What
// refers to the deletion (tombstone, audit, blobs, the PR comment) is the caller's (the lifecycle area).
import type { Db } from '../../db/connection.js';
import { recordSessionPrOutcomes, recordSessionPrRefs, recordSessionSpend } from '../prs/service.js';
import { rollupInserts, storedRollupParts } from '../metrics/rollup-write.js';
import { insertRowsTogether } from '../../db/bulk-insert.js';
import { recordToolUsage } from '../metrics/service.js';
import { forgetSessionFacts } from '../verdict/ingest.js';
import { forgetSessionCommits } from '../prs/commit-links.js';
import { forgetSessionAttributes } from '../otlp/attributes.js';
import * as store from './store.js';
import { byKey } from '../../db/counter-deltas.js';
import { ListCounterMoves } from './counter-store.js';
import * as docStore from './document-store.js';

export type StoredSession = store.SessionRow;

/** The session a trace id (or the id its agent wrote) names in the factory, if any. */
export async function findStoredSession(db: Db, appId: string, traceId: string): Promise<StoredSession | undefined> {
  return (await store.findById(db, appId, traceId)) ?? (await store.findBySessionId(db, appId, traceId));
}

/** Every subagent transcript of a top-level session (they go with it). */
export function subagentsOfSession(db: Db, appId: string, row: StoredSession): Promise<StoredSession[]> {
  if (row.is_subagent) return Promise.resolve([]);
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('app_id', '=', appId)
    .where('parent_session_id', '=', row.session_id)
    .where('is_subagent', '=', 1)
    .execute();
}

/** The factory's oldest sessions at `tier` that started before `before` (the retention sweep's batches). */
export function sessionsAtTierBefore(
  db: Db,
  appId: string,
  tier: string,
  before: number,
  limit: number,
): Promise<StoredSession[]> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('app_id', '=', appId)
    .where('capture_tier', '=', tier)
    .where('started_at', '<', before)
    .orderBy('started_at')
    .limit(limit)
    .execute();
}

/** The images the document of each of these sessions names (before they are cut or deleted). */
export function imagesOfSessions(db: Db, appId: string, sessionIds: readonly string[]): Promise<string[]> {
  return docStore.imagesOfSessions(db, appId, sessionIds);
}

/** Of these images, the ones some stored session of the factory still names. */
export function imagesStillNamed(db: Db, appId: string, shas: readonly string[]): Promise<Set<string>> {
  return docStore.imagesStillNamed(db, appId, shas);
}

/**
 * Delete these sessions and every count of them, in the caller's transaction. The rows are read again there,
 * locked in session-key order as every writer locks them: the caller read them before its transaction, and a
 * re-sync in between would otherwise have its counts moved back by the stale row's (a counter off for good), or
 * hold the session's row while this holds the counters (PostgreSQL: a deadlock). A session deleted meanwhile is
 * skipped. Shared rows are taken in a writer's order (sessions/write.ts): the PR spend sums and outcomes, then the
 * counters (rollups, facets, repositories) last, in key order, one statement on PostgreSQL.
 */
export async function deleteStoredSessions(db: Db, appId: string, stale: readonly StoredSession[]): Promise<void> {
  if (!stale.length) return;
  const rows = await store.findByKeys(db, appId, [...new Set(stale.map((r) => r.session_key))].sort(byKey));
  if (!rows.length) return;
  const ids = rows.map((r) => r.id);
  const counters = new ListCounterMoves();
  for (const row of rows) counters.add(row, -1);
  // What each session counts in the daily rollups, read before its usage and tool rows go.
  const parts = await storedRollupParts(db, appId, ids);
  await recordToolUsage(db, appId, [], ids);
  await recordSessionPrRefs(db, appId, [], ids);
  await forgetSessionFacts(db, appId, ids);
  await forgetSessionCommits(db, appId, ids);
  await forgetSessionAttributes(
    db,
    appId,
    rows.map((r) => r.session_key),
  );
  await store.deleteSessionsRows(db, appId, ids);
  // The PR spend sums take back what the deleted top-level sessions counted (their links are gone now).
  await recordSessionSpend(
    db,
    appId,
    rows.filter((r) => !r.is_subagent).map((r) => r.id),
    true,
  );
  await recordSessionPrOutcomes(
    db,
    appId,
    rows.map((row) => ({ before: row, after: null })),
  );
  // Last, as a writer takes them after the PR spend and outcome rows (sessions/write.ts): the counter rows every
  // session of a day shares. Taken first, a delete and a sync of a session of the same PR and day could each hold
  // what the other waits for (PostgreSQL: a deadlock, one of them failed).
  await insertRowsTogether(db, [
    ...rollupInserts(
      appId,
      rows.map((row) => ({
        before: { row, usage: parts.get(row.id)?.usage ?? [], tools: parts.get(row.id)?.tools ?? [] },
        after: null,
      })),
    ),
    ...counters.inserts(appId),
  ]);
}
