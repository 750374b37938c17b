// /f/$appId/prs/$owner/$repo/$number: one pull request with its sessions, evidence, checks and work item.
import { ExportButtons } from '../../ui/download';
import { Link, createRoute } from '@tanstack/react-router';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { factoryRoute } from '../factory/route';
import { exportPr, prQuery, workItemQuery, type PrDetail } from './query';
import { Cost, formatInt, formatTime } from '../../ui/format';
import { ArtifactView } from '../../ui/artifact';
import { Tri } from '../../ui/pr';
import { ErrorView, Loading } from '../../ui/states';
import { sessionTitleText } from '../../ui/session-title';
import { GithubAppNotice, StateSource } from '../../ui/github-app-notice';
import { VerdictPanel } from './VerdictPanel';

export const prRoute = createRoute({
  getParentRoute: () => factoryRoute,
  path: 'prs/$owner/$repo/$number',
  loader: ({ context, params }) =>
    context.queryClient.ensureQueryData(prQuery(params.appId, params.owner, params.repo, Number(params.number))),
  component: PrPage,
});

function PrPage() {
  const { appId, owner, repo, number } = prRoute.useParams();
  const { data: pr } = useSuspenseQuery(prQuery(appId, owner, repo, Number(number)));
  const workItemIds = [...new Set(pr.artifacts.map((a) => a.workItemId).filter((id): id is string => id !== null))];
  return (
    <>
      <p className="muted">
        <Link to="/f/$appId/prs" params={{ appId }}>
          Pull requests
        </Link>{' '}
        /
      </p>
      <h1 data-testid="pr-title">
        {pr.repository}#{pr.number}
        {pr.title ? `: ${pr.title}` : ''}
      </h1>
      <GithubAppNotice appId={appId} status={pr.githubApp} />
      <ExportButtons
        download={(format) => exportPr(appId, owner, repo, Number(number), format)}
        label="Export evidence:"
        testId="pr-export"
      />
      <dl className="facts">
        <div>
          <dt>State</dt>
          <dd>
            <span className="chip">{pr.state}</span> <StateSource source={pr.stateSource} />
          </dd>
        </div>
        <div>
          <dt>Merged</dt>
          <dd>
            <Tri value={pr.merged} yes={`merged ${pr.mergedAt ? formatTime(pr.mergedAt) : ''}`} no="not merged" />
          </dd>
        </div>
        <div>
          <dt>Reverted</dt>
          <dd>
            {pr.reverted ? (
              <span className="chip bad">reverted{pr.revertedBy ? ` by #${pr.revertedBy}` : ''}</span>
            ) : (
              <Tri value={pr.reverted} yes="reverted" no="kept" />
            )}
          </dd>
        </div>
        <div>
          <dt>CI</dt>
          <dd>
            <span className={`chip ${pr.ci === 'green' ? 'ok' : pr.ci === 'red' ? 'bad' : ''}`}>{pr.ci}</span>
          </dd>
        </div>
        <div>
          <dt>Branch</dt>
          <dd className="mono">
            {pr.branch ?? '—'}
            {pr.baseBranch ? ` → ${pr.baseBranch}` : ''}
          </dd>
        </div>
        <div>
          <dt>Author</dt>
          <dd>{pr.author ?? '—'}</dd>
        </div>
        <div>
          <dt>Opened</dt>
          <dd>{formatTime(pr.openedAt)}</dd>
        </div>
        <div>
          <dt>On GitHub</dt>
          <dd>
            <a href={pr.url} rel="noreferrer noopener" target="_blank">
              {pr.url.replace(/^https?:\/\//, '')}
            </a>
          </dd>
        </div>
      </dl>

      <VerdictPanel appId={appId} owner={owner} repo={repo} number={Number(number)} sessions={pr.sessionList} />

      <h2>
        Sessions{' '}
        <span className="muted">
          {formatInt(pr.sessions)} · total cost{' '}
          <span data-testid="pr-cost">
            <Cost usd={pr.costUsd} status={pr.costStatus} unpricedModels={pr.unpricedModels} />
          </span>
        </span>
      </h2>
      {pr.sessionList.length === 0 ? (
        <p className="muted">No session is linked to this pull request.</p>
      ) : (
        <table className="grid" data-testid="pr-sessions">
          <thead>
            <tr>
              <th>Session</th>
              <th>Agent</th>
              <th>Started</th>
              <th>Linked by</th>
              <th className="num">Cost</th>
            </tr>
          </thead>
          <tbody>
            {pr.sessionList.map((s) => (
              <tr key={s.traceId}>
                <td>
                  <Link to="/f/$appId/sessions/$traceId" params={{ appId, traceId: s.traceId }}>
                    {sessionTitleText(s.title)}
                  </Link>
                </td>
                <td>{s.agentType}</td>
                <td>{formatTime(s.startedAt)}</td>
                <td>{s.linkedBy.join(', ')}</td>
                <td className="num">
                  <Cost usd={s.costUsd} status={s.costStatus} unpricedModels={s.unpricedModels} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2>
        Evidence <span className="muted">{formatInt(pr.artifacts.length)}</span>
      </h2>
      {pr.artifacts.length === 0 ? (
        <p className="muted">No artifact was sent for this pull request.</p>
      ) : (
        pr.artifacts.map((a) => (
          <section key={a.id} className="artifact" data-artifact={a.id}>
            <header>
              <Link to="/artifacts/$id" params={{ id: a.id }}>
                <b>{a.caption || a.filename}</b>
              </Link>
              <span className="chip">{a.kind}</span>
              {a.criterionId && <span className="chip">proves {a.criterionId}</span>}
              <span className="muted">{formatTime(a.emittedAt)}</span>
            </header>
            <ArtifactView appId={appId} artifact={a} />
          </section>
        ))
      )}

      <Results results={pr.results} />
      {workItemIds.map((id) => (
        <WorkItem key={id} appId={appId} id={id} artifacts={pr.artifacts} />
      ))}
    </>
  );
}

function Results({ results }: { results: PrDetail['results'] }) {
  return (
    <>
      <h2>
        Checks <span className="muted">{formatInt(results.length)}</span>
      </h2>
      {results.length === 0 ? (
        <p className="muted">No CI result was sent for this pull request.</p>
      ) : (
        <table className="grid" data-testid="pr-results">
          <thead>
            <tr>
              <th>Check</th>
              <th>Result</th>
              <th>Run</th>
              <th>Commit</th>
              <th>When</th>
              <th>History</th>
            </tr>
          </thead>
          <tbody>
            {results.map((r) => (
              <tr key={r.name}>
                <td>{r.name}</td>
                <td>
                  <span className={`chip ${r.result === 'pass' ? 'ok' : 'bad'}`}>{r.result}</span>
                </td>
                <td>
                  <a href={r.link} target="_blank" rel="noreferrer noopener">
                    run
                  </a>
                </td>
                <td className="mono">{r.headSha ? r.headSha.slice(0, 10) : '—'}</td>
                <td>{formatTime(r.emittedAt)}</td>
                <td>
                  {r.history.length === 0 ? (
                    <span className="muted">—</span>
                  ) : (
                    r.history.map((h, i) => (
                      <a
                        key={i}
                        href={h.link}
                        target="_blank"
                        rel="noreferrer noopener"
                        title={formatTime(h.emittedAt)}
                      >
                        <span className={`chip ${h.result === 'pass' ? 'ok' : 'bad'}`}>{h.result}</span>
                      </a>
                    ))
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function WorkItem({ appId, id, artifacts }: { appId: string; id: string; artifacts: PrDetail['artifacts'] }) {
  const q = useQuery(workItemQuery(appId, id));
  if (q.isPending) return <Loading />;
  if (q.isError) return <ErrorView error={q.error} />;
  const { item, criteria, findings } = q.data;
  return (
    <section data-testid="work-item">
      <h2>
        Work item #{item.number}: {item.title}
      </h2>
      <p className="muted">
        {item.tracker} {item.trackerKey} · {item.stage}
        {item.withdrawn ? ' · withdrawn' : ''}
      </p>
      <h3>Acceptance criteria</h3>
      {criteria.criteria.length === 0 ? (
        <p className="muted">No criteria.</p>
      ) : (
        <table className="grid" data-testid="criteria">
          <thead>
            <tr>
              <th>Criterion</th>
              <th>Text</th>
              <th>Proved by</th>
            </tr>
          </thead>
          <tbody>
            {criteria.criteria.map((c) => {
              const proofs = artifacts.filter((a) => a.criterionId === c.id);
              return (
                <tr key={c.id}>
                  <td className="mono">{c.id}</td>
                  <td>
                    {c.text}
                    {c.proof && <div className="muted">Proof expected: {c.proof}</div>}
                  </td>
                  <td>
                    {proofs.length === 0 ? (
                      <span className="muted">no artifact</span>
                    ) : (
                      proofs.map((a) => (
                        <div key={a.id}>
                          <Link to="/artifacts/$id" params={{ id: a.id }}>
                            {a.caption || a.filename}
                          </Link>
                        </div>
                      ))
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <h3>
        Findings <span className="muted">{formatInt(findings.pagination.total)}</span>
      </h3>
      {findings.data.length === 0 ? (
        <p className="muted">No findings.</p>
      ) : (
        <table className="grid" data-testid="findings">
          <thead>
            <tr>
              <th>Severity</th>
              <th>Finding</th>
              <th>Where</th>
              <th>Source</th>
            </tr>
          </thead>
          <tbody>
            {findings.data.map((f) => (
              <tr key={f.id}>
                <td>
                  <span
                    className={
                      `chip ` +
                      `${f.severity === 'error' || f.severity === 'high' || f.severity === 'critical' ? 'bad' : 'warn'}`
                    }
                  >
                    {f.severity}
                  </span>
                </td>
                <td>
                  {f.title}
                  {f.body && <div className="muted">{f.body}</div>}
                </td>
                <td className="mono">{f.path ? `${f.path}${f.line ? `:${f.line}` : ''}` : '—'}</td>
                <td>
                  {f.source}
                  {f.rule ? ` · ${f.rule}` : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
