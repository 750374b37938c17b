// The overview's first look at data (issue 45 §1): a window that holds nothing while the factory has sessions
// says how many there are and from when to when, and offers the window that holds them in one click; a visit
// without a chosen window opens on one that shows data when there is any.
import { formatInt } from '../../ui/format';
import type { OverviewSearch } from './query';

export interface AllTime {
  sessions: number;
  firstStartedAt: string | null;
  lastStartedAt: string | null;
}

const DAY_MS = 86_400_000;
/** The longest window the trend reads (GET /v1/metrics/trends: at most 366 days). */
const MAX_DAYS = 366;
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The window that holds the sessions: the shortest preset (last 7, 30 or 90 days) that reaches back to the
 * first, else from the first to the last start (at most the 366 days before the last, which the trend reads).
 */
export function windowHolding(all: AllTime, now = Date.now()): OverviewSearch | null {
  if (all.sessions === 0 || !all.firstStartedAt || !all.lastStartedAt) return null;
  const first = Date.parse(all.firstStartedAt);
  const last = Date.parse(all.lastStartedAt);
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  if (last < today + DAY_MS) {
    for (const days of [7, 30, 90]) if (first >= today - (days - 1) * DAY_MS) return { days };
  }
  const lastDay = Math.floor(last / DAY_MS) * DAY_MS;
  return {
    from: date(Math.max(Math.floor(first / DAY_MS) * DAY_MS, lastDay - (MAX_DAYS - 1) * DAY_MS)),
    to: date(lastDay),
  };
}

export function windowLabel(w: OverviewSearch): string {
  return w.days !== undefined ? `the last ${w.days} days` : `${w.from} – ${w.to}`;
}

/** Shown instead of a silent 0 when the window holds no session but the factory has some. */
export function EmptyWindowHint({ all, onShow }: { all: AllTime; onShow: (w: OverviewSearch) => void }) {
  const holding = windowHolding(all);
  if (!holding || !all.firstStartedAt || !all.lastStartedAt) return null;
  const first = all.firstStartedAt.slice(0, 10);
  const last = all.lastStartedAt.slice(0, 10);
  return (
    <div className="card notice" role="status" data-testid="empty-window-hint">
      <p>
        No session started in this window, but this factory has <strong>{formatInt(all.sessions)}</strong>{' '}
        {all.sessions === 1 ? `session, started ${first}` : `sessions, started from ${first} to ${last}`} (UTC).
      </p>
      <button type="button" onClick={() => onShow(holding)} data-testid="show-holding-window">
        Show {windowLabel(holding)}
      </button>
    </div>
  );
}
