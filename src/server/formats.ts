// The `date`, `time` and `date-time` formats of JSON schema, accepting exactly what ajv-formats accepts in its
// default ("full") mode, with a time zone required in `time` and `date-time` (RFC 3339 §5.6), but checked by
// reading character codes instead of a regex split and two regex matches with captures. An ingest checks
// every turn's and event's timestamp (about 80 a session): ajv-formats' checks were 5.5% of an ingest's CPU,
// most of it the strings and arrays they allocate. test/server/formats.test.ts compares the two.
import type { Ajv } from 'ajv';

const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** What `\s` matches in a JavaScript regex (ajv-formats splits a date-time at `t` or `\s`). */
const SPACE = /\s/;

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/** The value of the ASCII digit at `i`, or -1. */
function digit(s: string, i: number): number {
  const c = s.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -1;
}

/** Two ASCII digits at `i` as a number, or -1. */
function two(s: string, i: number): number {
  const a = digit(s, i);
  const b = digit(s, i + 1);
  return a < 0 || b < 0 ? -1 : a * 10 + b;
}

/** `YYYY-MM-DD` at the start of `s` (10 characters) is a real calendar day. */
function dateAt(s: string): boolean {
  const hi = two(s, 0);
  const lo = two(s, 2);
  const month = two(s, 5);
  const day = two(s, 8);
  if (hi < 0 || lo < 0 || month < 0 || day < 0 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false;
  const year = hi * 100 + lo;
  return month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && isLeapYear(year) ? 29 : DAYS[month]!);
}

/**
 * `HH:MM:SS[.frac](Z|±HH[[:]MM])` from `start` to the end of `s`, with ajv-formats' ranges: hours ≤ 23,
 * minutes ≤ 59, seconds < 60, offsets ≤ 23:59, and a leap second (60 ≤ seconds < 61) only at 23:59 UTC.
 */
function timeAt(s: string, start: number): boolean {
  const n = s.length;
  const hr = two(s, start);
  const min = two(s, start + 3);
  const ss = two(s, start + 6);
  if (hr < 0 || min < 0 || ss < 0 || s.charCodeAt(start + 2) !== 58 || s.charCodeAt(start + 5) !== 58) return false;
  let i = start + 8;
  let sec = ss;
  if (s.charCodeAt(i) === 46) {
    const from = i;
    i += 1;
    while (digit(s, i) >= 0) i += 1;
    if (i === from + 1) return false;
    // As ajv-formats reads it (59 and a fraction of many 9s rounds up to 60); below 59 the fraction cannot
    // change any comparison, and parsing it is most of this function's cost.
    if (ss >= 59) sec = Number(s.slice(start + 6, i));
  }
  if (i >= n) return false; // the zone is required
  const z = s.charCodeAt(i);
  let sign = 1;
  let tzH = 0;
  let tzM = 0;
  if (z === 90 || z === 122) {
    if (i + 1 !== n) return false;
  } else if (z === 43 || z === 45) {
    sign = z === 45 ? -1 : 1;
    tzH = two(s, i + 1);
    if (tzH < 0) return false;
    i += 3;
    if (i < n) {
      if (s.charCodeAt(i) === 58) i += 1;
      tzM = two(s, i);
      if (tzM < 0 || i + 2 !== n) return false;
    }
  } else {
    return false;
  }
  if (tzH > 23 || tzM > 59) return false;
  if (hr <= 23 && min <= 59 && sec < 60) return true;
  // A leap second: 23:59:60 in UTC, whatever the offset.
  const utcMin = min - tzM * sign;
  const utcHr = hr - tzH * sign - (utcMin < 0 ? 1 : 0);
  return (utcHr === 23 || utcHr === -1) && (utcMin === 59 || utcMin === -1) && sec < 61;
}

/** RFC 3339 full-date. */
export function isDate(s: string): boolean {
  return s.length === 10 && dateAt(s);
}

/** RFC 3339 full-time (the zone required). */
export function isTime(s: string): boolean {
  return timeAt(s, 0);
}

/** RFC 3339 date-time: a date, `T`/`t` or one whitespace character, a time with its zone. */
export function isDateTime(s: string): boolean {
  if (s.length < 20 || !dateAt(s)) return false;
  const sep = s.charCodeAt(10);
  if (sep !== 84 && sep !== 116 && sep !== 32 && !SPACE.test(s[10]!)) return false;
  return timeAt(s, 11);
}

export type CompareFormat = (a: string, b: string) => number | undefined;

/**
 * Replace the `date`, `time` and `date-time` checks of an ajv that has ajv-formats with these; `compares` are
 * the orderings `formatMinimum`/`formatMaximum` use (pass ajv-formats' own to keep them as they were).
 */
export function useFastDateFormats(
  ajv: Pick<Ajv, 'addFormat'>,
  compares: Partial<Record<'date' | 'time' | 'date-time', CompareFormat>>,
): void {
  const def = (validate: (s: string) => boolean, compare: CompareFormat | undefined) => ({
    type: 'string' as const,
    validate,
    ...(compare ? { compare } : {}),
  });
  ajv.addFormat('date', def(isDate, compares.date));
  ajv.addFormat('time', def(isTime, compares.time));
  ajv.addFormat('date-time', def(isDateTime, compares['date-time']));
}
