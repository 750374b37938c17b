import { useMemo, useState } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { useSuspenseQuery } from '@tanstack/react-query';
import { createColumnHelper, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import { sessionsRoute } from './route';
import { ExportButtons } from '../../ui/download';
import {
  PAGE_SIZE,
  SIGNAL_NAMES,
  exportSessions,
  sessionsQuery,
  type SessionRow,
  type SessionsAnswer,
  type SessionsSearch,
} from './query';
import { Cost, formatDuration, formatInt, formatTime } from '../../ui/format';
import { PrOutcomeChips } from '../../ui/pr';
import { Grid, Pager } from '../../ui/grid';
import { sessionTitleText } from '../../ui/session-title';

type SortKey = NonNullable<SessionsSearch['sort']>;
const col = createColumnHelper<SessionRow>();

export function SessionsPage() {
  const { appId } = sessionsRoute.useParams();
  const search = sessionsRoute.useSearch();
  const { data } = useSuspenseQuery(sessionsQuery(appId, search));
  const navigate = useNavigate({ from: sessionsRoute.fullPath });
  const setSearch = (change: Partial<SessionsSearch>, keepOffset = false) =>
    void navigate({
      search: (prev: SessionsSearch) => {
        const next: Record<string, unknown> = { ...prev, ...change };
        if (!keepOffset) delete next.offset;
        for (const [k, v] of Object.entries(next)) if (v === undefined || v === '') delete next[k];
        return next as SessionsSearch;
      },
    });

  const filtered = Object.keys(search).some((k) => !['sort', 'dir', 'limit', 'offset'].includes(k));
  if (data.total === 0 && !filtered && data.repositoriesTotal === 0) return <FirstSessionHowTo />;

  return (
    <>
      <h1>
        Sessions{' '}
        <span className="muted" data-testid="sessions-total">
          {formatInt(data.total)}
        </span>
      </h1>
      <ExportButtons
        download={(format) => exportSessions(appId, search, format)}
        label="Export these sessions:"
        testId="sessions-export"
      />
      <Filters data={data} search={search} setSearch={setSearch} />
      {data.hiddenSessions > 0 && (
        <div className="notice" data-testid="hidden-sessions">
          Showing <b>{data.repo}</b> only: {formatInt(data.hiddenSessions)} more session
          {data.hiddenSessions === 1 ? '' : 's'} in {formatInt(data.hiddenRepositories)} other repositor
          {data.hiddenRepositories === 1 ? 'y' : 'ies'}.{' '}
          <button onClick={() => setSearch({ repoScope: 'all', repo: undefined })}>All repositories</button>
        </div>
      )}
      {data.sessions.length === 0 ? (
        <p className="empty">No session matches these filters.</p>
      ) : (
        <SessionTable appId={appId} rows={data.sessions} search={search} setSearch={setSearch} />
      )}
      <Pager
        total={data.total}
        offset={search.offset ?? 0}
        limit={search.limit ?? PAGE_SIZE}
        onOffset={(offset) => setSearch({ offset }, true)}
      />
    </>
  );
}

function FirstSessionHowTo() {
  const origin = window.location.origin;
  return (
    <div className="empty" data-testid="sessions-empty">
      <h1>No sessions yet</h1>
      <p>
        This factory has not received a session. On a machine where you run a coding agent, log in to this gateway and
        send your sessions:
      </p>
      <pre>{`attest login --url ${origin}\nattest sync`}</pre>
      <p className="muted">
        `attest sync` reads the agents' transcripts on that machine and sends new sessions; run it again (or from a
        hook) to send more.
      </p>
    </div>
  );
}

type SetSearch = (change: Partial<SessionsSearch>, keepOffset?: boolean) => void;

