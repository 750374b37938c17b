// `/f/$appId`: the factory home. Tiles of the window with their change against the prior window (or two
// windows side by side in compare mode), the daily trend, the model mix and ranked breakdowns.
import { createRoute, redirect, useNavigate } from '@tanstack/react-router';
import { useQuery, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiClientError } from '../../api/client';
import { factoryRoute } from '../factory/route';
import { formatInt, formatUsd } from '../../ui/format';
import { TrendChart } from './TrendChart';
import { EmptyWindowHint, windowHolding } from './first-look';
import { VerdictOutcomes } from './VerdictOutcomes';
import { FactoryBudget } from './FactoryBudget';
import {
  breakdownQuery,
  compareQuery,
  DIMENSIONS,
  overviewQuery,
  parseOverviewSearch,
  priorOf,
  trendsQuery,
  windowOf,
  type Dimension,
  type OverviewSearch,
} from './query';

export const overviewRoute = createRoute({
  getParentRoute: () => factoryRoute,
  path: '/',
  validateSearch: parseOverviewSearch,
  loaderDeps: ({ search }) => search,
  loader: async ({ context, params, deps }) => {
    const w = windowOf(deps);
    if (deps.compare)
      return context.queryClient.ensureQueryData(
        compareQuery(params.appId, deps.aFrom && deps.aTo ? { from: deps.aFrom, to: deps.aTo } : priorOf(w), w),
      );
    const data = await context.queryClient.ensureQueryData(overviewQuery(params.appId, w));
    // No window chosen (a first visit): when the default one holds nothing but the factory has sessions, open
    // on the window that holds them, named in the URL like any other.
    const chosen = deps.days !== undefined || (deps.from !== undefined && deps.to !== undefined);
    const holding = !chosen && data.tiles.sessions.current === 0 ? windowHolding(data.allTime) : null;
    if (holding) throw redirect({ to: '/f/$appId', params: { appId: params.appId }, search: holding, replace: true });
    return data;
  },
  component: OverviewPage,
});

type Kind = 'int' | 'usd' | 'rate';
const TILES: { key: string; label: string; kind: Kind; help: string; lowerIsBetter?: boolean }[] = [
  { key: 'sessions', label: 'Sessions', kind: 'int', help: 'Top-level sessions started in the window' },
  {
    key: 'totalCostUsd',
    label: 'Total cost',
    kind: 'usd',
    help: 'Including subagent transcripts',
    lowerIsBetter: true,
  },
  {
    key: 'costPerMergedPrUsd',
    label: 'Cost per merged PR',
    kind: 'usd',
    help: 'Cost of the sessions linked to PRs merged in the window ÷ those PRs',
    lowerIsBetter: true,
  },
  {
    key: 'unshippedCostUsd',
    label: 'Unshipped spend',
    kind: 'usd',
    help: "Cost of the window's sessions linked to no merged PR",
    lowerIsBetter: true,
  },
  { key: 'turns', label: 'Turns', kind: 'int', help: 'Turns of top-level sessions' },
  {
    key: 'toolErrorRate',
    label: 'Tool error rate',
    kind: 'rate',
    help: 'Failed tool calls per tool call',
    lowerIsBetter: true,
  },
  {
    key: 'cleanSessionRate',
    label: 'Clean sessions',
    kind: 'rate',
    help: 'No tool error, no provider error, no denied call',
  },
  {
    key: 'handsOnRate',
    label: 'Hands-on rate',
    kind: 'rate',
    help: 'Sessions where a person steered after the first turn',
  },
  {
    key: 'toolDenialRate',
    label: 'Denial rate',
    kind: 'rate',
    help: 'Denied tool calls per tool call',
    lowerIsBetter: true,
  },
  { key: 'activeActors', label: 'Active actors', kind: 'int', help: 'Distinct people and agents who ran sessions' },
];

