// Reads of the work board: every page of GET /v1/work-items, the live items and (separately) the withdrawn ones.
import { queryOptions } from '@tanstack/react-query';
import { api, factory, unwrap, type paths } from '../../api/client';

export type WorkEntry =
  paths['/v1/work-items']['get']['responses']['200']['content']['application/json']['data'][number];

/** The stages as the API names them, in board order. */
export const STAGES = ['backlog', 'ready', 'in_progress', 'in_review', 'done'] as const;
export const STAGE_LABEL: Record<string, string> = {
  backlog: 'Backlog',
  ready: 'Ready',
  in_progress: 'In progress',
  in_review: 'In review',
  done: 'Done',
};

/** At most this many pages (100 items each) per list: a board of more says it is cut. */
const MAX_PAGES = 50;

async function listAll(appId: string, withdrawn: boolean): Promise<{ items: WorkEntry[]; truncated: boolean }> {
  const items: WorkEntry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = { ...(cursor ? { cursor } : {}), ...(withdrawn ? { withdrawn: 'true' as const } : {}) };
    const r = await unwrap(api.GET('/v1/work-items', { params: { query }, ...factory(appId) }));
    items.push(...r.data);
    if (!r.pagination.cursor) return { items, truncated: false };
    cursor = r.pagination.cursor;
  }
  return { items, truncated: true };
}

/** The board refreshes on its own: runners claim, renew and move items while it is open. */
export const BOARD_REFRESH_MS = 10_000;

export const workItemsQuery = (appId: string) =>
  queryOptions({
    queryKey: ['work-items', appId, 'live'],
    queryFn: () => listAll(appId, false),
    refetchInterval: BOARD_REFRESH_MS,
  });

export const withdrawnItemsQuery = (appId: string) =>
  queryOptions({
    queryKey: ['work-items', appId, 'withdrawn'],
    queryFn: () => listAll(appId, true),
    refetchInterval: BOARD_REFRESH_MS,
  });