function Select({
  label,
  name,
  value,
  options,
  onChange,
  all = 'Any',
}: {
  label: string;
  name: string;
  value: string | undefined;
  options: Array<[string, string]>;
  onChange: (v: string | undefined) => void;
  all?: string;
}) {
  return (
    <label>
      {label}
      <select name={name} value={value ?? ''} onChange={(e) => onChange(e.target.value || undefined)}>
        <option value="">{all}</option>
        {value !== undefined && !options.some(([v]) => v === value) && <option value={value}>{value}</option>}
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

const dateOnly = (iso: string | undefined) => (iso ? iso.slice(0, 10) : '');

function Filters({ data, search, setSearch }: { data: SessionsAnswer; search: SessionsSearch; setSearch: SetSearch }) {
  const [q, setQ] = useState(search.q ?? '');
  const repoValue = search.repoScope === 'all' ? '*' : search.repo;
  return (
    <div className="filters" role="search">
      <label>
        Repository
        <select
          name="repo"
          value={repoValue ?? ''}
          onChange={(e) => {
            const v = e.target.value;
            if (v === '*') setSearch({ repoScope: 'all', repo: undefined });
            else setSearch({ repoScope: undefined, repo: v || undefined });
          }}
        >
          <option value="">{data.repo ? `${data.repo} (most sessions)` : 'Most sessions'}</option>
          <option value="*">All repositories</option>
          {data.repositories.map((r) => (
            <option key={r.repo} value={r.repo}>
              {r.repo} ({formatInt(r.sessions)})
            </option>
          ))}
        </select>
      </label>
      <Select
        label="Branch"
        name="branch"
        value={search.branch}
        options={data.branches.map((b) => [b, b])}
        onChange={(v) => setSearch({ branch: v })}
      />
      <Select
        label="Agent"
        name="agentType"
        value={search.agentType}
        options={data.agentTypes.map((b) => [b, b])}
        onChange={(v) => setSearch({ agentType: v })}
      />
      <Select
        label="Model"
        name="model"
        value={search.model}
        options={data.models.map((b) => [b, b])}
        onChange={(v) => setSearch({ model: v })}
      />
      <Select
        label="Worker"
        name="workerKind"
        value={search.workerKind}
        options={data.workerKinds.map((b) => [b, b])}
        onChange={(v) => setSearch({ workerKind: v })}
      />
      {data.scope === 'team' && (
        <Select
          label="Actor"
          name="actor"
          value={search.actor}
          options={data.actors.map((a) => [a, data.actorNames[a] ?? a])}
          onChange={(v) => setSearch({ actor: v })}
        />
      )}
      <Select
        label="Origin"
        name="origin"
        value={search.origin}
        options={(['interactive', 'agent', 'worker'] as const).map((o) => [
          o,
          `${o} (${formatInt(data.originCounts[o])})`,
        ])}
        onChange={(v) => setSearch({ origin: v })}
      />
      <Select
        label="Signal"
        name="signal"
        value={search.signal}
        options={SIGNAL_NAMES.map((s) => [s, s])}
        onChange={(v) => setSearch({ signal: v as SessionsSearch['signal'] })}
      />
      <label>
        From
        <input
          type="date"
          name="from"
          value={dateOnly(search.from)}
          onChange={(e) => setSearch({ from: e.target.value ? `${e.target.value}T00:00:00.000Z` : undefined })}
        />
      </label>
      <label>
        To
        <input
          type="date"
          name="to"
          value={dateOnly(search.to)}
          onChange={(e) => setSearch({ to: e.target.value ? `${e.target.value}T23:59:59.999Z` : undefined })}
        />
      </label>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setSearch({ q: q.trim() || undefined });
        }}
      >
        <label>
          Title
          <input type="search" name="q" placeholder="Search titles" value={q} onChange={(e) => setQ(e.target.value)} />
        </label>
      </form>
      <label style={{ flexDirection: 'row', alignItems: 'center', gap: 4 }}>
        <input
          type="checkbox"
          name="includeSubagents"
          checked={search.includeSubagents === '1'}
          onChange={(e) => setSearch({ includeSubagents: e.target.checked ? '1' : undefined })}
        />
        subagents
      </label>
    </div>
  );
}

function SessionTable({
  appId,
  rows,
  search,
  setSearch,
}: {
  appId: string;
  rows: SessionRow[];
  search: SessionsSearch;
  setSearch: SetSearch;
}) {
  const sortHeader = (label: string, key: SortKey) => {
    const active = (search.sort ?? 'startedAt') === key;
    const dir = search.dir ?? 'desc';
    return (
      <button
        onClick={() => setSearch({ sort: key, dir: active && dir === 'desc' ? 'asc' : 'desc' })}
        aria-sort={active ? (dir === 'asc' ? 'ascending' : 'descending') : undefined}
      >
        {label}
        {active ? (dir === 'asc' ? ' ▲' : ' ▼') : ''}
      </button>
    );
  };
  const columns = useMemo(
    () => [
      col.accessor('title', {
        header: 'Session',
        cell: (c) => (
          <>
            <Link to="/f/$appId/sessions/$traceId" params={{ appId, traceId: c.row.original.traceId }}>
              {sessionTitleText(c.getValue())}
            </Link>
            {c.row.original.isSubagent && <span className="chip">subagent</span>}
            <div className="muted">
              {c.row.original.repo}
              {c.row.original.branch ? ` · ${c.row.original.branch}` : ''}
            </div>
          </>
        ),
      }),
      col.accessor('agentType', {
        header: 'Agent',
        cell: (c) => (
          <>
            {c.getValue()}
            <div className="muted">{c.row.original.models.join(', ')}</div>
          </>
        ),
      }),
      col.accessor('actorName', { header: 'Actor', cell: (c) => c.getValue() || c.row.original.actorId }),
      col.accessor('startedAt', {
        header: () => sortHeader('Started', 'startedAt'),
        cell: (c) => formatTime(c.getValue()),
      }),
      col.accessor('durationMs', {
        header: 'Duration',
        cell: (c) => formatDuration(c.getValue()),
        meta: { num: true },
      }),
      col.accessor('turnCount', {
        header: () => sortHeader('Turns', 'turns'),
        cell: (c) => formatInt(c.getValue()),
        meta: { num: true },
      }),
      col.accessor('errorCount', {
        header: () => sortHeader('Errors', 'errors'),
        cell: (c) => formatInt(c.getValue()),
        meta: { num: true },
      }),
      col.accessor('costUsd', {
        header: () => sortHeader('Cost', 'cost'),
        cell: (c) => (
          <Cost usd={c.getValue()} status={c.row.original.costStatus} unpricedModels={c.row.original.unpricedModels} />
        ),
        meta: { num: true },
      }),
      col.accessor('prOutcomes', {
        header: 'Pull requests',
        cell: (c) => <PrOutcomeChips appId={appId} repo={c.row.original.repo} outcomes={c.getValue()} />,
      }),
    ],
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [appId, search.sort, search.dir],
  );
  const table = useReactTable({
    data: rows,
    columns,
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
    getRowId: (r) => r.traceId,
  });
  return <Grid table={table} testId="sessions-table" />;
}
