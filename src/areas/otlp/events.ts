// Log records to agent events: which of Claude Code's and Codex's documented events a record is, the session
// it belongs to, and the attributes Attest keeps of it (numbers, names, outcomes; no prompt or tool content,
// and every kept string scrubbed of secrets as the CLI scrubs a transcript). No SQL, no HTTP.
import crypto from 'node:crypto';
import { scrubString } from '../../capture/scrub.js';
import { int64Text, plainAttributes, RecordProblem, type AttributeValue } from './decode.js';
import type { ExportLogsMessage, Int64, LogRecordMessage } from './proto.js';

export type AgentKind = 'claude-code' | 'codex';

export interface AgentEvent {
  agent: AgentKind;
  /** Claude Code's `session.id`, Codex's `conversation.id`. */
  sessionId: string;
  /** The event's name without its agent's prefix: `api_request`, `tool_result`, ... */
  name: string;
  /** Unix ms. */
  ts: number;
  /** Claude Code's `event.sequence` (order within a session), else 0. */
  seq: number;
  /**
   * The event's time (12 hex digits of its ms) then a sha256 of the record and its resource (32 hex digits): the
   * same record sent again has the same key, and new events land at the end of the key's index, not all over it.
   */
  key: string;
  /** What is kept of the record's attributes (KEPT below), scrubbed. */
  data: Record<string, AttributeValue>;
}

/** The events each agent documents that make a session, and the attributes kept of each. */
const KEPT: Record<AgentKind, Record<string, readonly string[]>> = {
  'claude-code': {
    user_prompt: ['prompt_length'],
    api_request: [
      'model',
      'cost_usd',
      'duration_ms',
      'input_tokens',
      'output_tokens',
      'cache_read_tokens',
      'cache_creation_tokens',
    ],
    api_error: ['model', 'error', 'status_code', 'duration_ms', 'attempt'],
    tool_result: ['tool_name', 'success', 'duration_ms', 'error', 'decision', 'source', 'git_commit_id'],
    tool_decision: ['tool_name', 'decision', 'source'],
  },
  codex: {
    conversation_starts: ['model', 'provider_name', 'reasoning_effort', 'approval_policy', 'sandbox_policy'],
    user_prompt: ['prompt_length', 'model'],
    api_request: ['model', 'duration_ms', 'http.response.status_code', 'error.message', 'attempt'],
    sse_event: [
      'model',
      'event.kind',
      'input_token_count',
      'output_token_count',
      'cached_token_count',
      'reasoning_token_count',
      'tool_token_count',
      'duration_ms',
      'error.message',
    ],
    tool_result: ['model', 'tool_name', 'success', 'duration_ms', 'call_id'],
    tool_decision: ['model', 'tool_name', 'decision', 'source', 'call_id'],
  },
};

/** Attributes every kept event carries when sent: who, which version, which repository. */
const COMMON = [
  'app.version',
  'user.email',
  'user.account_uuid',
  'user.account_id',
  'organization.id',
  'terminal.type',
  'vcs.repository.name',
  'vcs.repository.url.full',
  'vcs.ref.head.name',
];

/** Each event's kept attributes and the common ones, in one list. */
const withCommon = (events: Record<string, readonly string[]>): Record<string, readonly string[]> =>
  Object.fromEntries(Object.entries(events).map(([name, attrs]) => [name, [...attrs, ...COMMON]]));
const KEPT_WITH_COMMON: Record<AgentKind, Record<string, readonly string[]>> = {
  'claude-code': withCommon(KEPT['claude-code']),
  codex: withCommon(KEPT.codex),
};

/** Resource attributes that describe the process, not the team: not kept as custom attributes. */
const PROCESS_ATTRIBUTE = /^(?:service\.|telemetry\.|host\.|os\.|process\.|service$)/;

const MAX_KEPT_STRING = 500;

