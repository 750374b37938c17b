// How numbers and times read on every page. Formatting only: the values come from the API as they are.
const usd = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 4,
});
const int = new Intl.NumberFormat('en-US');

export function formatUsd(n: number): string {
  return usd.format(n);
}
export function formatInt(n: number): string {
  return int.format(n);
}
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** A cost as the API stated it: an unpriced session is never $0, a partial one says it is partial. */
export function Cost({
  usd: value,
  status,
  unpricedModels,
}: {
  usd: number;
  status?: 'complete' | 'partial' | 'unpriced';
  unpricedModels?: string[];
}) {
  const title = unpricedModels && unpricedModels.length > 0 ? `No price for: ${unpricedModels.join(', ')}` : undefined;
  if (status === 'unpriced')
    return (
      <span className="muted" title={title} data-cost-status="unpriced">
        unpriced
      </span>
    );
  if (status === 'partial')
    return (
      <span title={title} data-cost-status="partial">
        {formatUsd(value)} <span className="chip warn">partial</span>
      </span>
    );
  return <span data-cost-status={status ?? 'complete'}>{formatUsd(value)}</span>;
}
