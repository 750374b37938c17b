// The living PR comment's outbox: what other areas call when something the comment shows changed (schedule),
// and what the factory's settings read shows about it (the latest problem). Low on purpose: it reads only its
// own store, so any area may call it. The worker that drains it (src/jobs/pr-comments/worker.ts) sits above
// the areas, since it gathers the comment's evidence through their services.
import crypto from 'node:crypto';
import type { Db } from '../../db/connection.js';
import type { Clock } from '../../server/clock.js';
import { normalizeRepository } from '../../codehost/repository-name.js';
import type { PrCommentProblem } from './schema.js';
import * as store from './store.js';

/** A run waits for 5 s of quiet after the latest trigger, and at most 30 s after the first one it has not posted. */
export const DEBOUNCE: store.Debounce = { quietMs: 5_000, maxWaitMs: 30_000 };

export interface ScheduleContext {
  db: Db;
  clock: Clock;
  log?: { warn(obj: unknown, msg: string): void };
}

export interface PrRef {
  repository: string;
  number: number;
}

/**
 * Something the comment of these pull requests shows changed: ask for a run of each (debounced). Does
 * nothing while the factory's `pr_comment` and `pr_check` settings are off, unless `whateverTheSettings` (the
 * PR's webhook: its run also reads what the PR's reads show of GitHub, its commits first). Never fails the
 * caller's write: the evidence is already stored, and a lost trigger only delays the comment until the next one.
 */
export async function schedulePrComments(
  ctx: ScheduleContext,
  appId: string,
  prs: readonly PrRef[],
  { whateverTheSettings = false }: { whateverTheSettings?: boolean } = {},
): Promise<void> {
  const seen = new Set<string>();
  for (const pr of prs) {
    if (!Number.isSafeInteger(pr.number) || pr.number <= 0) continue;
    const repository = normalizeRepository(pr.repository);
    if (!/^[^/\s]+\/[^/\s]+$/.test(repository)) continue;
    const key = `${repository}#${pr.number}`;
    if (seen.has(key)) continue;
    seen.add(key);
    try {
      await store.requestRun(
        ctx.db,
        crypto.randomUUID(),
        appId,
        repository,
        pr.number,
        ctx.clock.now(),
        DEBOUNCE,
        whateverTheSettings,
      );
    } catch (err) {
      ctx.log?.warn({ err, appId, repository, number: pr.number }, 'could not schedule the PR comment');
    }
  }
}

function problemOf(row: store.JobRow): PrCommentProblem | null {
  if (!row.last_error_code || row.last_error_at === null) return null;
  return {
    code: row.last_error_code,
    message: row.last_error_message ?? '',
    repository: row.repository,
    number: Number(row.number),
    at: new Date(Number(row.last_error_at)).toISOString(),
  };
}

/** The latest unresolved problem of each factory's PR comments (a pull request whose last run failed). */
export async function latestProblems(db: Db, appIds: readonly string[]): Promise<Map<string, PrCommentProblem>> {
  const out = new Map<string, PrCommentProblem>();
  for (const row of await store.latestProblems(db, appIds)) {
    if (out.has(row.app_id)) continue;
    const p = problemOf(row);
    if (p) out.set(row.app_id, p);
  }
  return out;
}
