// Log records to agent events: which of Claude Code's and Codex's documented events a record is, the session
// it belongs to, and the attributes Attest keeps of it (numbers, names, outcomes; no prompt or tool content,
// and every kept string scrubbed of secrets as the CLI scrubs a transcript). No SQL, no HTTP.
import crypto from 'node:crypto';
import { scrubString } from '../../capture/scrub.js';
import { plainAttributes, RecordProblem, type AttributeValue } from './decode.js';
import type { ExportLogsRequest, LogRecord } from './proto.js';

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
  /** sha256 of the record and its resource: the same record sent again has the same key. */
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

/** An attribute of a record: its own, else its resource's. */
type Attr = (name: string) => AttributeValue | undefined;

function str(v: AttributeValue | undefined): string | undefined {
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** Unix ms of a record: `event.timestamp`, else the record's time, else when it was observed. */
function timeOf(record: LogRecord, attr: Attr): number | null {
  const iso = str(attr('event.timestamp'));
  if (iso) {
    const ms = Date.parse(iso);
    if (Number.isFinite(ms)) return ms;
  }
  for (const nanos of [record.timeUnixNano, record.observedTimeUnixNano]) {
    if (nanos && nanos !== '0') {
      const ms = Number(BigInt(nanos) / 1_000_000n);
      if (ms > 0) return ms;
    }
  }
  return null;
}

/** Which agent and event a record is: its event name (the field, `event.name`, or the body) and service. */
function identify(record: LogRecord, attr: Attr, service: string): { agent: AgentKind; name: string } | null {
  const candidates = [record.eventName, str(attr('event.name')), record.body?.stringValue];
  for (const c of candidates) {
    if (!c) continue;
    if (c.startsWith('claude_code.')) return { agent: 'claude-code', name: c.slice('claude_code.'.length) };
    if (c.startsWith('codex.')) return { agent: 'codex', name: c.slice('codex.'.length) };
  }
  const bare = str(attr('event.name')) ?? record.eventName;
  if (!bare) return null;
  if (/claude/i.test(service)) return { agent: 'claude-code', name: bare };
  if (/codex/i.test(service)) return { agent: 'codex', name: bare };
  return null;
}

/** The git commit a Bash tool result made, from `tool_parameters` (sent when tool details are on). */
function commitOf(attr: Attr): string | undefined {
  const direct = str(attr('git_commit_id'));
  if (direct) return direct;
  const params = attr('tool_parameters');
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

/** Every record of a logs export request, as agent events or as refusals (the request's partial success). */
export function eventsOf(request: ExportLogsRequest): RecordsOutcome {
  const out: RecordsOutcome = { events: [], rejected: 0, reasons: [] };
  const scrubbed = new Map<string, string>();
  const refuse = (reason: string) => {
    out.rejected += 1;
    if (out.reasons.length < 3 && !out.reasons.includes(reason)) out.reasons.push(reason);
  };
  for (const rl of request.resourceLogs ?? []) {
    const records = (rl.scopeLogs ?? []).flatMap((s) => s.logRecords ?? []);
    let resource: Record<string, AttributeValue>;
    try {
      resource = plainAttributes(rl.resource?.attributes, 0, { chars: 0 });
    } catch (err) {
      for (const _ of records) refuse(`resource: ${(err as Error).message}`);
      continue;
    }
    const resourceKey = crypto
      .createHash('sha256')
      .update(JSON.stringify(rl.resource ?? {}))
      .digest('hex');
    const service = str(resource['service.name']) ?? '';
    const custom: Record<string, AttributeValue> = {};
    for (const [k, v] of Object.entries(resource)) if (!PROCESS_ATTRIBUTE.test(k)) custom[k] = v;

    for (const record of records) {
      try {
        // The record's own attributes over its resource's (looked up, not merged: this runs for every record).
        const own = plainAttributes(record.attributes, 0, { chars: 0 });
        const attr: Attr = (k) =>
          Object.hasOwn(own, k) ? own[k] : Object.hasOwn(resource, k) ? resource[k] : undefined;
        const id = identify(record, attr, service);
        const kept = id ? KEPT_WITH_COMMON[id.agent][id.name] : undefined;
        if (!id || !kept) {
          refuse('not a Claude Code or Codex event Attest keeps');
          continue;
        }
        const sessionId = str(attr(id.agent === 'codex' ? 'conversation.id' : 'session.id'));
        if (!sessionId)
          throw new RecordProblem(`${id.agent === 'codex' ? 'conversation.id' : 'session.id'} is missing`);
        if (sessionId.length > 200) throw new RecordProblem('the session id is longer than 200 characters');
        const ts = timeOf(record, attr);
        if (ts === null) throw new RecordProblem('the record has no time');
        const data: Record<string, AttributeValue> = {};
        for (const name of kept) {
          const v = keep(name === 'git_commit_id' ? commitOf(attr) : attr(name), scrubbed);
          if (v !== undefined) data[name] = v;
        }
        for (const [k, v] of Object.entries(custom)) {
          const kept = keep(v, scrubbed);
          if (kept !== undefined && !(k in data)) data[`resource.${k}`] = kept;
        }
        const seqRaw = attr('event.sequence');
        out.events.push({
          agent: id.agent,
          sessionId,
          name: id.name,
          ts,
          seq: typeof seqRaw === 'number' && Number.isSafeInteger(seqRaw) ? seqRaw : 0,
          key: crypto.createHash('sha256').update(resourceKey).update(JSON.stringify(record)).digest('hex'),
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