function fmt(kind: Kind, v: number | null | undefined): string {
  if (v === null || v === undefined) return '—';
  if (kind === 'usd') return formatUsd(v);
  if (kind === 'rate') return `${(v * 100).toFixed(1)}%`;
  return formatInt(v);
}

/** The change from `before` to `now`: relative for counts and money, percentage points for rates. */
function change(
  kind: Kind,
  now: number | null | undefined,
  before: number | null | undefined,
): { text: string; dir: 'up' | 'down' | 'flat' | 'none' } {
  if (now === null || now === undefined || before === null || before === undefined)
    return { text: 'no prior value', dir: 'none' };
  const d = now - before;
  const dir = d > 0 ? 'up' : d < 0 ? 'down' : 'flat';
  if (kind === 'rate') return { text: `${d >= 0 ? '+' : '−'}${Math.abs(d * 100).toFixed(1)} pp`, dir };
  if (before === 0) return { text: now === 0 ? 'no change' : 'new', dir };
  return { text: `${d >= 0 ? '+' : '−'}${Math.abs((d / Math.abs(before)) * 100).toFixed(1)}%`, dir };
}

function Tile({
  t,
  now,
  before,
  priorLabel,
}: {
  t: (typeof TILES)[number];
  now: number | null | undefined;
  before: number | null | undefined;
  priorLabel: string;
}) {
  const c = change(t.kind, now, before);
  const good =
    c.dir === 'flat' || c.dir === 'none' ? '' : (c.dir === 'down') === Boolean(t.lowerIsBetter) ? 'ok' : 'bad';
  return (
    <div className="card tile" data-testid={`tile-${t.key}`} title={t.help}>
      <div className="muted tile-label">{t.label}</div>
      <div className="tile-value" data-testid={`tile-${t.key}-value`}>
        {fmt(t.kind, now)}
      </div>
      <div className={`tile-change ${good}`} data-testid={`tile-${t.key}-change`}>
        {c.dir === 'up' ? '▲ ' : c.dir === 'down' ? '▼ ' : ''}
        {c.text}{' '}
        <span className="muted">
          vs {priorLabel} ({fmt(t.kind, before)})
        </span>
      </div>
    </div>
  );
}

/**
 * Figures only the agents' own telemetry carries (OTLP metrics), beside the session tiles, labelled as such;
 * nothing when none was received in the window.
 */
function TelemetryTiles({
  figures,
}: {
  figures: {
    linesAdded: number;
    linesRemoved: number;
    activeTimeSeconds: number;
    editDecisions: number;
    editAcceptanceRate: number | null;
  } | null;
}) {
  if (!figures) return null;
  const hours = figures.activeTimeSeconds / 3600;
  const items = [
    {
      key: 'lines',
      label: 'Lines changed',
      value: `+${formatInt(figures.linesAdded)} / −${formatInt(figures.linesRemoved)}`,
    },
    {
      key: 'active',
      label: 'Active time',
      value: hours >= 1 ? `${hours.toFixed(1)} h` : `${formatInt(Math.round(figures.activeTimeSeconds / 60))} min`,
    },
    {
      key: 'acceptance',
      label: 'Edits accepted',
      value:
        figures.editAcceptanceRate === null
          ? '—'
          : `${(figures.editAcceptanceRate * 100).toFixed(1)}% of ${formatInt(figures.editDecisions)}`,
    },
  ];
  return (
    <div data-testid="telemetry-tiles">
      <p className="muted">From the agents' own telemetry (OpenTelemetry), for the whole factory:</p>
      <div className="tiles">
        {items.map((t) => (
          <div key={t.key} className="card tile" data-testid={`telemetry-${t.key}`}>
            <div className="muted tile-label">{t.label}</div>
            <div className="tile-value">{t.value}</div>
          </div>
        ))}
      </div>
    </div>
  );
}

/** An API refusal of a window, placed by the field it names (null: not one of the form's fields). */
interface WindowError {
  field: string | null;
  message: string;
}

