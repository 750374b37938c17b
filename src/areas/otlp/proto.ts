// The OTLP message types, from the OpenTelemetry JS project's own protobuf definitions: the static protobufjs
// module that @opentelemetry/otlp-transformer 0.208 generates from opentelemetry-proto (pinned: later versions
// write requests by hand and can no longer decode one). Every byte of a request is decoded by that code and
// every answer encoded by it; nothing here reads or writes protobuf by hand. google.rpc.Status (the body of an
// OTLP error answer) is not among them, so it is declared from its published field numbers for protobufjs to
// encode.
import { createRequire } from 'node:module';
import protobuf from 'protobufjs';

/** What the generated message classes offer (protobufjs static code); T is the message as a plain object. */
export interface MessageType<T> {
  decode(reader: Uint8Array): object;
  fromObject(object: Record<string, unknown>): object;
  toObject(message: object, options: protobuf.IConversionOptions): T;
  encode(message: object): { finish(): Uint8Array };
}

// Plain-object shapes of the messages, as toObject writes them with { longs: String, bytes: String }.
export interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
  bytesValue?: string;
}
export interface KeyValue {
  key?: string;
  value?: AnyValue;
}
export interface Resource {
  attributes?: KeyValue[];
}
export interface LogRecord {
  timeUnixNano?: string;
  observedTimeUnixNano?: string;
  severityNumber?: number;
  severityText?: string;
  body?: AnyValue;
  attributes?: KeyValue[];
  eventName?: string;
  traceId?: string;
  spanId?: string;
}
export interface ExportLogsRequest {
  resourceLogs?: { resource?: Resource; scopeLogs?: { scope?: { name?: string }; logRecords?: LogRecord[] }[] }[];
}
/**
 * A logs export request as the generated code decodes it (protobuf, or JSON through fromObject), before any
 * toObject: absent fields are null (on the prototype), 64-bit integers are Longs and bytes are Uint8Arrays. The
 * receiver reads its logs in this form: toObject's copy of every record and value was a fifth of an export's CPU.
 */
export type Int64 = number | { low: number; high: number; unsigned: boolean };
export interface AnyValueMessage {
  stringValue?: string | null;
  boolValue?: boolean | null;
  intValue?: Int64 | null;
  doubleValue?: number | null;
  arrayValue?: { values?: AnyValueMessage[] | null } | null;
  kvlistValue?: { values?: KeyValueMessage[] | null } | null;
  bytesValue?: Uint8Array | null;
}
export interface KeyValueMessage {
  key?: string | null;
  value?: AnyValueMessage | null;
}
export interface LogRecordMessage {
  timeUnixNano?: Int64 | null;
  observedTimeUnixNano?: Int64 | null;
  severityNumber?: number | null;
  severityText?: string | null;
  body?: AnyValueMessage | null;
  attributes?: KeyValueMessage[] | null;
  flags?: number | null;
  traceId?: Uint8Array | null;
  spanId?: Uint8Array | null;
  eventName?: string | null;
}
export interface ExportLogsMessage {
  resourceLogs?:
    | {
        resource?: { attributes?: KeyValueMessage[] | null } | null;
        scopeLogs?: { logRecords?: LogRecordMessage[] | null }[] | null;
      }[]
    | null;
}
export interface NumberDataPoint {
  attributes?: KeyValue[];
  startTimeUnixNano?: string;
  timeUnixNano?: string;
  asDouble?: number;
  asInt?: string;
}
export interface Sum {
  dataPoints?: NumberDataPoint[];
  /** 1 delta, 2 cumulative (AggregationTemporality). */
  aggregationTemporality?: number;
  isMonotonic?: boolean;
}
export interface Metric {
  name?: string;
  unit?: string;
  sum?: Sum;
  gauge?: { dataPoints?: NumberDataPoint[] };
  histogram?: { dataPoints?: unknown[] };
  exponentialHistogram?: { dataPoints?: unknown[] };
  summary?: { dataPoints?: unknown[] };
}
export interface ExportMetricsRequest {
  resourceMetrics?: { resource?: Resource; scopeMetrics?: { metrics?: Metric[] }[] }[];
}
export interface ExportTraceRequest {
  resourceSpans?: { resource?: Resource; scopeSpans?: { spans?: unknown[] }[] }[];
}

interface Generated {
  opentelemetry: {
    proto: {
      collector: {
        logs: { v1: Record<'ExportLogsServiceRequest' | 'ExportLogsServiceResponse', MessageType<unknown>> };
        metrics: { v1: Record<'ExportMetricsServiceRequest' | 'ExportMetricsServiceResponse', MessageType<unknown>> };
        trace: { v1: Record<'ExportTraceServiceRequest' | 'ExportTraceServiceResponse', MessageType<unknown>> };
      };
    };
  };
}

// The generated module is CommonJS and not among the package's exports: loaded by its path.
const generated = createRequire(import.meta.url)(
  '@opentelemetry/otlp-transformer/build/src/generated/root.js',
) as Generated;
const collector = generated.opentelemetry.proto.collector;

export type Signal = 'logs' | 'metrics' | 'traces';

export const REQUEST_TYPES = {
  logs: collector.logs.v1.ExportLogsServiceRequest as MessageType<ExportLogsRequest>,
  metrics: collector.metrics.v1.ExportMetricsServiceRequest as MessageType<ExportMetricsRequest>,
  traces: collector.trace.v1.ExportTraceServiceRequest as MessageType<ExportTraceRequest>,
} as const;

export const RESPONSE_TYPES: Record<Signal, MessageType<unknown>> = {
  logs: collector.logs.v1.ExportLogsServiceResponse,
  metrics: collector.metrics.v1.ExportMetricsServiceResponse,
  traces: collector.trace.v1.ExportTraceServiceResponse,
};

/** The field of each signal's partialSuccess that counts what was refused (opentelemetry-proto). */
export const REJECTED_FIELD: Record<Signal, string> = {
  logs: 'rejectedLogRecords',
  metrics: 'rejectedDataPoints',
  traces: 'rejectedSpans',
};

/** google.rpc.Status (googleapis google/rpc/status.proto): code = 1, message = 2; details are not sent. */
const StatusType = protobuf.Root.fromJSON({
  nested: {
    google: {
      nested: {
        rpc: {
          nested: { Status: { fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 } } } },
        },
      },
    },
  },
}).lookupType('google.rpc.Status');

export function encodeStatus(code: number, message: string): Uint8Array {
  return StatusType.encode(StatusType.create({ code, message })).finish();
}

export function decodeStatus(bytes: Uint8Array): { code?: number; message?: string } {
  return StatusType.toObject(StatusType.decode(bytes)) as { code?: number; message?: string };
}

/** Conversion options: 64-bit integers as decimal strings (no precision lost), bytes as base64. */
export const TO_OBJECT: protobuf.IConversionOptions = { longs: String, bytes: String, defaults: false, arrays: false };
