// Pull-request pieces shared by the sessions, session and PR pages.
import { Link } from '@tanstack/react-router';

/** owner, repo and number of a pull request from its URL (https://host/owner/repo/pull/N) or a repository name. */
export function prParts(
  repository: string | null | undefined,
  number: number,
  url?: string,
): { owner: string; repo: string; number: string } | null {
  const m = url ? /\/([^/]+)\/([^/]+)\/pull\/(\d+)\/?$/.exec(url) : null;
  if (m) return { owner: m[1]!, repo: m[2]!, number: m[3]! };
  const r = repository ? /^([^/]+)\/([^/]+)$/.exec(repository) : null;
  return r ? { owner: r[1]!, repo: r[2]!, number: String(number) } : null;
}

export function PrLink({
  appId,
  repository,
  number,
  url,
  children,
}: {
  appId: string;
  repository: string | null | undefined;
  number: number;
  url?: string;
  children?: React.ReactNode;
}) {
  const p = prParts(repository, number, url);
  const label = children ?? `#${number}`;
  if (!p) return <span>{label}</span>;
  return (
    <Link to="/f/$appId/prs/$owner/$repo/$number" params={{ appId, ...p }}>
      {label}
    </Link>
  );
}

interface Signal {
  label: string;
  score: number;
}
export interface PrOutcome {
  prNumber: number;
  prUrl: string;
  ciGreen: Signal;
  merged: Signal;
  reverted: Signal;
}

function tone(s: Signal): string {
  return s.score >= 1 ? 'ok' : s.score <= 0 ? 'bad' : '';
}

/** One chip per PR with its merged / reverted / CI signals as the API labelled them; links to the PR page. */
export function PrOutcomeChips({ appId, repo, outcomes }: { appId: string; repo: string; outcomes: PrOutcome[] }) {
  if (outcomes.length === 0) return <span className="muted">—</span>;
  return (
    <>
      {outcomes.map((o) => (
        <span key={o.prNumber} className="pr-outcome">
          <PrLink appId={appId} repository={repo} number={o.prNumber} url={o.prUrl}>
            #{o.prNumber}
          </PrLink>{' '}
          <span className={`chip ${tone(o.merged)}`}>
            {o.merged.label === 'unknown' ? 'state unknown' : o.merged.label}
          </span>
          {o.reverted.label === 'reverted' && <span className="chip bad">reverted</span>}
          <span className={`chip ${tone(o.ciGreen)}`}>CI {o.ciGreen.label}</span>
        </span>
      ))}
    </>
  );
}

export function Tri({ value, yes, no }: { value: boolean | null; yes: string; no: string }) {
  if (value === null) return <span className="muted">unknown</span>;
  return <span className={`chip ${value ? 'ok' : ''}`}>{value ? yes : no}</span>;
}