/**
 * Where the API's message goes: the field its first detail names (the compare route names the first window's
 * fields `aFrom`/`aTo`, the overview `from`/`to`), else under the button.
 */
function windowErrorOf(err: unknown, fromField: string, toField: string): WindowError {
  if (!(err instanceof ApiClientError))
    return { field: null, message: err instanceof Error ? err.message : String(err) };
  const path = err.details[0]?.path;
  const field = path === fromField || path === toField ? path : null;
  return { field, message: field ? `${err.details[0]!.message}: ${err.message}` : err.message };
}

function FieldError({ error, field }: { error: WindowError | null; field: string | null }) {
  if (!error || error.field !== field) return null;
  return (
    <p className="field-error" role="alert" data-testid={`window-error-${field ?? 'form'}`}>
      {error.message}
    </p>
  );
}

function OverviewPage() {
  const { appId } = overviewRoute.useParams();
  const search = overviewRoute.useSearch();
  const navigate = useNavigate({ from: overviewRoute.fullPath });
  const w = windowOf(search);
  const set = (next: OverviewSearch) => void navigate({ search: next });
  const [custom, setCustom] = useState({ from: search.from ?? w.from, to: search.to ?? w.to });
  const [customError, setCustomError] = useState<WindowError | null>(null);
  const queryClient = useQueryClient();
  const preset = search.days ?? (search.from && search.to ? undefined : 30);
  // The window is asked of the API before the page moves to it, so a window the API refuses (from after to,
  // a date it cannot express) shows its message beside the field instead of replacing the page.
  const applyCustom = async () => {
    try {
      await queryClient.fetchQuery(overviewQuery(appId, custom));
      setCustomError(null);
      set({ from: custom.from, to: custom.to, ...(search.compare ? { compare: true } : {}) });
    } catch (err) {
      setCustomError(windowErrorOf(err, 'from', 'to'));
    }
  };
  return (
    <>
      <h1>Overview</h1>
      <div className="filters" data-testid="window-picker">
        {[7, 30, 90].map((d) => (
          <button
            key={d}
            type="button"
            aria-pressed={preset === d}
            onClick={() => set({ days: d, ...(search.compare ? { compare: true } : {}) })}
          >
            Last {d} days
          </button>
        ))}
        <form
          className="filters"
          onSubmit={(e) => {
            e.preventDefault();
            void applyCustom();
          }}
        >
          <label>
            From
            <input
              type="date"
              name="from"
              value={custom.from}
              onChange={(e) => setCustom({ ...custom, from: e.target.value })}
            />
          </label>
          <FieldError error={customError} field="from" />
          <label>
            To
            <input
              type="date"
              name="to"
              value={custom.to}
              onChange={(e) => setCustom({ ...custom, to: e.target.value })}
            />
          </label>
          <FieldError error={customError} field="to" />
          <button type="submit">Apply</button>
          <FieldError error={customError} field={null} />
        </form>
        <label className="inline">
          <input
            type="checkbox"
            name="compare"
            checked={Boolean(search.compare)}
            onChange={(e) => set({ ...search, compare: e.target.checked || undefined })}
          />{' '}
          Compare
        </label>
      </div>
      <p className="muted" data-testid="window">
        {w.from} to {w.to} (UTC, both days included)
      </p>
      {search.compare ? (
        <CompareTiles appId={appId} search={search} w={w} />
      ) : (
        <Tiles appId={appId} w={w} onShow={set} />
      )}
      <VerdictOutcomes appId={appId} w={w} />
      <h2>Cost and sessions per day</h2>
      <Trend appId={appId} w={w} />
      <h2>Breakdowns</h2>
      <div className="breakdowns">
        {DIMENSIONS.map((by) => (
          <Breakdown key={by} appId={appId} w={w} by={by} />
        ))}
      </div>
    </>
  );
}

