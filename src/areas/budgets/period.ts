// Calendar periods in an IANA time zone, from the platform's own tz database (Intl): a day, a week starting on
// Monday, or a month, each as the half-open instant range [start, end) of its local midnights.
import type { BudgetPeriod } from './schema.js';

export interface Period {
  start: number;
  end: number;
  /** The period's first local date, YYYY-MM-DD: the key a notice is kept once under. */
  key: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

export function isTimeZone(name: string): boolean {
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

interface Local {
  y: number;
  m: number;
  d: number;
  h: number;
  min: number;
  s: number;
}

function localOf(ms: number, timeZone: string): Local {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms)))
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { y: parts.year!, m: parts.month!, d: parts.day!, h: parts.hour!, min: parts.minute!, s: parts.second! };
}

/** The zone's offset from UTC at instant `ms`, in ms (local minus UTC). */
function offsetAt(ms: number, timeZone: string): number {
  const l = localOf(ms, timeZone);
  return Date.UTC(l.y, l.m - 1, l.d, l.h, l.min, l.s) - Math.floor(ms / 1000) * 1000;
}

/** The instant of local midnight starting date y-m-d (month 1-based; days past the month's end roll over). */
export function localMidnight(y: number, m: number, d: number, timeZone: string): number {
  const guess = Date.UTC(y, m - 1, d);
  let t = guess - offsetAt(guess, timeZone);
  // Once more at the found instant: the offset may differ there (a DST change between guess and midnight).
  t = guess - offsetAt(t, timeZone);
  return t;
}

const pad = (n: number) => String(n).padStart(2, '0');

export function localDate(ms: number, timeZone: string): string {
  const l = localOf(ms, timeZone);
  return `${l.y}-${pad(l.m)}-${pad(l.d)}`;
}

export function periodAt(ms: number, period: BudgetPeriod, timeZone: string): Period {
  const l = localOf(ms, timeZone);
  let start: number;
  let end: number;
  if (period === 'day') {
    start = localMidnight(l.y, l.m, l.d, timeZone);
    end = localMidnight(l.y, l.m, l.d + 1, timeZone);
  } else if (period === 'week') {
    const weekday = (new Date(Date.UTC(l.y, l.m - 1, l.d)).getUTCDay() + 6) % 7; // Monday 0
    start = localMidnight(l.y, l.m, l.d - weekday, timeZone);
    end = localMidnight(l.y, l.m, l.d - weekday + 7, timeZone);
  } else {
    start = localMidnight(l.y, l.m, 1, timeZone);
    end = localMidnight(l.y, l.m + 1, 1, timeZone);
  }
  return { start, end, key: localDate(start, timeZone) };
}

/** Local midnights from the day after `start` up to `until` (exclusive), as [date, instant] pairs. */
export function dayEnds(start: number, until: number, timeZone: string): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  const l = localOf(start, timeZone);
  for (let i = 0; i < 40; i++) {
    const dayStart = localMidnight(l.y, l.m, l.d + i, timeZone);
    if (dayStart >= until) break;
    const next = localMidnight(l.y, l.m, l.d + i + 1, timeZone);
    out.push([localDate(dayStart, timeZone), Math.min(next, until)]);
  }
  return out;
}
