// The CI verdict of a head commit from its checks' summaries: read by the PR answers (state.ts) and kept in the
// PR outcomes by verdict (outcome-aggregates.ts).
import type { CheckSummary } from './store.js';

export type CiVerdict = 'green' | 'red' | 'pending' | 'unknown';

/**
 * Check runs decide when there are any: a suite can stay `queued` forever for an installed App that never runs
 * checks. Without runs, the suites decide. Any failed check → red; all completed → green; otherwise pending; no
 * checks at all → unknown.
 */
export function ciVerdict(summaries: readonly CheckSummary[], repository: string, headSha: string): CiVerdict {
  const mine = summaries.filter((s) => s.repository === repository && s.head_sha === headSha);
  const runs = mine.find((s) => s.kind === 'run');
  const decider = runs ?? mine.find((s) => s.kind === 'suite');
  if (!decider || decider.total === 0) return 'unknown';
  if (decider.failed > 0) return 'red';
  if (decider.completed === decider.total) return 'green';
  return 'pending';
}