function Tiles({
  appId,
  w,
  onShow,
}: {
  appId: string;
  w: { from: string; to: string };
  onShow: (next: OverviewSearch) => void;
}) {
  const { data } = useSuspenseQuery(overviewQuery(appId, w));
  const tiles = data.tiles as unknown as Record<string, { current: number | null; prior: number | null }>;
  const prior =
    `${data.priorWindow.from.slice(0, 10)} – ` +
    `${new Date(Date.parse(data.priorWindow.to) - 1).toISOString().slice(0, 10)}`;
  return (
    <>
      {data.tiles.sessions.current === 0 && <EmptyWindowHint all={data.allTime} onShow={onShow} />}
      <FactoryBudget appId={appId} />
      <div className="tiles" data-testid="tiles">
        {TILES.map((t) => (
          <Tile key={t.key} t={t} now={tiles[t.key]?.current} before={tiles[t.key]?.prior} priorLabel={prior} />
        ))}
      </div>
      <TelemetryTiles figures={data.telemetry.current} />
      <p className="muted" data-testid="merged-prs">
        {formatInt(tiles.mergedPrs?.current ?? 0)} merged pull requests with agent sessions in the window.
      </p>
      <h2>Model mix</h2>
      <ModelMix rows={data.tiles.modelMix.current} />
    </>
  );
}

