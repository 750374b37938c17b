// OpenTelemetry metrics in (issue 41): Claude Code's usage metrics kept as daily rollups per factory, actor,
// model and metric (`variant` is the attribute that splits a metric: a token type, added/removed lines, an edit
// decision); and the last point of each series received, so cumulative series become differences (a restart,
// a lower value or a new start time, counts from zero) and a point sent again is not counted twice.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('telemetry_metric_days')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    // UTC date, YYYY-MM-DD
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    // '' when the metric names none
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('metric', 'text', (c) => c.notNull())
    .addColumn('variant', 'text', (c) => c.notNull())
    .addColumn('value', 'double precision', (c) => c.notNull())
    .addPrimaryKeyConstraint('telemetry_metric_days_pk', ['app_id', 'day', 'actor_id', 'model', 'metric', 'variant'])
    .execute();

  await db.schema
    .createTable('telemetry_metric_series')
    .addColumn('app_id', 'text', (c) => c.notNull())
    // sha256 hex of the resource, the metric's name and the point's attributes
    .addColumn('series_key', 'text', (c) => c.notNull())
    // Unix nanoseconds as decimal text (beyond a double's exact integers)
    .addColumn('start_nanos', 'text', (c) => c.notNull())
    .addColumn('time_nanos', 'text', (c) => c.notNull())
    .addColumn('last_value', 'double precision', (c) => c.notNull())
    .addPrimaryKeyConstraint('telemetry_metric_series_pk', ['app_id', 'series_key'])
    .execute();
}
