// The session's "Verification" tab: what the session provably did (GET /v1/sessions/{id} `verification`):
// the commands it ran with their results, the files it edited, the commits it made and the hooks it skipped.
// Each turn links to the transcript at that turn.
import { Link } from '@tanstack/react-router';
import type { SessionDetail } from './query';
import { formatInt } from '../../ui/format';
import { turnHash } from './turnAnchor';

type Verification = NonNullable<SessionDetail['verification']>;
type Run = Verification['runs'][number];

const RESULT_TONE: Record<Run['result'], string> = { pass: 'ok', fail: 'bad', unknown: '' };
const KIND_LABEL: Record<Run['kind'], string> = {
  test: 'test',
  typecheck: 'typecheck',
  lint: 'lint',
  build: 'build',
  install: 'install',
  migrate: 'migrate',
  commit: 'commit',
  push: 'push',
  pr_create: 'PR opened',
  other: 'other',
};

export function VerificationTab({
  appId,
  traceId,
  tier,
  verification,
}: {
  appId: string;
  traceId: string;
  tier: SessionDetail['captureTier'];
  verification: SessionDetail['verification'];
}) {
  if (!verification) {
    return (
      <div className="empty" data-testid="verification-empty">
        {tier === 'metrics' ? (
          <>
            <p>
              This session was captured at the <b>metrics</b> tier: counts and costs only, no tool calls, so there is
              nothing to verify.
            </p>
            <p className="muted">
              At the default <b>redacted</b> tier the CLI records what each command was (a test run, a typecheck, a
              commit) and its result without the command text; at the <b>full</b> tier the text is kept too. A pull
              request whose sessions are all metrics-tier gets no verdict rows from them: a rule with nothing to check
              is left out, never counted as a pass.
            </p>
          </>
        ) : (
          <p>No verification facts are stored for this session.</p>
        )}
      </div>
    );
  }
  const { runs, edits, commits, bypasses } = verification;
  const turn = (n: number) => (
    <Link to="/f/$appId/sessions/$traceId" params={{ appId, traceId }} search={{}} hash={turnHash(n)}>
      #{n}
    </Link>
  );
  const passed = runs.filter((r) => r.result === 'pass').length;
  const failed = runs.filter((r) => r.result === 'fail').length;
  const testEdits = edits.filter((e) => e.test).length;
  const withCommand = runs.some((r) => r.command !== undefined);
  return (
    <div data-testid="verification">
      <p data-testid="verification-summary">
        {formatInt(runs.length)} {runs.length === 1 ? 'command' : 'commands'} ({formatInt(passed)} passed,{' '}
        {formatInt(failed)} failed), {formatInt(edits.length)} {edits.length === 1 ? 'edit' : 'edits'} (
        {formatInt(testEdits)} to test files), {formatInt(commits.length)} {commits.length === 1 ? 'commit' : 'commits'}
        , {formatInt(bypasses.length)} hook {bypasses.length === 1 ? 'bypass' : 'bypasses'}.
      </p>

      <h2>Commands</h2>
      {runs.length === 0 ? (
        <p className="muted">The session ran no shell command.</p>
      ) : (
        <table className="grid" data-testid="verification-runs">
          <thead>
            <tr>
              <th>Turn</th>
              <th>Kind</th>
              <th>Result</th>
              <th>Scope</th>
              {withCommand && <th>Command</th>}
            </tr>
          </thead>
          <tbody>
            {runs.map((r, i) => (
              <tr key={i}>
                <td>{turn(r.turnIndex)}</td>
                <td>{KIND_LABEL[r.kind]}</td>
                <td>
                  <span className={`chip ${RESULT_TONE[r.result]}`}>{r.result}</span>
                </td>
                <td
                  title={
                    r.scope === 'partial'
                      ? 'filtered to some files or names'
                      : r.scope === 'full'
                        ? 'the whole suite'
                        : 'not known'
                  }
                >
                  {r.scope}
                </td>
                {withCommand && <td className="mono">{r.command ?? ''}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {runs.length > 0 && !withCommand && (
        <p className="muted">
          The command text is kept only at the full tier; this session was captured at the {tier} tier.
        </p>
      )}

      <h2>Edits</h2>
      {edits.length === 0 ? (
        <p className="muted">The session edited no file.</p>
      ) : (
        <table className="grid" data-testid="verification-edits">
          <thead>
            <tr>
              <th>Turn</th>
              <th>File</th>
              <th>Test file</th>
            </tr>
          </thead>
          <tbody>
            {edits.map((e, i) => (
              <tr key={i}>
                <td>{turn(e.turnIndex)}</td>
                <td className="mono">{e.file ?? <span className="muted">not kept at this tier</span>}</td>
                <td>{e.test ? <span className="chip">test</span> : <span className="muted">no</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2>Commits</h2>
      {commits.length === 0 ? (
        <p className="muted">The session made no commit.</p>
      ) : (
        <ul data-testid="verification-commits">
          {commits.map((c) => (
            <li key={c} className="mono">
              {c}
            </li>
          ))}
        </ul>
      )}

      <h2>Hook bypasses</h2>
      {bypasses.length === 0 ? (
        <p className="muted">No commit or push skipped the repository's hooks.</p>
      ) : (
        <table className="grid" data-testid="verification-bypasses">
          <thead>
            <tr>
              <th>Turn</th>
              <th>How</th>
            </tr>
          </thead>
          <tbody>
            {bypasses.map((b, i) => (
              <tr key={i}>
                <td>{turn(b.turnIndex)}</td>
                <td>
                  <span className="chip bad mono">{b.how}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
