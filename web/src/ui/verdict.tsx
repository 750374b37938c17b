// The verdict of a pull request as a chip, shared by the PR list, the PR page and the overview.
import type { paths } from '../api/client';

type VerdictAnswer = paths['/v1/prs/{owner}/{repo}/{number}/verdict']['get']['responses']['200'];
export type Verdict = VerdictAnswer['content']['application/json']['data']['verdict'];

/** Every verdict, in the order a person reads them: from "nothing to do" to "nothing to judge". */
export const VERDICTS: readonly Verdict[] = ['clean', 'review', 'unverifiable', 'waiting', 'none'];

export const VERDICT_LABEL: Record<Verdict, string> = {
  clean: 'clean',
  review: 'review',
  unverifiable: 'unverifiable',
  waiting: 'waiting for sessions',
  none: 'no agent session',
};

/** What each verdict means, as the chip's title and the filter's help. */
export const VERDICT_HELP: Record<Verdict, string> = {
  clean: 'Every row that counts passed',
  review: "Some rows need a person's look",
  unverifiable: 'A row of the failing class fired (e.g. hooks bypassed): the sessions cannot vouch for this change',
  waiting: 'The linked sessions have not arrived yet',
  none: 'No agent session is linked: a human pull request, left alone',
};

const TONE: Record<Verdict, string> = { clean: 'ok', review: 'warn', unverifiable: 'bad', waiting: '', none: '' };

/** The verdict, with the number of flagged rows (when given) where there is something to review. */
export function VerdictChip({ verdict, flagged }: { verdict: Verdict; flagged?: number }) {
  return (
    <span className={`chip ${TONE[verdict]}`} data-verdict={verdict} title={VERDICT_HELP[verdict]}>
      {VERDICT_LABEL[verdict]}
      {flagged !== undefined && (verdict === 'review' || (verdict === 'unverifiable' && flagged > 0))
        ? ` · ${flagged} flagged`
        : ''}
    </span>
  );
}
