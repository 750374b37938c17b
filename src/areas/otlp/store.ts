// SQL of the telemetry events a factory received: inserted once each (by the record's hash), read back per
// session to rebuild it. Always scoped by app_id.
import type { Db } from '../../db/connection.js';
import { sql } from 'kysely';
import { chunks, deleteWhereIn } from '../../db/chunked.js';

/** Rows a statement, so one stays within both stores' parameter limits. */
const BATCH = 500;

export interface TelemetryEventsTable {
  app_id: string;
  event_key: string;
  org_id: string;
  agent: string;
  session_id: string;
  name: string;
  ts: number;
  seq: number;
  data: string;
  received_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    telemetry_events: TelemetryEventsTable;
  }
}

// The insert of events is event-rows.ts's (insertEventBatch).

export async function sessionEvents(
  db: Db,
  appId: string,
  agent: string,
  sessionId: string,
): Promise<Pick<TelemetryEventsTable, 'name' | 'ts' | 'seq' | 'data'>[]> {
  return db
    .selectFrom('telemetry_events')
    .select(['name', 'ts', 'seq', 'data'])
    .where('app_id', '=', appId)
    .where('agent', '=', agent)
    .where('session_id', '=', sessionId)
    .orderBy('ts')
    .orderBy('seq')
    .execute();
}

/** How many events are stored of each of these sessions (keyed by JSON of [agent, session id]). */
export async function eventCounts(
  db: Db,
  appId: string,
  sessions: readonly (readonly [agent: string, sessionId: string])[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  // One statement an agent, so each probes the (app_id, agent, session_id, ts) index by its whole prefix.
  for (const agent of new Set(sessions.map(([a]) => a))) {
    const ids = sessions.filter(([a]) => a === agent).map(([, id]) => id);
    const rows = await db
      .selectFrom('telemetry_events')
      .select(['session_id', (eb) => eb.fn.countAll<number | string>().as('n')])
      .where('app_id', '=', appId)
      .where('agent', '=', agent)
      .where('session_id', 'in', ids)
      .groupBy('session_id')
      .execute();
    for (const r of rows) out.set(JSON.stringify([agent, r.session_id]), Number(r.n));
  }
  return out;
}

export interface TelemetryMetricDaysTable {
  app_id: string;
  org_id: string;
  day: string;
  actor_id: string;
  model: string;
  metric: string;
  variant: string;
  value: number;
}

/** The same rollups under one custom resource attribute each (migration 0046). */
export interface TelemetryMetricAttributeDaysTable extends TelemetryMetricDaysTable {
  attribute: string;
  attribute_value: string;
}

export interface TelemetryMetricSeriesTable {
  app_id: string;
  series_key: string;
  start_nanos: string;
  time_nanos: string;
  last_value: number;
}

/** A session's custom resource attribute (migration 0038); the budgets' attribute scope reads it. */
export interface SessionAttributesTable {
  app_id: string;
  session_key: string;
  key: string;
  value: string;
  updated_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    telemetry_metric_days: TelemetryMetricDaysTable;
    telemetry_metric_series: TelemetryMetricSeriesTable;
    telemetry_metric_attribute_days: TelemetryMetricAttributeDaysTable;
    session_attributes: SessionAttributesTable;
  }
}

export async function seriesStates(
  db: Db,
  appId: string,
  keys: readonly string[],
): Promise<TelemetryMetricSeriesTable[]> {
  const out: TelemetryMetricSeriesTable[] = [];
  for (const batch of chunks(keys, BATCH))
    out.push(
      ...(await db
        .selectFrom('telemetry_metric_series')
        .selectAll()
        .where('app_id', '=', appId)
        .where('series_key', 'in', batch)
        .execute()),
    );
  return out;
}

export async function saveSeries(db: Db, rows: TelemetryMetricSeriesTable[]): Promise<void> {
  for (const batch of chunks(rows, BATCH))
    await db
      .insertInto('telemetry_metric_series')
      .values(batch)
      .onConflict((oc) =>
        oc.columns(['app_id', 'series_key']).doUpdateSet((eb) => ({
          start_nanos: eb.ref('excluded.start_nanos'),
          time_nanos: eb.ref('excluded.time_nanos'),
          last_value: eb.ref('excluded.last_value'),
        })),
      )
      .execute();
}

/** Add each row's value to its day (one row per day, actor, model, metric and variant). */
export async function addToDays(db: Db, rows: TelemetryMetricDaysTable[]): Promise<void> {
  for (const batch of chunks(rows, BATCH))
    await db
      .insertInto('telemetry_metric_days')
      .values(batch)
      .onConflict((oc) =>
        oc
          .columns(['app_id', 'day', 'actor_id', 'model', 'metric', 'variant'])
          .doUpdateSet((eb) => ({ value: eb(eb.ref('telemetry_metric_days.value'), '+', eb.ref('excluded.value')) })),
      )
      .execute();
}

