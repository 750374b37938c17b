// Metric data points to daily rollup increments: which of Claude Code's usage metrics a point is, who and which
// model it is about, and how much it adds. Delta points add their value; cumulative points add the difference
// from their series' last value (the whole value when the series restarted: a lower value, or a new start time).
// A point no later than its series' last is one already counted (an exporter's retry) and adds nothing.
// No SQL, no HTTP.
import crypto from 'node:crypto';
import { plainAttributes, RecordProblem, type AttributeValue } from './decode.js';
import type { ExportMetricsRequest, NumberDataPoint } from './proto.js';

/** The metrics kept, and the point attribute that splits each (its `variant`). */
export const KEPT_METRICS: Record<string, string | null> = {
  'claude_code.cost.usage': null,
  'claude_code.token.usage': 'type',
  'claude_code.lines_of_code.count': 'type',
  'claude_code.commit.count': null,
  'claude_code.pull_request.count': null,
  'claude_code.active_time.total': 'type',
  'claude_code.code_edit_tool.decision': 'decision',
};

const CUMULATIVE = 2;

/** Resource attributes that say which process or who, not which team: not kept as custom attributes. */
const NOT_CUSTOM =
  /^(?:service\.|telemetry\.|host\.|os\.|process\.|service$|user\.|session\.|organization\.|app\.|terminal\.)/;
/** At most this many custom attributes are kept of a resource (a resource rarely carries more than a handful). */
export const MAX_METRIC_ATTRIBUTES = 16;

/** A resource's custom attributes: strings, numbers and booleans, keys up to 200 and values up to 500 characters. */
function customAttributes(resource: Record<string, AttributeValue>): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(resource).sort(([x], [y]) => (x < y ? -1 : 1))) {
    if (NOT_CUSTOM.test(k) || k.length > 200) continue;
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') continue;
    const value = String(v);
    if (value === '' || value.length > 500) continue;
    out.push([k, value]);
    if (out.length === MAX_METRIC_ATTRIBUTES) break;
  }
  return out;
}

export interface MetricPoint {
  series: string;
  metric: string;
  variant: string;
  model: string;
  /** The resource's custom attributes (OTEL_RESOURCE_ATTRIBUTES such as team=payments), as [key, value]. */
  attributes: [string, string][];
  /** Who: `user.email`, else `user.account_uuid`, from the point or its resource. */
  email: string | undefined;
  account: string | undefined;
  cumulative: boolean;
  startNanos: bigint;
  timeNanos: bigint;
  value: number;
}

export interface SeriesState {
  startNanos: bigint;
  timeNanos: bigint;
  lastValue: number;
}

const str = (v: AttributeValue | undefined): string | undefined =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;

const nanos = (v: string | undefined): bigint => {
  try {
    return v ? BigInt(v) : 0n;
  } catch {
    return 0n;
  }
};

/** The kept points of a metrics export request, and how many points were not kept (with why). */
export function pointsOf(request: ExportMetricsRequest): {
  points: MetricPoint[];
  rejected: number;
  reasons: string[];
} {
  const out = { points: [] as MetricPoint[], rejected: 0, reasons: [] as string[] };
  const refuse = (n: number, reason: string) => {
    out.rejected += n;
    if (n && out.reasons.length < 3 && !out.reasons.includes(reason)) out.reasons.push(reason);
  };
  for (const rm of request.resourceMetrics ?? []) {
    const metrics = (rm.scopeMetrics ?? []).flatMap((s) => s.metrics ?? []);
    let resource: Record<string, AttributeValue>;
    try {
      resource = plainAttributes(rm.resource?.attributes, 0, { chars: 0 });
    } catch (err) {
      for (const m of metrics) refuse(countOf(m), `resource: ${(err as Error).message}`);
      continue;
    }
    const resourceKey = JSON.stringify(Object.entries(resource).sort(([x], [y]) => (x < y ? -1 : 1)));
    const custom = customAttributes(resource);
    for (const m of metrics) {
      const name = m.name ?? '';
      if (!(name in KEPT_METRICS) || !m.sum) {
        refuse(countOf(m), 'not a Claude Code usage metric Attest keeps');
        continue;
      }
      const split = KEPT_METRICS[name] ?? null;
      const cumulative = m.sum.aggregationTemporality === CUMULATIVE;
      for (const p of m.sum.dataPoints ?? []) {
        try {
          out.points.push({ ...pointOf(p, name, split, cumulative, resource, resourceKey), attributes: custom });
        } catch (err) {
          if (!(err instanceof RecordProblem)) throw err;
          refuse(1, err.message);
        }
      }
    }
  }
  return out;
}

type AnyMetric = {
  sum?: { dataPoints?: unknown[] };
  gauge?: { dataPoints?: unknown[] };
  histogram?: { dataPoints?: unknown[] };
  exponentialHistogram?: { dataPoints?: unknown[] };
  summary?: { dataPoints?: unknown[] };
};

/** The data points of a metric, whatever its type. */
export function countOf(m: AnyMetric): number {
  return (
    m.sum?.dataPoints?.length ??
    m.gauge?.dataPoints?.length ??
    m.histogram?.dataPoints?.length ??
    m.exponentialHistogram?.dataPoints?.length ??
    m.summary?.dataPoints?.length ??
    0
  );
}

function pointOf(
  p: NumberDataPoint,
  metric: string,
  split: string | null,
  cumulative: boolean,
  resource: Record<string, AttributeValue>,
  resourceKey: string,
): Omit<MetricPoint, 'attributes'> {
  const own = plainAttributes(p.attributes, 0, { chars: 0 });
  const attr = (k: string) => (Object.hasOwn(own, k) ? own[k] : Object.hasOwn(resource, k) ? resource[k] : undefined);
  const value = p.asDouble !== undefined ? p.asDouble : p.asInt !== undefined ? Number(p.asInt) : Number.NaN;
  if (!Number.isFinite(value) || value < 0) throw new RecordProblem('a data point has no value, or a negative one');
  const timeNanos = nanos(p.timeUnixNano);
  if (timeNanos <= 0n) throw new RecordProblem('a data point has no time');
  const ownKey = JSON.stringify(Object.entries(own).sort(([x], [y]) => (x < y ? -1 : 1)));
  return {
    series: crypto
      .createHash('sha256')
      .update(resourceKey)
      .update('\u0000')
      .update(metric)
      .update('\u0000')
      .update(ownKey)
      .digest('hex'),
    metric: metric.slice('claude_code.'.length),
    variant: (split ? str(attr(split)) : undefined)?.slice(0, 100) ?? '',
    model: str(attr('model'))?.slice(0, 200) ?? '',
    email: str(attr('user.email'))?.toLowerCase(),
    account: str(attr('user.account_uuid')) ?? str(attr('user.account_id')),
    cumulative,
    startNanos: nanos(p.startTimeUnixNano),
    timeNanos,
    value,
  };
}

/**
 * What a point adds to its day, given its series' last state (updated in place), or 0 when it was counted
 * already. Points of one series must come in time order.
 */
export function increment(point: MetricPoint, state: Map<string, SeriesState>): number {
  const last = state.get(point.series);
  if (last && point.timeNanos <= last.timeNanos) return 0;
  state.set(point.series, { startNanos: point.startNanos, timeNanos: point.timeNanos, lastValue: point.value });
  if (!point.cumulative) return point.value;
  if (!last || point.startNanos !== last.startNanos || point.value < last.lastValue) return point.value;
  return point.value - last.lastValue;
}

/** The UTC day of a point. */
export const dayOf = (timeNanos: bigint): string => new Date(Number(timeNanos / 1_000_000n)).toISOString().slice(0, 10);
