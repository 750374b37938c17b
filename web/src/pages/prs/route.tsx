// /f/$appId/prs: the factory's pull requests with their outcomes (GET /v1/prs/outcomes).
import { createRoute, useNavigate } from '@tanstack/react-router';
import { useSuspenseQuery } from '@tanstack/react-query';
import { createColumnHelper, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { factoryRoute } from '../factory/route';
import { parsePrsSearch, prsQuery, type PrsSearch } from './query';
import { Cost, formatInt, formatTime } from '../../ui/format';
import { PrLink, Tri } from '../../ui/pr';
import { GithubAppNotice, StateSource } from '../../ui/github-app-notice';
import { Grid, Pager } from '../../ui/grid';
import { VERDICT_HELP, VERDICT_LABEL, VERDICTS, VerdictChip } from '../../ui/verdict';

export const prsRoute = createRoute({
  getParentRoute: () => factoryRoute,
  path: 'prs',
  validateSearch: parsePrsSearch,
  loaderDeps: ({ search }) => search,
  loader: ({ context, params, deps }) => context.queryClient.ensureQueryData(prsQuery(params.appId, deps)),
  component: PrsPage,
});

type Row = Awaited<ReturnType<NonNullable<ReturnType<typeof prsQuery>['queryFn']>>>['data'][number];
const col = createColumnHelper<Row>();

function PrsPage() {
  const { appId } = prsRoute.useParams();
  const search = prsRoute.useSearch();
  const { data } = useSuspenseQuery(prsQuery(appId, search));
  const navigate = useNavigate({ from: prsRoute.fullPath });
  const [repo, setRepo] = useState(search.repo ?? '');
  const set = (change: Partial<PrsSearch>) =>
    void navigate({
      search: (prev: PrsSearch) => {
        const next: Record<string, unknown> = { ...prev, ...change };
        if (!('offset' in change)) delete next.offset;
        for (const [k, v] of Object.entries(next)) if (v === undefined || v === '') delete next[k];
        return next as PrsSearch;
      },
    });
  const columns = useMemo(
    () => [
      col.accessor('number', {
        header: 'Pull request',
        cell: (c) => (
          <>
            <PrLink appId={appId} repository={c.row.original.repository} number={c.getValue()} url={c.row.original.url}>
              {c.row.original.repository}#{c.getValue()}
            </PrLink>
            <div>{c.row.original.title ?? <span className="muted">(title unknown)</span>}</div>
            {c.row.original.branch && <div className="muted mono">{c.row.original.branch}</div>}
          </>
        ),
      }),
      col.accessor('verdict', {
        header: 'Verdict',
        cell: (c) => <VerdictChip verdict={c.getValue()} flagged={c.row.original.flagged} />,
      }),
      col.accessor('state', {
        header: 'State',
        cell: (c) => (
          <>
            <span className="chip" data-testid="pr-state">
              {c.getValue()}
            </span>{' '}
            <StateSource source={c.row.original.stateSource} />
          </>
        ),
      }),
      col.accessor('merged', {
        header: 'Merged',
        cell: (c) => <Tri value={c.getValue()} yes="merged" no="not merged" />,
      }),
      col.accessor('reverted', {
        header: 'Reverted',
        cell: (c) =>
          c.getValue() === true ? (
            <span className="chip bad">reverted</span>
          ) : (
            <Tri value={c.getValue()} yes="reverted" no="kept" />
          ),
      }),
      col.accessor('ciGreen', {
        header: 'CI',
        cell: (c) =>
          c.getValue() === false ? (
            <span className="chip bad">red</span>
          ) : (
            <Tri value={c.getValue()} yes="green" no="red" />
          ),
      }),
      col.accessor('sessions', { header: 'Sessions', cell: (c) => formatInt(c.getValue()), meta: { num: true } }),
      col.accessor('costUsd', {
        header: 'Cost',
        cell: (c) => (
          <Cost usd={c.getValue()} status={c.row.original.costStatus} unpricedModels={c.row.original.unpricedModels} />
        ),
        meta: { num: true },
      }),
      col.accessor('lastSessionAt', { header: 'Last session', cell: (c) => formatTime(c.getValue()) }),
    ],
    [appId],
  );
  const table = useReactTable({
    data: data.data,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (r) => `${r.repository}#${r.number}`,
  });
  const { total, limit, offset } = data.pagination;
  return (
    <>
      <h1>
        Pull requests{' '}
        <span className="muted" data-testid="prs-total">
          {formatInt(total)}
        </span>
      </h1>
      <GithubAppNotice appId={appId} status={data.githubApp} />
      <div className="filters">
        <label>
          State
          <select
            name="state"
            value={search.state ?? ''}
            onChange={(e) => set({ state: (e.target.value || undefined) as PrsSearch['state'] })}
          >
            <option value="">Any</option>
            {['open', 'merged', 'closed', 'unknown'].map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Verdict
          <select
            name="verdict"
            value={search.verdict ?? ''}
            onChange={(e) => set({ verdict: e.target.value || undefined })}
          >
            <option value="">Any</option>
            {/* Not "none": the list holds PRs with sessions, and a PR with a session always has a verdict. */}
            {VERDICTS.filter((v) => v !== 'none').map((v) => (
              <option key={v} value={v} title={VERDICT_HELP[v]}>
                {VERDICT_LABEL[v]}
              </option>
            ))}
            <option value="review,unverifiable">review or unverifiable</option>
            {search.verdict && search.verdict !== 'review,unverifiable' && search.verdict.includes(',') && (
              <option value={search.verdict}>{search.verdict.split(',').join(' or ')}</option>
            )}
          </select>
        </label>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            set({ repo: repo.trim() || undefined });
          }}
        >
          <label>
            Repository
            <input name="repo" placeholder="owner/repo" value={repo} onChange={(e) => setRepo(e.target.value)} />
          </label>
        </form>
      </div>
      {data.data.length === 0 ? (
        <div className="empty">
          <p>
            No pull request{' '}
            {search.state || search.repo || search.verdict ? 'matches these filters' : 'is known to this factory yet'}.
          </p>
          {!search.state && !search.repo && !search.verdict && (
            <p className="muted">
              A pull request appears here once a session names it, its branch has sessions, the GitHub App reports it,
              or evidence (an artifact, a CI result) is sent for it.
            </p>
          )}
        </div>
      ) : (
        <Grid table={table} testId="prs-table" />
      )}
      <Pager total={total} offset={offset} limit={limit} onOffset={(next) => set({ offset: next })} />
    </>
  );
}