/** Add each row's value to its day under its attribute (one row per day, attribute, value, actor, model, ...). */
export async function addToAttributeDays(db: Db, rows: TelemetryMetricAttributeDaysTable[]): Promise<void> {
  for (const batch of chunks(rows, BATCH))
    await db
      .insertInto('telemetry_metric_attribute_days')
      .values(batch)
      .onConflict((oc) =>
        oc
          .columns(['app_id', 'day', 'attribute', 'attribute_value', 'actor_id', 'model', 'metric', 'variant'])
          .doUpdateSet((eb) => ({
            value: eb(eb.ref('telemetry_metric_attribute_days.value'), '+', eb.ref('excluded.value')),
          })),
      )
      .execute();
}

/** What a telemetry read counts: one actor, one attribute's value, and the group of each sum. */
export interface MetricFilter {
  actor?: string;
  /** With `by` an attribute, the same attribute's key (a value of another is not kept with it). */
  attribute?: { key: string; value: string };
  /** Sums by actor, model, or the value of one attribute; none: the totals. */
  by?: { kind: 'actor' } | { kind: 'model' } | { kind: 'attribute'; key: string };
}

/**
 * Sums of each metric and variant over days `from` to `to` (UTC dates, both included), of the filter's actor and
 * attribute value, by the filter's group (`group` null without one). An attribute filter or group reads the
 * rollups by attribute (migration 0046).
 */
export async function metricSums(
  db: Db,
  appId: string,
  from: string,
  to: string,
  f: MetricFilter,
): Promise<{ group: string | null; metric: string; variant: string; value: number }[]> {
  const byAttribute = f.attribute !== undefined || f.by?.kind === 'attribute';
  const groupColumn =
    f.by?.kind === 'actor'
      ? 'actor_id'
      : f.by?.kind === 'model'
        ? 'model'
        : f.by?.kind === 'attribute'
          ? 'attribute_value'
          : null;
  const rows = byAttribute
    ? await (() => {
        let q = db
          .selectFrom('telemetry_metric_attribute_days')
          .where('app_id', '=', appId)
          .where('day', '>=', from)
          .where('day', '<=', to);
        // Grouped by an attribute, filtered by (at most) a value of the same one (the route refuses another).
        if (f.by?.kind === 'attribute') {
          q = q.where('attribute', '=', f.by.key);
          if (f.attribute) q = q.where('attribute_value', '=', f.attribute.value);
        } else if (f.attribute) {
          q = q.where('attribute', '=', f.attribute.key).where('attribute_value', '=', f.attribute.value);
        }
        if (f.actor !== undefined) q = q.where('actor_id', '=', f.actor);
        return q
          .select([
            ...(groupColumn ? [sql<string>`${sql.ref(groupColumn)}`.as('grp')] : [sql<null>`null`.as('grp')]),
            'metric',
            'variant',
            (eb) => eb.fn.sum<number | string>('value').as('value'),
          ])
          .groupBy([...(groupColumn ? [groupColumn] : []), 'metric', 'variant'] as never)
          .execute();
      })()
    : await (() => {
        let q = db
          .selectFrom('telemetry_metric_days')
          .where('app_id', '=', appId)
          .where('day', '>=', from)
          .where('day', '<=', to);
        if (f.actor !== undefined) q = q.where('actor_id', '=', f.actor);
        return q
          .select([
            ...(groupColumn ? [sql<string>`${sql.ref(groupColumn)}`.as('grp')] : [sql<null>`null`.as('grp')]),
            'metric',
            'variant',
            (eb) => eb.fn.sum<number | string>('value').as('value'),
          ])
          .groupBy([...(groupColumn ? [groupColumn] : []), 'metric', 'variant'] as never)
          .execute();
      })();
  return rows.map((r) => ({
    group: (r as { grp: string | null }).grp,
    metric: r.metric,
    variant: r.variant,
    value: Number(r.value),
  }));
}

/** Sums of each metric and variant over days `from` to `to` (UTC dates, both included). */
export async function metricTotals(
  db: Db,
  appId: string,
  from: string,
  to: string,
): Promise<{ metric: string; variant: string; value: number }[]> {
  const rows = await db
    .selectFrom('telemetry_metric_days')
    .select(['metric', 'variant', (eb) => eb.fn.sum<number | string>('value').as('value')])
    .where('app_id', '=', appId)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .groupBy(['metric', 'variant'])
    .execute();
  return rows.map((r) => ({ metric: r.metric, variant: r.variant, value: Number(r.value) }));
}

/** Keep each session's attributes; a value sent again replaces the one stored. */
export async function keepSessionAttributes(db: Db, rows: readonly SessionAttributesTable[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto('session_attributes')
      .values(rows.slice(i, i + 200))
      .onConflict((oc) =>
        oc.columns(['app_id', 'session_key', 'key']).doUpdateSet((eb) => ({
          value: eb.ref('excluded.value'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
}

export async function deleteSessionAttributes(db: Db, appId: string, sessionKeys: readonly string[]): Promise<void> {
  await deleteWhereIn(db, 'session_attributes', appId, 'session_key', sessionKeys, 500);
}
