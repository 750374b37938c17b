// A budget's burn-down: the cumulative spend at the end of each local day of the period (as the API returned
// it), against the amount and the even pace from nothing to the amount at the period's end. Plain SVG: a
// month is at most 31 points.
import type { Budget } from './query';

const W = 360;
const H = 120;
const PAD = 4;

export function BurnDown({ budget }: { budget: Budget }) {
  const { burn, periodStart, periodEnd } = budget.status;
  const start = Date.parse(periodStart);
  const days = Math.max(1, Math.round((Date.parse(periodEnd) - start) / 86_400_000));
  const top = Math.max(budget.amountUsd, ...burn.map((p) => p.spendUsd), budget.status.forecastUsd ?? 0) * 1.05;
  const x = (i: number) => PAD + ((W - 2 * PAD) * i) / days;
  const y = (usd: number) => H - PAD - ((H - 2 * PAD) * usd) / top;
  const spent = [`${x(0)},${y(0)}`, ...burn.map((p, i) => `${x(i + 1)},${y(p.spendUsd)}`)].join(' ');
  return (
    <svg
      viewBox={`0 0 ${W} ${H}`}
      width={W}
      height={H}
      role="img"
      aria-label={`Spend ${budget.status.spendUsd} of ${budget.amountUsd} US dollars`}
      data-testid="burn-down"
    >
      <line
        x1={x(0)}
        y1={y(budget.amountUsd)}
        x2={x(days)}
        y2={y(budget.amountUsd)}
        stroke="var(--bad, #c33)"
        strokeDasharray="4 3"
      />
      <line
        x1={x(0)}
        y1={y(0)}
        x2={x(days)}
        y2={y(budget.amountUsd)}
        stroke="var(--muted, #999)"
        strokeDasharray="2 3"
      />
      <polyline points={spent} fill="none" stroke="var(--accent, #36c)" strokeWidth={2} />
      {burn.map((p, i) => (
        <circle key={p.day} cx={x(i + 1)} cy={y(p.spendUsd)} r={2.5} fill="var(--accent, #36c)">
          <title>{`${p.day}: $${p.spendUsd.toFixed(2)}`}</title>
        </circle>
      ))}
    </svg>
  );
}
