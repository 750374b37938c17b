// PostgreSQL: the rows of a few sessions found one index probe per session, whatever the table's statistics.
//
// A re-send of grown sessions (what `attest sync` does as a transcript grows) replaces their usage, tool and PR
// rows and updates their summaries, by session id. Written as `app_id = $1 and session_id in (...)` or as a
// join on the id, PostgreSQL chose the plan by its statistics, and while an app grew faster than autovacuum
// analyzed it (a new factory's first syncs, a backfill, a bench run) it took the app for a few rows and read
// all of them on every sync: the summaries' update hash-joined every one of the app's sessions, and the usage
// and PR deletes bitmap-scanned the app's (app_id, started_at) or (app_id, repository, number) entries, a cost
// that grows with the app. The lookup a sync starts with has the same cause and the same cure
// (sessions/store.ts, sessionsByKeysQuery).
//
// Here each id is one probe of an index that leads with the id column, in a lateral subquery that `offset 0`
// keeps whole (PostgreSQL neither flattens it into a join it would plan by statistics nor pushes the app's
// condition into it, where it could pick an index by `app_id` instead); the rows found are then read or
// deleted by their `ctid` (a TID scan, the cheapest path there is). The app's condition is checked on every
// row found. The rows are stable in between: the sync holds the sessions' rows locked (`for update`), and
// every writer of these rows takes those locks first.

/** How the probe finds one session's rows: by an index that leads with the session column, or with app_id then it. */
export type SessionProbe = 'session' | 'app-then-session';

/**
 * SQL that is an array of the `ctid`s of the rows of `table` whose `column` is one of the ids in the `text[]`
 * parameter `idsParam` and whose app_id is the parameter `appParam`: `ctid = any(<this>)` reads exactly them.
 * `table` and `column` are names of the code, never values.
 */
export function rowsOfSessionsTids(
  table: string,
  column: string,
  probe: SessionProbe,
  appParam: string,
  idsParam: string,
): string {
  const appFirst = probe === 'app-then-session' ? `"app_id" = ${appParam} and ` : '';
  return (
    `array(select s.ctid from unnest(${idsParam}::text[]) as k(id) cross join lateral ` +
    `(select ctid, "app_id" from "${table}" where ${appFirst}"${column}" = k.id offset 0) as s where s."app_id" = ` +
    `${appParam})`
  );
}

/** `delete from table` of the rows of these sessions ($1 the app id, $2 the session ids), as above. */
export function deleteRowsOfSessionsText(table: string, column: string, probe: SessionProbe): string {
  return `delete from "${table}" where ctid = any(${rowsOfSessionsTids(table, column, probe, '$1', '$2')})`;
}
