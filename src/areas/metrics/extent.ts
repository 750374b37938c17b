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
  let ends = db
    .selectFrom('sessions')
    .select((eb) => [eb.fn.min<number>('started_at').as('first'), eb.fn.max<number>('started_at').as('last')])
    .where('app_id', '=', scope.appId)
    .where('is_subagent', '=', 0);
  if (scope.repo !== undefined) {
    counted = counted.where('repo', '=', scope.repo);
    ends = ends.where('repo', '=', scope.repo);
  }
  const [count, range] = await Promise.all([counted.executeTakeFirst(), ends.executeTakeFirst()]);
  const sessions = Number(count?.n ?? 0);
  const iso = (ms: number | null | undefined) =>
    ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString();
  return {
    sessions,
    firstStartedAt: sessions > 0 ? iso(range?.first) : null,
    lastStartedAt: sessions > 0 ? iso(range?.last) : null,
  };
}
