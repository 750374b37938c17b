// The Overview's comparison of PRs by verdict (issue 39 §5): in a window, for each verdict, how many PRs,
// how many merged, how many were reverted, how many had CI fail at their head. That is how a team sees
// whether "review" PRs really go bad more often. A PR counts in the window its opening falls in (its
// first linked session when the code host never told the opening); its verdict is its latest evaluation.
import { VERDICTS, type Verdict } from '../../verify/index.js';
import type { FactoryContext } from '../../server/context.js';
import { windowOf } from '../metrics/service.js';
import { outcomesWithVerdicts } from './outcomes.js';
import type { VerdictBucketWire, VerdictOverviewWire } from './schema.js';

export async function verdictOverview(
  ctx: FactoryContext,
  q: { from?: string; to?: string; repo?: string },
): Promise<VerdictOverviewWire> {
  const w = windowOf(ctx.clock.now(), q.from, q.to);
  const all = await outcomesWithVerdicts(ctx, {
    limit: Number.MAX_SAFE_INTEGER,
    offset: 0,
    ...(q.repo !== undefined ? { repo: q.repo } : {}),
  });
  const buckets = new Map<Verdict, VerdictBucketWire>(
    VERDICTS.map((v) => [v, { verdict: v, prs: 0, merged: 0, reverted: 0, ciFailures: 0 }]),
  );
  for (const o of all.data) {
    const at = Date.parse(o.openedAt ?? o.firstSessionAt ?? '');
    if (!Number.isFinite(at) || at < w.from || at >= w.to) continue;
    const b = buckets.get(o.verdict)!;
    b.prs++;
    if (o.merged) b.merged++;
    if (o.reverted) b.reverted++;
    if (o.ciGreen === false) b.ciFailures++;
  }
  return {
    window: { from: new Date(w.from).toISOString(), to: new Date(w.to).toISOString() },
    verdicts: [...buckets.values()],
  };
}
