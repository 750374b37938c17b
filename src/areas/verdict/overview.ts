// The Overview's comparison of PRs by verdict (issue 39 §5): in a window, for each verdict, how many PRs,
// how many merged, how many were reverted, how many had CI fail at their head. That is how a team sees
// whether "review" PRs really go bad more often. A PR counts in the window its opening falls in (its
// first linked session when the code host never told the opening); its verdict is its latest evaluation.
// Read from one row per linked PR kept at write time (prs area, outcome-aggregates.ts): the PRs opened in the
// window, never the factory's sessions. A PR of the window without a stored evaluation is evaluated now, once
// (as the outcomes list does), and counts with that verdict.
import { VERDICTS, type Verdict } from '../../verify/index.js';
import type { FactoryContext } from '../../server/context.js';
import { windowOf } from '../metrics/service.js';
import { prOutcomesByVerdict } from '../prs/service.js';
import { pullRequestVerdict } from './service.js';
import type { VerdictBucketWire, VerdictOverviewWire } from './schema.js';

export async function verdictOverview(
  ctx: FactoryContext,
  q: { from?: string; to?: string; repo?: string },
): Promise<VerdictOverviewWire> {
  const w = windowOf(ctx.clock.now(), q.from, q.to);
  const { counts, unevaluated } = await prOutcomesByVerdict(ctx, w, q.repo);
  const buckets = new Map<Verdict, VerdictBucketWire>(
    VERDICTS.map((v) => [v, { verdict: v, prs: 0, merged: 0, reverted: 0, ciFailures: 0 }]),
  );
  const add = (verdict: string, c: { prs: number; merged: number; reverted: number; ciFailures: number }) => {
    const b = buckets.get(verdict as Verdict);
    if (!b) return;
    b.prs += c.prs;
    b.merged += c.merged;
    b.reverted += c.reverted;
    b.ciFailures += c.ciFailures;
  };
  for (const c of counts) if (c.verdict !== null) add(c.verdict, c);
  for (const pr of unevaluated) {
    const [owner, name] = pr.repository.split('/') as [string, string];
    const made = await pullRequestVerdict(ctx, owner, name, pr.number, { fetch: false });
    add(made.wire.verdict, { prs: 1, merged: pr.merged, reverted: pr.reverted, ciFailures: pr.ciFailed });
  }
  return {
    window: { from: new Date(w.from).toISOString(), to: new Date(w.to).toISOString() },
    verdicts: [...buckets.values()],
  };
}
