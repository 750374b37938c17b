// /f/$appId/work/$itemId: one work item: its facts and claim, acceptance criteria with the artifacts that
// prove each, findings by severity, declared pull requests, artifacts and claim history. An item of another
// factory (or none) is the API's 404: "Not found".
import { Link, createRoute } from '@tanstack/react-router';
import { useQuery, useSuspenseQuery, type UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { factoryRoute } from '../factory/route';
import { STAGE_LABEL } from '../work/query';
import {
  artifactsQuery,
  claimsQuery,
  criteriaQuery,
  findingsQuery,
  itemQuery,
  pullRequestsQuery,
  type Finding,
  type ItemArtifact,
} from './query';
import { formatInt, formatTime } from '../../ui/format';
import { PrLink } from '../../ui/pr';
import { ErrorView, Loading } from '../../ui/states';
import { leaseLeft, useNow } from '../../ui/time';

export const workItemRoute = createRoute({
  getParentRoute: () => factoryRoute,
  path: 'work/$itemId',
  loader: ({ context, params }) => context.queryClient.ensureQueryData(itemQuery(params.appId, params.itemId)),
  component: WorkItemPage,
});

/** Most severe first: the order a reviewer reads them in. */
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
const SEVERITY_TONE: Record<string, string> = { critical: 'bad', high: 'bad', medium: 'warn', low: '', info: '' };

/** A section whose read may fail on its own (a permission the caller lacks) without taking the page down. */
function Section<T>({
  title,
  count,
  q,
  testId,
  children,
}: {
  title: string;
  count?: (d: T) => number;
  q: UseQueryResult<T>;
  testId: string;
  children: (d: T) => ReactNode;
}) {
  return (
    <section data-testid={testId}>
      <h2>
        {title} {q.data !== undefined && count && <span className="muted">{formatInt(count(q.data))}</span>}
      </h2>
      {q.isPending ? <Loading /> : q.isError ? <ErrorView error={q.error} /> : children(q.data)}
    </section>
  );
}

function WorkItemPage() {
  const { appId, itemId } = workItemRoute.useParams();
  const { data: item } = useSuspenseQuery(itemQuery(appId, itemId));
  const now = useNow(1000);
  const criteria = useQuery(criteriaQuery(appId, item.id));
  const findings = useQuery(findingsQuery(appId, item.id));
  const prs = useQuery(pullRequestsQuery(appId, item.id));
  const artifacts = useQuery(artifactsQuery(appId, item.id));
  const claims = useQuery(claimsQuery(appId, item.id));
  const artifactList: ItemArtifact[] = artifacts.data?.data ?? [];

  return (
    <>
      <p className="muted">
        <Link to="/f/$appId/work" params={{ appId }}>
          Work
        </Link>{' '}
        /
      </p>
      <h1 data-testid="work-item-title">
        #{item.number} {item.title}
      </h1>
      <dl className="facts" data-testid="work-item-facts">
        <div data-fact="Stage">
          <dt>Stage</dt>
          <dd>
            {STAGE_LABEL[item.stage] ?? item.stage}
            {item.withdrawn && <span className="chip bad">withdrawn {formatTime(item.withdrawnAt)}</span>}
          </dd>
        </div>
        <div data-fact="Tracker">
          <dt>Tracker</dt>
          <dd className="mono">
            {item.tracker} {item.trackerKey}
          </dd>
        </div>
        <div data-fact="Startable">
          <dt>Startable</dt>
          <dd>
            <span className={`chip ${item.startable ? 'ok' : ''}`}>
              {item.startable ? 'startable' : 'not startable'}
            </span>
          </dd>
        </div>
        <div data-fact="Block class">
          <dt>Block class</dt>
          <dd>
            <span className={`chip ${item.blockClass === 'none' ? '' : 'warn'}`}>
              {item.blockClass === 'none' ? 'not blocked' : `blocked: ${item.blockClass}`}
            </span>
          </dd>
        </div>
        <div data-fact="Section">
          <dt>Section</dt>
          <dd>{item.section || '—'}</dd>
        </div>
        <div data-fact="Repository">
          <dt>Repository</dt>
          <dd className="mono">{item.repository ?? '—'}</dd>
        </div>
        <div data-fact="Spec">
          <dt>Spec</dt>
          <dd className="mono">
            {item.specRepository ? `${item.specRepository}${item.specNumber ? `#${item.specNumber}` : ''}` : '—'}
          </dd>
        </div>
        <div data-fact="Created">
          <dt>Created</dt>
          <dd>{formatTime(item.createdAt)}</dd>
        </div>
        <div data-fact="Updated">
          <dt>Updated</dt>
          <dd>{formatTime(item.updatedAt)}</dd>
        </div>
      </dl>

      <section data-testid="work-item-claim">
        <h2>Claim</h2>
        {item.claim ? (
          <p>
            Claimed by <b>{item.claim.source}</b> for branch{' '}
            <span className="mono">{item.claim.branch ?? '(no branch: a legacy lease)'}</span> since{' '}
            {formatTime(item.claim.claimedAt)}:{' '}
            <span className="chip" data-testid="lease-left">
              {leaseLeft(item.claim.expiresAt, now)}
            </span>{' '}
            <span className="muted">(lease ends {formatTime(item.claim.expiresAt)})</span>
          </p>
        ) : (
          <p className="muted">Nobody holds a claim on this item.</p>
        )}
      </section>

      <Section title="Acceptance criteria" testId="work-item-criteria" q={criteria} count={(d) => d.criteria.length}>
        {(d) =>
          d.criteria.length === 0 ? (
            <p className="muted">No criteria were set for this item.</p>
          ) : (
            <table className="grid">
              <thead>
                <tr>
                  <th>Criterion</th>
                  <th>Text</th>
                  <th>Proved by</th>
                </tr>
              </thead>
              <tbody>
                {d.criteria.map((c) => {
                  const proofs = artifactList.filter((a) => a.criterionId === c.id);
                  return (
                    <tr key={c.id} data-criterion={c.id}>
                      <td className="mono">{c.id}</td>
                      <td>
                        {c.text}
                        {c.proof && <div className="muted">Proof expected: {c.proof}</div>}
                      </td>
                      <td>
                        {artifacts.isPending ? (
                          <span className="muted">…</span>
                        ) : proofs.length === 0 ? (
                          <span className="muted">no artifact</span>
                        ) : (
                          proofs.map((a) => (
                            <div key={a.id}>
                              <Link to="/artifacts/$id" params={{ id: a.id }}>
                                {a.caption || a.filename}
                              </Link>{' '}
                              <span className="chip">{a.kind}</span>
                            </div>
                          ))
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )
        }
      </Section>

      <Section title="Findings" testId="work-item-findings" q={findings} count={(d) => d.total}>
        {(d) =>
          d.findings.length === 0 ? (
            <p className="muted">No findings were recorded on this item.</p>
          ) : (
            <FindingsBySeverity findings={d.findings} />
          )
        }
      </Section>

      <Section title="Pull requests" testId="work-item-prs" q={prs} count={(d) => d.length}>
        {(d) =>
          d.length === 0 ? (
            <p className="muted">No pull request is declared onto this item.</p>
          ) : (
            <table className="grid">
              <thead>
                <tr>
                  <th>Pull request</th>
                  <th>Declared</th>
                  <th>On the code host</th>
                </tr>
              </thead>
              <tbody>
                {d.map((p) => (
                  <tr key={`${p.repository}#${p.number}`}>
                    <td>
                      <PrLink appId={appId} repository={p.repository} number={p.number}>
                        {p.repository}#{p.number}
                      </PrLink>
                    </td>
                    <td>{formatTime(p.linkedAt)}</td>
                    <td>
                      <a href={p.url} target="_blank" rel="noreferrer noopener">
                        {p.url.replace(/^https?:\/\//, '')}
                      </a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Section>

      <Section title="Artifacts" testId="work-item-artifacts" q={artifacts} count={(d) => d.data.length}>
        {(d) =>
          d.data.length === 0 ? (
            <p className="muted">No artifact was sent for this item, its pull requests or its sessions.</p>
          ) : (
            <>
              <table className="grid">
                <thead>
                  <tr>
                    <th>Artifact</th>
                    <th>Kind</th>
                    <th>Proves</th>
                    <th>Pull request</th>
                    <th>Emitted</th>
                  </tr>
                </thead>
                <tbody>
                  {d.data.map((a) => (
                    <tr key={a.id} data-artifact={a.id}>
                      <td>
                        <Link to="/artifacts/$id" params={{ id: a.id }}>
                          {a.caption || a.filename}
                        </Link>
                      </td>
                      <td>{a.kind}</td>
                      <td className="mono">{a.criterionId ?? '—'}</td>
                      <td>
                        {a.prNumber !== null && a.repository ? (
                          <PrLink appId={appId} repository={a.repository} number={a.prNumber}>
                            {a.repository}#{a.prNumber}
                          </PrLink>
                        ) : (
                          '—'
                        )}
                      </td>
                      <td>{formatTime(a.emittedAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {d.pagination.truncated && (
                <p className="muted">The item has more artifacts than the API lists (the oldest 200 are shown).</p>
              )}
            </>
          )
        }
      </Section>

      <Section title="Claim history" testId="work-item-claims" q={claims} count={(d) => d.pagination.total}>
        {(d) =>
          d.data.length === 0 ? (
            <p className="muted">This item was never claimed.</p>
          ) : (
            <table className="grid">
              <thead>
                <tr>
                  <th>Claimed</th>
                  <th>By</th>
                  <th>Branch</th>
                  <th>State</th>
                  <th>Lease until</th>
                  <th>Ended</th>
                </tr>
              </thead>
              <tbody>
                {d.data.map((c) => (
                  <tr key={c.id}>
                    <td>{formatTime(c.claimedAt)}</td>
                    <td>{c.source}</td>
                    <td className="mono">{c.branch ?? '(no branch)'}</td>
                    <td>
                      <span className={`chip ${c.state === 'live' ? 'ok' : c.state === 'expired' ? 'warn' : ''}`}>
                        {c.state}
                      </span>
                    </td>
                    <td>{formatTime(c.expiresAt)}</td>
                    <td>{formatTime(c.endedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Section>
    </>
  );
}

function FindingsBySeverity({ findings }: { findings: Finding[] }) {
  const known = new Set<string>(SEVERITIES);
  const groups = [...SEVERITIES, ...new Set(findings.map((f) => f.severity).filter((s) => !known.has(s)))]
    .map((severity) => ({ severity, items: findings.filter((f) => f.severity === severity) }))
    .filter((g) => g.items.length > 0);
  return (
    <>
      {groups.map((g) => (
        <div key={g.severity} data-severity={g.severity} className="severity-group">
          <h3>
            <span className={`chip ${SEVERITY_TONE[g.severity] ?? ''}`}>{g.severity}</span>{' '}
            <span className="muted">{formatInt(g.items.length)}</span>
          </h3>
          <table className="grid">
            <thead>
              <tr>
                <th>Finding</th>
                <th>About</th>
                <th>Where</th>
                <th>Source</th>
                <th>Recorded</th>
              </tr>
            </thead>
            <tbody>
              {g.items.map((f) => (
                <tr key={f.id}>
                  <td>
                    {f.title}
                    {f.body && <div className="muted">{f.body}</div>}
                  </td>
                  <td>
                    {f.about}
                    {f.rule ? ` · ${f.rule}` : ''}
                  </td>
                  <td className="mono">
                    {f.path ? `${f.path}${f.line ? `:${f.line}` : ''}` : '—'}
                    {f.prNumber ? ` (PR #${f.prNumber})` : ''}
                  </td>
                  <td>{f.source}</td>
                  <td>{formatTime(f.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </>
  );
}