/** The attributes of a record: its own over its resource's (looked up, not merged: this is made for every record). */
class Attr {
  constructor(
    private readonly own: Record<string, AttributeValue>,
    private readonly resource: Record<string, AttributeValue>,
  ) {}

  get(name: string): AttributeValue | undefined {
    return Object.hasOwn(this.own, name)
      ? this.own[name]
      : Object.hasOwn(this.resource, name)
        ? this.resource[name]
        : undefined;
  }
}

function str(v: AttributeValue | undefined): string | undefined {
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** Unix ms of nanoseconds (a decoded fixed64), or 0. */
function msOf(nanos: Int64 | null | undefined): number {
  if (nanos === null || nanos === undefined) return 0;
  if (typeof nanos === 'number') return Math.floor(nanos / 1_000_000);
  if (nanos.low === 0 && nanos.high === 0) return 0;
  return Number(BigInt(int64Text(nanos)) / 1_000_000n);
}

/** Unix ms of a record: `event.timestamp`, else the record's time, else when it was observed. */
function timeOf(record: LogRecordMessage, attr: Attr): number | null {
  const iso = str(attr.get('event.timestamp'));
  if (iso) {
    const ms = Date.parse(iso);
    if (Number.isFinite(ms)) return ms;
  }
  const ms = msOf(record.timeUnixNano) || msOf(record.observedTimeUnixNano);
  return ms > 0 ? ms : null;
}

/** Which agent and event a record is: its event name (the field, `event.name`, or the body) and service. */
function identify(record: LogRecordMessage, attr: Attr, service: string): { agent: AgentKind; name: string } | null {
  const candidates = [record.eventName, str(attr.get('event.name')), record.body?.stringValue];
  for (const c of candidates) {
    if (!c) continue;
    if (c.startsWith('claude_code.')) return { agent: 'claude-code', name: c.slice('claude_code.'.length) };
    if (c.startsWith('codex.')) return { agent: 'codex', name: c.slice('codex.'.length) };
  }
  const bare = str(attr.get('event.name')) ?? record.eventName;
  if (!bare) return null;
  if (/claude/i.test(service)) return { agent: 'claude-code', name: bare };
  if (/codex/i.test(service)) return { agent: 'codex', name: bare };
  return null;
}

/** The git commit a Bash tool result made, from `tool_parameters` (sent when tool details are on). */
function commitOf(attr: Attr): string | undefined {
  const direct = str(attr.get('git_commit_id'));
  if (direct) return direct;
  const params = attr.get('tool_parameters');
  if (typeof params !== 'string') return undefined;
  try {
    const parsed = JSON.parse(params) as Record<string, unknown>;
    return typeof parsed.git_commit_id === 'string' ? parsed.git_commit_id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What is kept of an attribute value. Scrubbed strings are remembered for the request (`scrubbed`): a batch
 * repeats the same few (model, email, version, tool name) hundreds of times.
 */
function keep(value: AttributeValue | undefined, scrubbed: Map<string, string>): AttributeValue | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') {
    let clean = scrubbed.get(value);
    if (clean === undefined) {
      clean = scrubString(value.slice(0, MAX_KEPT_STRING));
      if (scrubbed.size < 10_000) scrubbed.set(value, clean);
    }
    return clean;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  return undefined;
}

export interface RecordsOutcome {
  events: AgentEvent[];
  /** Records refused (malformed, or not an agent event Attest keeps), with the first reasons. */
  rejected: number;
  reasons: string[];
}

/** A decoded 64-bit integer as text that tells it apart from every other (its two words; not its value). */
const wordsOf = (v: Int64 | null | undefined): string =>
  v == null ? '' : typeof v === 'number' ? String(v) : `${v.high >>> 0}:${v.low >>> 0}`;

/** Bytes (a trace or span id) as hex, '' when absent. */
const hexOf = (b: Uint8Array | null | undefined): string =>
  b?.length ? Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex') : '';

/**
 * What identifies a record (with its resource): every field it has, its attributes as read. A record's key is a
 * hash of it, so a record sent again (an exporter's retry) is the same event.
 */
function identityOf(record: LogRecordMessage, own: Record<string, AttributeValue>): string {
  const body = record.body;
  return JSON.stringify([
    wordsOf(record.timeUnixNano),
    wordsOf(record.observedTimeUnixNano),
    record.severityNumber ?? 0,
    record.severityText ?? '',
    record.eventName ?? '',
    body == null ? null : body.stringValue != null ? body.stringValue : JSON.stringify(body),
    own,
    hexOf(record.traceId),
    hexOf(record.spanId),
    record.flags ?? 0,
  ]);
}

/** Every record of a logs export request, as agent events or as refusals (the request's partial success). */
export function eventsOf(request: ExportLogsMessage): RecordsOutcome {
  const out: RecordsOutcome = { events: [], rejected: 0, reasons: [] };
  const scrubbed = new Map<string, string>();
  const refuse = (reason: string) => {
    out.rejected += 1;
    if (out.reasons.length < 3 && !out.reasons.includes(reason)) out.reasons.push(reason);
  };
  for (const rl of request.resourceLogs ?? []) {
    const records: LogRecordMessage[] = [];
    for (const sl of rl.scopeLogs ?? []) for (const r of sl.logRecords ?? []) records.push(r);
    let resource: Record<string, AttributeValue>;
    try {
      resource = plainAttributes(rl.resource?.attributes, 0, { chars: 0 });
    } catch (err) {
      for (const _ of records) refuse(`resource: ${(err as Error).message}`);
      continue;
    }
    // Each record's hash is of its resource's JSON then its own identity: one call a record (copying a hash
    // begun on the resource cost more than hashing the resource's few bytes again).
    const resourceText = JSON.stringify(resource);
    const service = str(resource['service.name']) ?? '';
    const custom: [key: string, kept: string, value: AttributeValue][] = [];
    for (const [k, v] of Object.entries(resource)) if (!PROCESS_ATTRIBUTE.test(k)) custom.push([k, `resource.${k}`, v]);

    for (const record of records) {
      try {
        const own = plainAttributes(record.attributes, 0, { chars: 0 });
        const attr = new Attr(own, resource);
        const id = identify(record, attr, service);
        const kept = id ? KEPT_WITH_COMMON[id.agent][id.name] : undefined;
        if (!id || !kept) {
          refuse('not a Claude Code or Codex event Attest keeps');
          continue;
        }
        const sessionId = str(attr.get(id.agent === 'codex' ? 'conversation.id' : 'session.id'));
        if (!sessionId)
          throw new RecordProblem(`${id.agent === 'codex' ? 'conversation.id' : 'session.id'} is missing`);
        if (sessionId.length > 200) throw new RecordProblem('the session id is longer than 200 characters');
        const ts = timeOf(record, attr);
        if (ts === null) throw new RecordProblem('the record has no time');
        const data: Record<string, AttributeValue> = {};
        for (const name of kept) {
          const v = keep(name === 'git_commit_id' ? commitOf(attr) : attr.get(name), scrubbed);
          if (v !== undefined) data[name] = v;
        }
        for (const [k, as, v] of custom) {
          const kept = keep(v, scrubbed);
          if (kept !== undefined && !(k in data)) data[as] = kept;
        }
        const seqRaw = attr.get('event.sequence');
        const hash = crypto.hash('sha256', resourceText + identityOf(record, own), 'hex');
        out.events.push({
          agent: id.agent,
          sessionId,
          name: id.name,
          ts,
          seq: typeof seqRaw === 'number' && Number.isSafeInteger(seqRaw) ? seqRaw : 0,
          key: `${Math.max(0, Math.min(ts, 0xffffffffffff)).toString(16).padStart(12, '0')}${hash.slice(0, 32)}`,
          data,
        });
      } catch (err) {
        if (!(err instanceof RecordProblem)) throw err;
        refuse(err.message);
      }
    }
  }
  return out;
}
