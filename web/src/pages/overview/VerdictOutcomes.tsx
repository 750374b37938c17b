// The Overview's comparison of pull requests by verdict (GET /v1/metrics/verdicts): for the PRs opened in the
// window, per verdict, how many there were, how many merged, were reverted, or had CI fail at their head. That
// is how a team sees whether "review" PRs really go bad more often than "clean" ones.
import { useQuery } from '@tanstack/react-query';
import { verdictsQuery } from './query';
import { formatInt } from '../../ui/format';
import { VERDICT_HELP, VerdictChip } from '../../ui/verdict';

/** `n`, and beside it its share of the verdict's PRs (the API's two counts, side by side). */
function Count({ n, of }: { n: number; of: number }) {
  return (
    <>
      {formatInt(n)}
      {of > 0 && <span className="muted"> ({((n / of) * 100).toFixed(0)}%)</span>}
    </>
  );
}

export function VerdictOutcomes({ appId, w }: { appId: string; w: { from: string; to: string } }) {
  const q = useQuery(verdictsQuery(appId, w));
  return (
    <>
      <h2>Pull requests by verdict</h2>
      {q.isPending ? (
        <p className="muted">Loading…</p>
      ) : q.isError ? (
        <p className="error-text">{q.error.message}</p>
      ) : q.data.verdicts.every((v) => v.prs === 0) ? (
        <p className="empty" data-testid="verdict-outcomes-empty">
          No pull request was opened in this window.
        </p>
      ) : (
        <>
          <p className="muted">Pull requests opened in the window, by their latest verdict, and what became of them.</p>
          <table className="grid" data-testid="verdict-outcomes" style={{ maxWidth: 820 }}>
            <thead>
              <tr>
                <th>Verdict</th>
                <th className="num">Pull requests</th>
                <th className="num">Merged</th>
                <th className="num">Reverted</th>
                <th className="num">CI failed</th>
              </tr>
            </thead>
            <tbody>
              {q.data.verdicts.map((v) => (
                <tr key={v.verdict} data-verdict-row={v.verdict} title={VERDICT_HELP[v.verdict]}>
                  <td>
                    <VerdictChip verdict={v.verdict} />
                  </td>
                  <td className="num">{formatInt(v.prs)}</td>
                  <td className="num">
                    <Count n={v.merged} of={v.prs} />
                  </td>
                  <td className="num">
                    <Count n={v.reverted} of={v.prs} />
                  </td>
                  <td className="num">
                    <Count n={v.ciFailures} of={v.prs} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </>
  );
}
