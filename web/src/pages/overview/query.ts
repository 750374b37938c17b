// Reads of the overview (factory home): tiles, compare, trends and breakdowns for one window.
import { queryOptions } from '@tanstack/react-query';
import { api, factory, unwrap } from '../../api/client';

export const DIMENSIONS = ['branch', 'agent_type', 'worker_kind', 'repo', 'origin', 'model', 'tool'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export interface OverviewSearch {
  /** 7, 30 or 90 (the last N UTC days, today included); absent with from/to: a custom window. */
  days?: number;
  from?: string;
  to?: string;
  /** Compare mode: the window beside the one of equal length before it (or aFrom/aTo). */
  compare?: boolean;
  aFrom?: string;
  aTo?: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function parseOverviewSearch(s: Record<string, unknown>): OverviewSearch {
  const out: OverviewSearch = {};
  const days = Number(s.days);
  if ([7, 30, 90].includes(days)) out.days = days;
  for (const k of ['from', 'to', 'aFrom', 'aTo'] as const)
    if (typeof s[k] === 'string' && DATE.test(s[k] as string)) out[k] = s[k] as string;
  if (s.compare === true || s.compare === '1' || s.compare === 'true' || s.compare === 1) out.compare = true;
  return out;
}

const DAY_MS = 86_400_000;
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The window's from/to dates (to included), as the metrics routes read them. */
export function windowOf(search: OverviewSearch, now = Date.now()): { from: string; to: string } {
  if (search.days === undefined && search.from && search.to) return { from: search.from, to: search.to };
  const days = search.days ?? 30;
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return { from: date(today - (days - 1) * DAY_MS), to: date(today) };
}

/** The window of equal length just before [from, to] (to included). */
export function priorOf(w: { from: string; to: string }): { from: string; to: string } {
  const from = Date.parse(`${w.from}T00:00:00Z`);
  const end = Date.parse(`${w.to}T00:00:00Z`) + DAY_MS;
  const len = end - from;
  return { from: date(from - len), to: date(from - DAY_MS) };
}

export const overviewQuery = (appId: string, w: { from: string; to: string }) =>
  queryOptions({
    queryKey: ['metrics', appId, 'overview', w],
    queryFn: () =>
      unwrap(api.GET('/v1/metrics/overview', { ...factory(appId), params: { query: w } })).then((r) => r.data),
  });

export const compareQuery = (appId: string, a: { from: string; to: string }, b: { from: string; to: string }) =>
  queryOptions({
    queryKey: ['metrics', appId, 'compare', a, b],
    queryFn: () =>
      unwrap(
        api.GET('/v1/metrics/compare', {
          ...factory(appId),
          params: { query: { aFrom: a.from, aTo: a.to, bFrom: b.from, bTo: b.to } },
        }),
      ).then((r) => r.data),
  });

export const trendsQuery = (appId: string, w: { from: string; to: string }) =>
  queryOptions({
    queryKey: ['metrics', appId, 'trends', w],
    queryFn: () =>
      unwrap(api.GET('/v1/metrics/trends', { ...factory(appId), params: { query: w } })).then((r) => r.data),
  });

export const breakdownQuery = (appId: string, w: { from: string; to: string }, by: Dimension) =>
  queryOptions({
    queryKey: ['metrics', appId, 'breakdown', by, w],
    queryFn: () =>
      unwrap(api.GET('/v1/metrics/breakdown', { ...factory(appId), params: { query: { ...w, by, limit: 10 } } })).then(
        (r) => r.data,
      ),
  });

export const verdictsQuery = (appId: string, w: { from: string; to: string }) =>
  queryOptions({
    queryKey: ['metrics', appId, 'verdicts', w],
    queryFn: () =>
      unwrap(api.GET('/v1/metrics/verdicts', { ...factory(appId), params: { query: w } })).then((r) => r.data),
  });
