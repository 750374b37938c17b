// The verdict panel of the PR page (GET /v1/prs/{owner}/{repo}/{number}/verdict): the verdict, how many rows
// need a person's look, and each row with the turns that prove it, linked to the session at that turn.
import { Link } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { verdictQuery, type PrDetail, type PrVerdict } from './query';
import { formatInt, formatTime } from '../../ui/format';
import { ErrorView, Loading } from '../../ui/states';
import { VerdictChip } from '../../ui/verdict';
import { turnHash } from '../session/turnAnchor';

type Row = PrVerdict['rows'][number];
type Ref = Row['refs'][number];

const STATUS_TONE: Record<Row['status'], string> = { pass: 'ok', flag: 'warn', fail: 'bad', error: 'bad' };

/** What the verdict means for this PR, in a sentence. */
function summary(v: PrVerdict): string {
  switch (v.verdict) {
    case 'clean':
      return 'Every row that counts passed.';
    case 'review':
      return `${formatInt(v.flagged)} ${v.flagged === 1 ? 'row needs' : 'rows need'} a person's look.`;
    case 'unverifiable':
      return 'A row of the failing class fired: the sessions cannot vouch for this change.';
    case 'waiting':
      return 'The linked sessions have not arrived yet; the verdict follows when they do.';
    case 'none':
      return 'No agent session is linked to this pull request: nothing to judge.';
  }
}

export function VerdictPanel({
  appId,
  owner,
  repo,
  number,
  sessions,
}: {
  appId: string;
  owner: string;
  repo: string;
  number: number;
  sessions: PrDetail['sessionList'];
}) {
  const q = useQuery(verdictQuery(appId, owner, repo, number));
  if (q.isPending) return <Loading />;
  if (q.isError) return <ErrorView error={q.error} />;
  const v = q.data;
  const titles = new Map(sessions.map((s) => [s.traceId, s.title || s.sessionId]));
  const traces = new Set(v.rows.flatMap((r) => r.refs.map((ref) => ref.traceId)));
  return (
    <section data-testid="verdict">
      <h2>
        Verdict <VerdictChip verdict={v.verdict} flagged={v.flagged} />
      </h2>
      <p data-testid="verdict-summary">{summary(v)}</p>
      <p className="muted" data-testid="verdict-source">
        Evaluated {formatTime(v.evaluatedAt)}
        {v.headSha ? (
          <>
            {' '}
            at <span className="mono">{v.headSha.slice(0, 7)}</span>
          </>
        ) : null}
        {' · policy: '}
        {v.policy.source === 'default' ? (
          'the default (the repository has no .attest/policy.yaml)'
        ) : (
          <span className="mono">{v.policy.source}</span>
        )}
      </p>
      {v.policy.errors.length > 0 && (
        <div className="notice" data-testid="verdict-policy-errors">
          The repository's policy files have problems; the rest of the policy applies:
          <ul>
            {v.policy.errors.map((e, i) => (
              <li key={i}>
                <span className="mono">{e.file}</span>: {e.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {v.rows.length > 0 && (
        <table className="grid" data-testid="verdict-rows">
          <thead>
            <tr>
              <th>Check</th>
              <th>Status</th>
              <th>Level</th>
              <th>What the sessions show</th>
              <th>Proof</th>
            </tr>
          </thead>
          <tbody>
            {v.rows.map((r, i) => (
              <tr key={`${i}:${r.validator}`} data-validator={r.validator}>
                <td className="mono">{r.validator}</td>
                <td>
                  <span className={`chip ${r.level === 'info' ? '' : STATUS_TONE[r.status]}`}>{r.status}</span>
                </td>
                <td>
                  <span
                    className="chip"
                    title={
                      r.level === 'info'
                        ? 'shown, never counted'
                        : r.level === 'block'
                          ? 'fails the check when it does not pass'
                          : 'counts toward the verdict'
                    }
                  >
                    {r.level}
                  </span>
                </td>
                <td>{r.sentence}</td>
                <td>
                  {r.refs.length === 0 ? (
                    <span className="muted">—</span>
                  ) : (
                    r.refs.map((ref, i) => (
                      <div key={i}>
                        <TurnLink
                          appId={appId}
                          ref_={ref}
                          session={traces.size > 1 ? (titles.get(ref.traceId) ?? ref.sessionId) : null}
                        />
                      </div>
                    ))
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** A link to the session at the turn; the session's name too when the rows point into several sessions. */
function TurnLink({ appId, ref_, session }: { appId: string; ref_: Ref; session: string | null }) {
  return (
    <Link
      to="/f/$appId/sessions/$traceId"
      params={{ appId, traceId: ref_.traceId }}
      hash={turnHash(ref_.turnIndex)}
      data-ref={`${ref_.traceId}#${ref_.turnIndex}`}
    >
      {session ? `${session} · ` : ''}turn #{ref_.turnIndex}
    </Link>
  );
}
