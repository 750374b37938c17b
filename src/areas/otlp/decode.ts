// An OTLP/HTTP body to the export request it carries: the encoding (protobuf or JSON, as Content-Type says),
// gzip when Content-Encoding says so, and the limits of a request (bytes once inflated). Decoding is the
// generated OpenTelemetry code's (proto.ts); a body it cannot decode is a 400, as OTLP/HTTP says.
import zlib from 'node:zlib';
import { apiError } from '../../server/errors.js';
import {
  REQUEST_TYPES,
  TO_OBJECT,
  type AnyValue,
  type AnyValueMessage,
  type ExportLogsMessage,
  type Int64,
  type KeyValue,
  type KeyValueMessage,
  type Signal,
} from './proto.js';

const MiB = 1024 * 1024;

/** The limits of one OTLP request (docs/telemetry.md). */
export const OTLP_LIMITS = {
  /** As sent (compressed or not): the route's body limit, the same as a sync's. */
  bodyBytes: 8 * MiB,
  /** Once inflated: a gzip bomb stops here. */
  inflatedBytes: 32 * MiB,
  /** Log records, or metric data points, in one request. */
  records: 10_000,
  /** Attributes of one record (its resource's included). */
  attributes: 256,
  /** Characters of one attribute value (a string, or a nested value's strings together). */
  attributeChars: 64 * 1024,
  /** Nesting of one attribute value (arrays and key-value lists). */
  attributeDepth: 8,
} as const;

export type Encoding = 'protobuf' | 'json';

/** The encoding a Content-Type names, or null when it is neither of OTLP/HTTP's two. */
export function encodingOf(contentType: string | undefined): Encoding | null {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return null;
}

function inflate(body: Buffer, contentEncoding: string | undefined): Buffer {
  const coding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (coding === 'identity' || coding === '') return body;
  if (coding !== 'gzip')
    throw apiError('unsupported_media_type', `Content-Encoding ${coding} is not accepted; send gzip or none.`);
  try {
    return zlib.gunzipSync(body, { maxOutputLength: OTLP_LIMITS.inflatedBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw apiError('payload_too_large', 'The body inflates to more than a request may hold.', {
        limit: OTLP_LIMITS.inflatedBytes,
        unit: 'bytes',
      });
    throw apiError('invalid_otlp', 'The body is not valid gzip.');
  }
}

const HEX_ID = /^(?:[0-9a-fA-F]{2})*$/;
const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

/**
 * OTLP/JSON writes trace and span ids as hex where protobuf's JSON mapping (which the generated code reads)
 * expects base64: rewritten in place before conversion. Nothing else of the body is touched.
 */
function hexIdsToBase64(value: unknown, depth: number): void {
  if (depth > 12 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) hexIdsToBase64(item, depth + 1);
    return;
  }
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    const child = obj[key];
    if (ID_FIELDS.has(key) && typeof child === 'string' && HEX_ID.test(child))
      obj[key] = Buffer.from(child, 'hex').toString('base64');
    // Attribute values (AnyValue) are not walked: ids sit on records, spans and links only.
    else if (key !== 'attributes' && key !== 'body') hexIdsToBase64(child, depth + 1);
  }
}

/** The generated message of `signal` in `body` (absent fields null, 64-bit integers Longs, bytes Uint8Arrays). */
function decodeMessage(signal: Signal, encoding: Encoding, raw: Buffer, contentEncoding: string | undefined): object {
  const body = inflate(raw, contentEncoding);
  const type = REQUEST_TYPES[signal];
  try {
    if (encoding === 'protobuf') return type.decode(body);
    const parsed: unknown = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new TypeError('not an object');
    hexIdsToBase64(parsed, 0);
    return type.fromObject(parsed as Record<string, unknown>);
  } catch {
    // A truncated or foreign body, a wrong field type, or nesting deep enough to exhaust the decoder's stack.
    throw apiError(
      'invalid_otlp',
      `The body is not an OTLP ${signal} export request in ${encoding === 'protobuf' ? 'protobuf' : 'JSON'}.`,
    );
  }
}

/** The export request of `signal` in `body`, as a plain object (proto.ts's shapes). */
export function decodeRequest<S extends Signal>(
  signal: S,
  encoding: Encoding,
  raw: Buffer,
  contentEncoding: string | undefined,
): ReturnType<(typeof REQUEST_TYPES)[S]['toObject']> {
  const message = decodeMessage(signal, encoding, raw, contentEncoding);
  return REQUEST_TYPES[signal].toObject(message, TO_OBJECT) as ReturnType<(typeof REQUEST_TYPES)[S]['toObject']>;
}

