// The factory budget's burn on the Overview: the current period's spend against each budget whose scope is
// the whole factory, as GET /v1/budgets computed it. Nothing shows without such a budget, or without
// budgets.read.
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { budgetsQuery } from '../../api/queries';
import { formatUsd } from '../../ui/format';

export function FactoryBudget({ appId }: { appId: string }) {
  const { data } = useQuery(budgetsQuery(appId));
  const budgets = (data ?? []).filter((b) => b.scope.kind === 'factory');
  if (budgets.length === 0) return null;
  return (
    <div className="factory-budget" data-testid="factory-budget">
      {budgets.map((b) => (
        <p key={b.id}>
          <Link to="/f/$appId/budgets" params={{ appId }}>
            {b.name}
          </Link>
          : {formatUsd(b.status.spendUsd)} of {formatUsd(b.amountUsd)} this {b.period}{' '}
          <span className="bar" title={`${b.status.percent}%`}>
            <span
              className="bar-fill"
              style={{
                width: `${Math.min(100, b.status.percent)}%`,
                ...(b.status.percent >= 100 ? { background: 'var(--bad)' } : {}),
              }}
            />
            <span className="bar-text">{b.status.percent.toFixed(0)}%</span>
          </span>
          {b.status.forecastUsd !== null && (
            <span className="muted"> · projected {formatUsd(b.status.forecastUsd)}</span>
          )}
        </p>
      ))}
    </div>
  );
}
