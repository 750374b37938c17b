// Erasing a person from a factory's metrics (issue 42): the per-actor rollup rows move to the person's pseudonym,
// summed where two of their ids (a user id and an email) shared a day, so distinct-actor counts and every total
// read the same before and after.
import type { Db } from '../../db/connection.js';
import './rollup-store.js';

/** Move the rollup rows of `actorIds` to `pseudonym`, in the caller's transaction. Answers the rows moved. */
export async function mergeActorRollups(
  db: Db,
  appId: string,
  actorIds: readonly string[],
  pseudonym: string,
): Promise<number> {
  if (!actorIds.length) return 0;
  const rows = await db
    .selectFrom('metrics_day_actors')
    .selectAll()
    .where('app_id', '=', appId)
    .where('actor_id', 'in', [...actorIds])
    .execute();
  if (!rows.length) return 0;
  const merged = new Map<string, { app_id: string; day: number; repo: string; actor_id: string; sessions: number }>();
  for (const r of rows) {
    const key = `${r.day}\u0000${r.repo}`;
    const found = merged.get(key);
    if (found) found.sessions += Number(r.sessions);
    else
      merged.set(key, { app_id: appId, day: r.day, repo: r.repo, actor_id: pseudonym, sessions: Number(r.sessions) });
  }
  await db
    .deleteFrom('metrics_day_actors')
    .where('app_id', '=', appId)
    .where('actor_id', 'in', [...actorIds])
    .execute();
  const values = [...merged.values()];
  for (let i = 0; i < values.length; i += 300)
    await db
      .insertInto('metrics_day_actors')
      .values(values.slice(i, i + 300))
      .onConflict((oc) =>
        oc.columns(['app_id', 'day', 'repo', 'actor_id']).doUpdateSet((eb) => ({
          sessions: eb(eb.ref('metrics_day_actors.sessions'), '+', eb.ref('excluded.sessions')),
        })),
      )
      .execute();
  return rows.length;
}