/** A logs export request as decoded, read without a plain copy (proto.ts ExportLogsMessage). */
export function decodeLogs(encoding: Encoding, raw: Buffer, contentEncoding: string | undefined): ExportLogsMessage {
  return decodeMessage('logs', encoding, raw, contentEncoding) as ExportLogsMessage;
}

/** A 64-bit integer of a decoded message (a Long, or a number) or of a plain one (a decimal string), as text. */
export function int64Text(v: Int64 | string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  const n = (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
  return String(v.unsigned ? n : BigInt.asIntN(64, n));
}

/** A record (or data point) that cannot be kept, with why; the rest of its request is. */
export class RecordProblem extends Error {}

export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [k: string]: AttributeValue };

/** `s` counted against the attribute's budget (a function of its own: this runs for every value of a batch). */
function spend(s: string, budget: { chars: number }): string {
  budget.chars -= s.length;
  if (budget.chars < 0)
    throw new RecordProblem(`an attribute value is longer than ${OTLP_LIMITS.attributeChars} characters`);
  if (s.includes('\u0000')) throw new RecordProblem('an attribute holds a NUL character (U+0000)');
  return s;
}

const wellFormed = (s: string): string => (s.isWellFormed() ? s : s.toWellFormed());

/**
 * An AnyValue as a plain value, within the limits (RecordProblem past them). `budget.chars` is shared. It reads
 * both forms: a plain object (toObject's: absent fields undefined, 64-bit integers strings, bytes base64) and a
 * decoded message (absent fields null, Longs, Uint8Arrays).
 */
export function plainValue(
  v: AnyValue | AnyValueMessage | null | undefined,
  depth: number,
  budget: { chars: number },
): AttributeValue {
  if (!v) return null;
  if (depth > OTLP_LIMITS.attributeDepth)
    throw new RecordProblem(`an attribute is nested deeper than ${OTLP_LIMITS.attributeDepth} levels`);
  if (v.stringValue != null) return wellFormed(spend(v.stringValue, budget));
  if (v.boolValue != null) return v.boolValue;
  if (v.intValue != null) {
    if (typeof v.intValue === 'number') return v.intValue;
    // A Long within 2^53 is its low and high words; past it the exact decimal text.
    if (typeof v.intValue === 'object' && Math.abs(v.intValue.high) < 0x200000)
      return v.intValue.high * 4294967296 + (v.intValue.low >>> 0);
    const n = Number(v.intValue);
    return Number.isSafeInteger(n) ? n : int64Text(v.intValue);
  }
  if (v.doubleValue != null) return Number.isFinite(v.doubleValue) ? v.doubleValue : null;
  if (v.bytesValue != null)
    return spend(
      typeof v.bytesValue === 'string'
        ? v.bytesValue
        : Buffer.from(v.bytesValue.buffer, v.bytesValue.byteOffset, v.bytesValue.byteLength).toString('base64'),
      budget,
    );
  if (v.arrayValue) return (v.arrayValue.values ?? []).map((x) => plainValue(x, depth + 1, budget));
  if (v.kvlistValue) return plainAttributes(v.kvlistValue.values, depth + 1, budget);
  return null;
}

export function plainAttributes(
  list: readonly (KeyValue | KeyValueMessage)[] | null | undefined,
  depth: number,
  budget: { chars: number },
): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  if (!list) return out;
  if (list.length > OTLP_LIMITS.attributes) throw new RecordProblem(`more than ${OTLP_LIMITS.attributes} attributes`);
  for (const kv of list) {
    const key = kv.key ?? '';
    if (key === '__proto__' || key.includes('\u0000')) throw new RecordProblem('an attribute key is not accepted');
    // Each top-level attribute has its own budget; a nested value's keys and strings share their attribute's.
    if (depth > 0) {
      budget.chars -= key.length;
      out[key] = plainValue(kv.value, depth, budget);
      continue;
    }
    // A top-level string (most attributes) is checked without a budget of its own.
    const s = kv.value?.stringValue;
    if (s != null) {
      if (s.length > OTLP_LIMITS.attributeChars)
        throw new RecordProblem(`an attribute value is longer than ${OTLP_LIMITS.attributeChars} characters`);
      if (s.includes('\u0000')) throw new RecordProblem('an attribute holds a NUL character (U+0000)');
      out[key] = wellFormed(s);
    } else out[key] = plainValue(kv.value, 0, { chars: OTLP_LIMITS.attributeChars });
  }
  return out;
}
