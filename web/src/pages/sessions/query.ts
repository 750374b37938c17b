import { queryOptions } from '@tanstack/react-query';
import { api, factory, unwrap, type paths } from '../../api/client';

/** The page's search params: exactly GET /v1/sessions' query, same names. */
export type SessionsSearch = NonNullable<paths['/v1/sessions']['get']['parameters']['query']>;
export type SessionsAnswer = paths['/v1/sessions']['get']['responses']['200']['content']['application/json']['data'];
export type SessionRow = SessionsAnswer['sessions'][number];

const STRING_KEYS = [
  'repo',
  'branch',
  'agentType',
  'model',
  'workerKind',
  'actor',
  'origin',
  'q',
  'from',
  'to',
  'includeSubagents',
  'pr',
] as const;
const SORTS = ['startedAt', 'cost', 'errors', 'turns', 'steering', 'toolErrorRate'] as const;
const SIGNALS = ['hands-on', 'denied', 'tool-errors', 'provider-errors', 'clean'] as const;
export const PAGE_SIZE = 50;

function oneOf<T extends string>(list: readonly T[], v: unknown): T | undefined {
  return typeof v === 'string' && (list as readonly string[]).includes(v) ? (v as T) : undefined;
}
function count(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : NaN;
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** Keeps what GET /v1/sessions understands from the URL; the API validates the values. */
export function parseSessionsSearch(s: Record<string, unknown>): SessionsSearch {
  const out: SessionsSearch = {};
  for (const k of STRING_KEYS) {
    const v = s[k];
    if (typeof v === 'string' && v !== '') out[k] = v;
    else if (typeof v === 'number') out[k] = String(v);
  }
  const limit = count(s.limit),
    offset = count(s.offset);
  if (limit !== undefined) out.limit = limit;
  if (offset !== undefined && offset > 0) out.offset = offset;
  if (s.repoScope === 'all') out.repoScope = 'all';
  const sort = oneOf(SORTS, s.sort),
    dir = oneOf(['asc', 'desc'] as const, s.dir),
    signal = oneOf(SIGNALS, s.signal);
  if (sort) out.sort = sort;
  if (dir) out.dir = dir;
  if (signal) out.signal = signal;
  return out;
}

export const SIGNAL_NAMES = SIGNALS;

export const sessionsQuery = (appId: string, search: SessionsSearch) =>
  queryOptions({
    queryKey: ['sessions', appId, search],
    queryFn: () =>
      unwrap(api.GET('/v1/sessions', { params: { query: { limit: PAGE_SIZE, ...search } }, ...factory(appId) })).then(
        (r) => r.data,
      ),
  });

/** The sessions the page lists, every page of them, as a file (the same filters; no limit or offset). */
export function exportSessions(appId: string, search: SessionsSearch, format: 'csv' | 'json') {
  const { limit: _limit, offset: _offset, ...filters } = search;
  return api.GET('/v1/sessions/export', {
    params: { query: { ...filters, format } },
    parseAs: 'blob',
    ...factory(appId),
  });
}