function CompareTiles({
  appId,
  search,
  w,
}: {
  appId: string;
  search: OverviewSearch;
  w: { from: string; to: string };
}) {
  const a = search.aFrom && search.aTo ? { from: search.aFrom, to: search.aTo } : priorOf(w);
  const navigate = useNavigate({ from: overviewRoute.fullPath });
  const [aw, setAw] = useState(a);
  const [awError, setAwError] = useState<WindowError | null>(null);
  const queryClient = useQueryClient();
  const { data } = useSuspenseQuery(compareQuery(appId, a, w));
  const applyCompare = async () => {
    try {
      await queryClient.fetchQuery(compareQuery(appId, aw, w));
      setAwError(null);
      void navigate({ search: { ...search, aFrom: aw.from, aTo: aw.to } });
    } catch (err) {
      setAwError(windowErrorOf(err, 'aFrom', 'aTo'));
    }
  };
  const ta = data.a.tiles as unknown as Record<string, number | null>;
  const tb = data.b.tiles as unknown as Record<string, number | null>;
  return (
    <>
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void applyCompare();
        }}
      >
        <label>
          Compare with: from
          <input type="date" name="aFrom" value={aw.from} onChange={(e) => setAw({ ...aw, from: e.target.value })} />
        </label>
        <FieldError error={awError} field="aFrom" />
        <label>
          to
          <input type="date" name="aTo" value={aw.to} onChange={(e) => setAw({ ...aw, to: e.target.value })} />
        </label>
        <FieldError error={awError} field="aTo" />
        <button type="submit">Compare</button>
        <FieldError error={awError} field={null} />
      </form>
      <table className="grid" data-testid="compare-table">
        <thead>
          <tr>
            <th>Tile</th>
            <th className="num">
              {a.from} – {a.to}
            </th>
            <th className="num">
              {w.from} – {w.to}
            </th>
            <th className="num">Change</th>
          </tr>
        </thead>
        <tbody>
          {TILES.map((t) => (
            <tr key={t.key} data-testid={`compare-${t.key}`}>
              <td title={t.help}>{t.label}</td>
              <td className="num">{fmt(t.kind, ta[t.key])}</td>
              <td className="num">{fmt(t.kind, tb[t.key])}</td>
              <td className="num">{change(t.kind, tb[t.key], ta[t.key]).text}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="side-by-side">
        <div>
          <h2>
            Model mix, {a.from} – {a.to}
          </h2>
          <ModelMix rows={data.a.tiles.modelMix} />
        </div>
        <div>
          <h2>
            Model mix, {w.from} – {w.to}
          </h2>
          <ModelMix rows={data.b.tiles.modelMix} />
        </div>
      </div>
    </>
  );
}

interface MixRow {
  model: string;
  sessions: number;
  turns: number;
  costUsd: number;
  costShare: number | null;
}

function ModelMix({ rows }: { rows: MixRow[] }) {
  if (rows.length === 0) return <p className="empty">No model usage in this window.</p>;
  return (
    <table className="grid" data-testid="model-mix">
      <thead>
        <tr>
          <th>Model</th>
          <th className="num">Sessions</th>
          <th className="num">Turns</th>
          <th className="num">Cost</th>
          <th>Share of cost</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((m) => (
          <tr key={m.model}>
            <td className="mono">{m.model}</td>
            <td className="num">{formatInt(m.sessions)}</td>
            <td className="num">{formatInt(m.turns)}</td>
            <td className="num">{formatUsd(m.costUsd)}</td>
            <td>
              <Bar share={m.costShare} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Bar({ share }: { share: number | null }) {
  const pct = share === null ? 0 : Math.max(0, Math.min(1, share)) * 100;
  return (
    <span className="bar" title={share === null ? 'no priced cost' : `${pct.toFixed(1)}%`}>
      <span className="bar-fill" style={{ width: `${pct}%` }} />
      <span className="bar-text">{share === null ? '—' : `${pct.toFixed(1)}%`}</span>
    </span>
  );
}

function Trend({ appId, w }: { appId: string; w: { from: string; to: string } }) {
  const q = useQuery(trendsQuery(appId, w));
  if (q.isPending) return <p className="muted">Loading…</p>;
  if (q.isError) return <p className="error-text">{q.error.message}</p>;
  return <TrendChart points={q.data.points} />;
}

const DIMENSION_LABELS: Record<Dimension, string> = {
  branch: 'Branch',
  agent_type: 'Agent type',
  worker_kind: 'Worker kind',
  repo: 'Repository',
  origin: 'Origin',
  model: 'Model',
  tool: 'Tool',
};

function Breakdown({ appId, w, by }: { appId: string; w: { from: string; to: string }; by: Dimension }) {
  const q = useQuery(breakdownQuery(appId, w, by));
  const tool = by === 'tool';
  return (
    <section className="card breakdown" data-testid={`breakdown-${by}`}>
      <h3>
        {DIMENSION_LABELS[by]}
        {q.data && q.data.groups > q.data.rows.length ? (
          <span className="muted">
            {' '}
            (top {q.data.rows.length} of {q.data.groups})
          </span>
        ) : null}
      </h3>
      {q.isPending ? (
        <p className="muted">Loading…</p>
      ) : q.isError ? (
        <p className="error-text">{q.error.message}</p>
      ) : q.data.rows.length === 0 ? (
        <p className="muted">Nothing in this window.</p>
      ) : (
        <table className="grid">
          <thead>
            <tr>
              <th>{DIMENSION_LABELS[by]}</th>
              <th className="num">Sessions</th>
              <th className="num">{tool ? 'Calls' : 'Cost'}</th>
              <th>{tool ? 'Error rate' : 'Share of cost'}</th>
            </tr>
          </thead>
          <tbody>
            {(() => {
              const max = Math.max(...q.data.rows.map((r) => r.toolCalls), 1);
              return q.data.rows.map((r) => (
                <tr key={r.key ?? '(none)'}>
                  <td className="mono">
                    {r.key === null || r.key === '' ? <span className="muted">(none)</span> : r.key}
                  </td>
                  <td className="num">{formatInt(r.sessions)}</td>
                  <td className="num">{tool ? formatInt(r.toolCalls) : formatUsd(r.costUsd)}</td>
                  <td>
                    {tool ? <Bar share={r.toolCalls / max} /> : <Bar share={r.costShare} />}
                    {tool && r.toolErrorRate !== null ? (
                      <span className="muted"> {(r.toolErrorRate * 100).toFixed(1)}% errors</span>
                    ) : null}
                  </td>
                </tr>
              ));
            })()}
          </tbody>
        </table>
      )}
    </section>
  );
}
