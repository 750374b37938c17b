// The factory's sessions whatever the window: how many, the first and the last start. An overview whose window
// holds nothing says where the sessions are and offers the window that holds them (issue 45 §1), and the
// dashboard's first look picks a window that shows data. Reads counters and the ends of an index: cheap at
// any size (no scan of the sessions).
import type { Db } from '../../db/connection.js';
import type { Scope } from './store.js';

export interface SessionExtent {
  /** Top-level sessions (as the `sessions` tile counts them), every start time. */
  sessions: number;
  firstStartedAt: string | null;
  lastStartedAt: string | null;
}

export async function sessionExtent(db: Db, scope: Scope): Promise<SessionExtent> {
  let counted = db
    .selectFrom('session_repos')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('sessions'), eb.lit(0)).as('n'))
    .where('app_id', '=', scope.appId);
  // The first and the last start, each from one end of the (app, [repo,] is_subagent, started_at) index: SQLite
  // answers min() and max() in one select by walking the whole range, which grows with history.
  const end = (order: 'asc' | 'desc') => {
    let q = db
      .selectFrom('sessions')
      .select('started_at')
      .where('app_id', '=', scope.appId)
      .where('is_subagent', '=', 0);
    if (scope.repo !== undefined) q = q.where('repo', '=', scope.repo);
    return q.orderBy('started_at', order).limit(1).executeTakeFirst();
  };
  if (scope.repo !== undefined) counted = counted.where('repo', '=', scope.repo);
  const [count, first, last] = await Promise.all([counted.executeTakeFirst(), end('asc'), end('desc')]);
  const sessions = Number(count?.n ?? 0);
  const iso = (ms: number | null | undefined) =>
    ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString();
  return {
    sessions,
    firstStartedAt: sessions > 0 ? iso(first?.started_at) : null,
    lastStartedAt: sessions > 0 ? iso(last?.started_at) : null,
  };
}
