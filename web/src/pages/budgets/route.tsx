// /f/$appId/budgets: the factory's budgets (GET /v1/budgets), each with its current period's spend, forecast
// and burn-down as the API computed them, and a form that creates one or edits the one chosen.
import { createRoute } from '@tanstack/react-router';
import { useMutation, useQuery, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { factoryRoute } from '../factory/route';
import { formatTime, formatUsd } from '../../ui/format';
import {
  FieldError,
  FormError,
  NO_ERRORS,
  fieldId,
  fieldProps,
  formErrorsOf,
  type FormErrors,
} from '../settings/fields';
import { BurnDown } from './BurnDown';
import {
  budgetsQuery,
  channelsQuery,
  createBudget,
  deleteBudget,
  updateBudget,
  type Budget,
  type BudgetBody,
} from './query';

export const budgetsRoute = createRoute({
  getParentRoute: () => factoryRoute,
  path: 'budgets',
  loader: ({ context, params }) => context.queryClient.ensureQueryData(budgetsQuery(params.appId)),
  component: BudgetsPage,
});

function scopeText(b: Budget): string {
  if (b.scope.kind === 'actor') return `actor ${b.scope.actorId}`;
  if (b.scope.kind === 'repository') return b.scope.repository;
  if (b.scope.kind === 'attribute') return `${b.scope.key}=${b.scope.value}`;
  return 'the whole factory';
}

function BudgetsPage() {
  const { appId } = budgetsRoute.useParams();
  const { data: budgets } = useSuspenseQuery(budgetsQuery(appId));
  const [editing, setEditing] = useState<Budget | 'new' | null>(null);
  const qc = useQueryClient();
  const remove = useMutation({
    mutationFn: (id: string) => deleteBudget(appId, id),
    onSuccess: () => qc.invalidateQueries({ queryKey: budgetsQuery(appId).queryKey }),
  });
  return (
    <>
      <h1>Budgets</h1>
      <p className="muted">
        Spend is the stored cost of the sessions started in the period, as the metrics count it. Each threshold notifies
        the budget's channels once a period; a forecast past the amount once, marked as a projection.
      </p>
      {budgets.length === 0 && editing === null && (
        <div className="empty" data-testid="budgets-empty">
          <p>No budget yet. A budget warns before the provider's hard limit stops an agent mid-task.</p>
        </div>
      )}
      <div className="budgets">
        {budgets.map((b) => (
          <section key={b.id} className="settings-section" data-testid="budget" data-budget={b.name}>
            <h2>
              {b.name} <span className="muted small">{scopeText(b)}</span>
            </h2>
            <p data-testid="budget-spend">
              <b>{formatUsd(b.status.spendUsd)}</b> of {formatUsd(b.amountUsd)} this {b.period} (
              {b.status.percent.toFixed(0)}%)
              {b.status.forecastUsd !== null && (
                <span className="muted" data-testid="budget-forecast">
                  {' '}
                  · projected {formatUsd(b.status.forecastUsd)} by the period's end
                </span>
              )}
            </p>
            <BurnDown budget={b} />
            <p className="muted small">
              {formatTime(b.status.periodStart)} – {formatTime(b.status.periodEnd)} ({b.timeZone}) · thresholds{' '}
              {b.thresholds.join(', ')}% · {b.notify.length} channel{b.notify.length === 1 ? '' : 's'}
            </p>
            <div className="form-actions">
              <button type="button" onClick={() => setEditing(b)}>
                Edit
              </button>
              <button type="button" onClick={() => remove.mutate(b.id)} disabled={remove.isPending}>
                Delete
              </button>
            </div>
          </section>
        ))}
      </div>
      {editing === null ? (
        <button type="button" className="primary" onClick={() => setEditing('new')} data-testid="budget-new">
          New budget
        </button>
      ) : (
        <BudgetForm
          key={editing === 'new' ? 'new' : editing.id}
          appId={appId}
          budget={editing === 'new' ? null : editing}
          onDone={() => setEditing(null)}
        />
      )}
    </>
  );
}

const SCOPE_LABELS = {
  factory: 'the whole factory',
  repository: 'one repository',
  actor: 'one actor',
  attribute: 'a telemetry attribute',
} as const;
const SCOPE_INPUTS = {
  factory: { label: '', placeholder: '' },
  repository: { label: 'Repository (owner/name)', placeholder: 'acme/api' },
  actor: { label: 'Actor id', placeholder: 'actor id' },
  attribute: { label: 'Resource attribute (key=value)', placeholder: 'team=payments' },
} as const;

const FIELDS = ['name', 'scope', 'amountUsd', 'period', 'timeZone', 'thresholds', 'notify'] as const;
const BY_CODE = { invalid_time_zone: 'timeZone', unknown_notification_channel: 'notify' } as const;

function BudgetForm({ appId, budget, onDone }: { appId: string; budget: Budget | null; onDone: () => void }) {
  const qc = useQueryClient();
  const channels = useQuery(channelsQuery(appId));
  const [name, setName] = useState(budget?.name ?? '');
  const [kind, setKind] = useState<BudgetBody['scope']['kind']>(budget?.scope.kind ?? 'factory');
  const [value, setValue] = useState(
    budget?.scope.kind === 'actor'
      ? budget.scope.actorId
      : budget?.scope.kind === 'repository'
        ? budget.scope.repository
        : budget?.scope.kind === 'attribute'
          ? `${budget.scope.key}=${budget.scope.value}`
          : '',
  );
  const [amount, setAmount] = useState(budget ? String(budget.amountUsd) : '');
  const [period, setPeriod] = useState<BudgetBody['period']>(budget?.period ?? 'month');
  const [timeZone, setTimeZone] = useState(budget?.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone);
  const [thresholds, setThresholds] = useState((budget?.thresholds ?? [50, 80, 100]).join(', '));
  const [notify, setNotify] = useState<string[]>(budget?.notify ?? []);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  // An attribute is typed as OTEL_RESOURCE_ATTRIBUTES writes it: key=value (split at the first "=").
  const eq = value.indexOf('=');
  const scope: BudgetBody['scope'] =
    kind === 'actor'
      ? { kind, actorId: value }
      : kind === 'repository'
        ? { kind, repository: value }
        : kind === 'attribute'
          ? { kind, key: eq < 0 ? value : value.slice(0, eq), value: eq < 0 ? '' : value.slice(eq + 1) }
          : { kind };
  const body: BudgetBody = {
    name,
    scope,
    amountUsd: Number(amount),
    period,
    timeZone,
    thresholds: thresholds
      .split(/[,\s]+/)
      .filter(Boolean)
      .map(Number),
    notify,
  };
  const save = useMutation({
    mutationFn: () => (budget ? updateBudget(appId, budget.id, body) : createBudget(appId, body)),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: budgetsQuery(appId).queryKey });
      onDone();
    },
    onError: (err) => setErrors(formErrorsOf(err, FIELDS, BY_CODE)),
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form className="settings-form" onSubmit={onSubmit} noValidate data-testid="budget-form">
      <h2>{budget ? `Edit ${budget.name}` : 'New budget'}</h2>
      <div className="field">
        <label htmlFor={fieldId('budget', 'name')}>Name</label>
        <input value={name} onChange={(e) => setName(e.target.value)} {...fieldProps('budget', 'name', errors)} />
        <FieldError form="budget" field="name" errors={errors} />
      </div>
      <fieldset className="field" {...fieldProps('budget', 'scope', errors)}>
        <legend>Limits</legend>
        {(['factory', 'repository', 'actor', 'attribute'] as const).map((k) => (
          <label key={k} className="inline">
            <input type="radio" name="budget-scope" checked={kind === k} onChange={() => setKind(k)} />{' '}
            {SCOPE_LABELS[k]}
          </label>
        ))}
        {kind !== 'factory' && (
          <input
            aria-label={SCOPE_INPUTS[kind].label}
            placeholder={SCOPE_INPUTS[kind].placeholder}
            value={value}
            onChange={(e) => setValue(e.target.value)}
          />
        )}
        <FieldError form="budget" field="scope" errors={errors} />
      </fieldset>
      <div className="field">
        <label htmlFor={fieldId('budget', 'amountUsd')}>Amount (US dollars)</label>
        <input
          inputMode="decimal"
          value={amount}
          onChange={(e) => setAmount(e.target.value)}
          {...fieldProps('budget', 'amountUsd', errors)}
        />
        <FieldError form="budget" field="amountUsd" errors={errors} />
      </div>
      <div className="field">
        <label htmlFor={fieldId('budget', 'period')}>Period</label>
        <select
          value={period}
          onChange={(e) => setPeriod(e.target.value as BudgetBody['period'])}
          {...fieldProps('budget', 'period', errors)}
        >
          <option value="day">day</option>
          <option value="week">week (from Monday)</option>
          <option value="month">month</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={fieldId('budget', 'timeZone')}>Time zone</label>
        <input
          value={timeZone}
          onChange={(e) => setTimeZone(e.target.value)}
          {...fieldProps('budget', 'timeZone', errors)}
        />
        <FieldError form="budget" field="timeZone" errors={errors} />
      </div>
      <div className="field">
        <label htmlFor={fieldId('budget', 'thresholds')}>Thresholds (%)</label>
        <input
          value={thresholds}
          onChange={(e) => setThresholds(e.target.value)}
          {...fieldProps('budget', 'thresholds', errors)}
        />
        <FieldError form="budget" field="thresholds" errors={errors} />
      </div>
      <fieldset className="field" {...fieldProps('budget', 'notify', errors)}>
        <legend>Notify</legend>
        {channels.isError && <p className="muted small">The channels cannot be read with your permissions.</p>}
        {channels.data?.length === 0 && <p className="muted small">No notification channel yet (Settings).</p>}
        {channels.data?.map((c) => (
          <label key={c.id} className="inline">
            <input
              type="checkbox"
              checked={notify.includes(c.id)}
              onChange={(e) => setNotify(e.target.checked ? [...notify, c.id] : notify.filter((id) => id !== c.id))}
            />{' '}
            {c.name} <span className="muted small">({c.kind})</span>
          </label>
        ))}
        <FieldError form="budget" field="notify" errors={errors} />
      </fieldset>
      <FormError form="budget" errors={errors} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
