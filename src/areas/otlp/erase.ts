// Erasing a person from a factory's telemetry (issue 42): the events that name them (every kept event carries the
// sender's `user.email`) are deleted, as are the events and custom attributes of their erased sessions; the daily
// metric rollups move to their pseudonym, summed, so the factory's totals stay exact.
import type { Db } from '../../db/connection.js';
import './store.js';

export interface ErasedTelemetry {
  events: number;
  metricRows: number;
}

export async function eraseTelemetry(
  db: Db,
  appId: string,
  who: { email: string | null; actorIds: readonly string[]; sessionKeys: readonly string[]; sessionIds: string[] },
  pseudonym: string,
): Promise<ErasedTelemetry> {
  let events = 0;
  if (who.email) {
    const res = await db
      .deleteFrom('telemetry_events')
      .where('app_id', '=', appId)
      .where((eb) => eb(eb.fn('lower', ['data']), 'like', `%${escapeLike(who.email!)}%`))
      .executeTakeFirst();
    events += Number(res.numDeletedRows);
  }
  for (let i = 0; i < who.sessionIds.length; i += 300) {
    const res = await db
      .deleteFrom('telemetry_events')
      .where('app_id', '=', appId)
      .where('session_id', 'in', who.sessionIds.slice(i, i + 300))
      .executeTakeFirst();
    events += Number(res.numDeletedRows);
  }
  for (let i = 0; i < who.sessionKeys.length; i += 300)
    await db
      .deleteFrom('session_attributes')
      .where('app_id', '=', appId)
      .where('session_key', 'in', who.sessionKeys.slice(i, i + 300))
      .execute();

  let metricRows = 0;
  if (who.actorIds.length) {
    const rows = await db
      .selectFrom('telemetry_metric_days')
      .selectAll()
      .where('app_id', '=', appId)
      .where('actor_id', 'in', [...who.actorIds])
      .execute();
    metricRows = rows.length;
    if (rows.length) {
      await db
        .deleteFrom('telemetry_metric_days')
        .where('app_id', '=', appId)
        .where('actor_id', 'in', [...who.actorIds])
        .execute();
      // Summed here first: one statement may not update the same row twice (PostgreSQL refuses).
      const merged = new Map<string, (typeof rows)[number]>();
      for (const r of rows) {
        const key = JSON.stringify([r.day, r.model, r.metric, r.variant]);
        const found = merged.get(key);
        if (found) found.value += Number(r.value);
        else merged.set(key, { ...r, actor_id: pseudonym, value: Number(r.value) });
      }
      const values = [...merged.values()];
      for (let i = 0; i < values.length; i += 300)
        await db
          .insertInto('telemetry_metric_days')
          .values(values.slice(i, i + 300))
          .onConflict((oc) =>
            oc.columns(['app_id', 'day', 'actor_id', 'model', 'metric', 'variant']).doUpdateSet((eb) => ({
              value: eb(eb.ref('telemetry_metric_days.value'), '+', eb.ref('excluded.value')),
            })),
          )
          .execute();
    }
  }
  return { events, metricRows };
}

/** `s` inside a LIKE pattern: its % and _ become the one-character wildcard, matching a little more, never less. */
function escapeLike(s: string): string {
  return s.replace(/[%_]/g, (c) => `_`.repeat(c.length));
}
