// Pieces both transcript readers share: reading JSON lines tolerantly, warnings, timestamps, ids.
import crypto from 'node:crypto';
import path from 'node:path';
import type { AgentSessionV1, SessionEventV1, ToolCallV1, TurnUsage, TurnV1, WarningV1 } from './types.js';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

export function int(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/** Collects warnings by (code, detail) so a thousand unknown lines make one entry with a count. */
export class Warnings {
  private readonly entries = new Map<string, WarningV1>();
  add(code: string, detail?: string): void {
    const key = `${code}\u0000${detail ?? ''}`;
    const found = this.entries.get(key);
    if (found) found.count += 1;
    else this.entries.set(key, detail === undefined ? { code, count: 1 } : { code, count: 1, detail });
  }
  list(): WarningV1[] {
    return [...this.entries.values()];
  }
}

export interface JsonLine {
  lineNo: number;
  value: JsonObject;
}

/**
 * Parses JSON lines. A line that does not parse is a warning, not a failure: `truncated_last_line` when it is
 * the last one (a writer still appending), `malformed_line` otherwise.
 */
export function readJsonLines(text: string, warnings: Warnings): JsonLine[] {
  const raw = text.split('\n');
  let last = raw.length - 1;
  while (last >= 0 && raw[last]!.trim() === '') last--;
  const out: JsonLine[] = [];
  for (let i = 0; i <= last; i++) {
    const line = raw[i]!.trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      warnings.add(i === last ? 'truncated_last_line' : 'malformed_line', `line ${i + 1}`);
      continue;
    }
    if (!isObject(value)) {
      warnings.add('malformed_line', `line ${i + 1}`);
      continue;
    }
    out.push({ lineNo: i + 1, value });
  }
  return out;
}

/** ISO-8601 in UTC with milliseconds, or undefined when the value is not a time. */
export function isoTime(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const ms = typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms)) return undefined;
  return new Date(ms).toISOString();
}

/** A stable uuid-shaped id derived from `parts` (same input, same id on every machine and every sync). */
export function derivedUuid(...parts: string[]): string {
  const h = crypto.createHash('sha256').update(parts.join('\u0000')).digest();
  h[6] = (h[6]! & 0x0f) | 0x80; // version 8 (custom)
  h[8] = (h[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export function zeroUsage(): TurnUsage {
  return { in: 0, out: 0, cacheRead: 0, cacheCreate: 0 };
}

/** A file path as the redacted tier shows it: relative to the session's cwd when inside it. */
export function displayPath(file: string, cwd: string | undefined): string {
  if (cwd && path.isAbsolute(file)) {
    const rel = path.relative(cwd, file);
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel;
  }
  return file;
}

/** One line of an error, short enough to group errors by, never the whole output. */
export function errorSignature(text: string): string | undefined {
  const first = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  if (!first) return undefined;
  return first.length > 160 ? `${first.slice(0, 157)}...` : first;
}

export class EventLog {
  readonly events: SessionEventV1[] = [];
  add(
    type: string,
    ts: string | undefined,
    turnIndex: number | undefined,
    data?: JsonObject,
    errorText?: string[],
  ): void {
    const ev: SessionEventV1 = { type, seq: this.events.length };
    if (ts) ev.ts = ts;
    if (turnIndex !== undefined && turnIndex >= 0) ev.turnIndex = turnIndex;
    if (data && Object.keys(data).length > 0) ev.data = data;
    if (errorText && errorText.length > 0) ev.errorText = errorText;
    this.events.push(ev);
  }
}

const EDIT_TOOLS = new Set([
  'Edit',
  'MultiEdit',
  'Write',
  'NotebookEdit',
  'str_replace_based_edit_tool',
  'apply_patch',
  'write_file',
  'edit_file',
]);

export function isEditTool(name: string): boolean {
  return EDIT_TOOLS.has(name);
}

const REJECTED = new RegExp(
  "the user doesn't want to proceed|user rejected|rejected by (?:the )?user|user denied|declined by (?:the )?user|" +
    'permission denied by user|request interrupted by user',
  'i',
);

/** Text that means the user declined a tool call (Claude Code and Codex wordings). */
export function looksRejected(text: string): boolean {
  return REJECTED.test(text);
}

export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : typeof b === 'string' ? b : ''))
      .filter((t) => t.length > 0)
      .join('\n');
  }
  return '';
}

const PR_URL = /https:\/\/github\.com\/([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+)\/pull\/(\d+)/;

export function findPrUrl(text: string): { repository: string; prNumber: number; prUrl: string } | undefined {
  const m = PR_URL.exec(text);
  if (!m) return undefined;
  return { repository: m[1]!, prNumber: Number(m[2]), prUrl: m[0] };
}

/** A turn's text and thinking arrive in pieces (blocks, deltas); they are joined once the parse ends. */
export class TurnTexts {
  private readonly text = new Map<TurnV1, string[]>();
  private readonly thinking = new Map<TurnV1, string[]>();

  addText(turn: TurnV1, piece: string): void {
    append(this.text, turn, piece);
  }

  addThinking(turn: TurnV1, piece: string): void {
    append(this.thinking, turn, piece);
  }

  /** Write the joined pieces onto their turns. */
  applyTo(turns: readonly TurnV1[]): void {
    for (const turn of turns) {
      const text = this.text.get(turn);
      if (text) turn.text = text.join('\n');
      const thinking = this.thinking.get(turn);
      if (thinking) turn.thinking = thinking.join('\n');
    }
  }
}

function append(map: Map<TurnV1, string[]>, turn: TurnV1, piece: string): void {
  const list = map.get(turn);
  if (list) list.push(piece);
  else map.set(turn, [piece]);
}

/**
 * Calls still waiting for a result when the transcript ends: the session is still being written or the process died
 * mid-call.
 */
export function closeUnansweredCalls(pending: Iterable<{ call: ToolCallV1 }>, warnings: Warnings): void {
  for (const { call } of pending) {
    call.status = 'error';
    call.errorSignature = 'no tool result recorded';
    warnings.add('tool_result_missing');
  }
}

/** The earliest and latest timestamp of a transcript's lines. */
export class TimeSpan {
  first: number | undefined;
  last: number | undefined;

  see(ms: number | undefined): void {
    if (ms === undefined) return;
    this.first = this.first === undefined ? ms : Math.min(this.first, ms);
    this.last = this.last === undefined ? ms : Math.max(this.last, ms);
  }
}

/** The call a tool result answers, taken off the pending ones; a result for no known call is a warning. */
export function takeCall<T>(calls: Map<string, T>, id: string | undefined, warnings: Warnings): T | undefined {
  const pending = id ? calls.get(id) : undefined;
  if (!id || !pending) {
    warnings.add('orphan_tool_result');
    return undefined;
  }
  calls.delete(id);
  return pending;
}

/** Full-tier tool output is kept, but bounded: a sync batch must stay within the server's limits. */
const MAX_TOOL_OUTPUT_CHARS = 16_384;

/** Records a call's output and, when its clock reads forward, how long it took. */
export function finishCall(call: ToolCallV1, startMs: number | undefined, ms: number | undefined, output: string) {
  if (ms !== undefined && startMs !== undefined && ms >= startMs) call.durationMs = ms - startMs;
  call.output =
    output.length > MAX_TOOL_OUTPUT_CHARS ? `${output.slice(0, MAX_TOOL_OUTPUT_CHARS)}…[truncated]` : output;
}

/** The id of a transcript that names no session id: derived from its path, or else from its first bytes. */
export function fileSessionId(kind: string, sourcePath: string | undefined, text: string): string {
  return derivedUuid(kind, sourcePath ?? crypto.createHash('sha256').update(text.slice(0, 4096)).digest('hex'));
}

/** The part of an AgentSession both readers fill the same way: times, turns, events, totals and warnings. */
export function sessionBody(
  span: TimeSpan,
  models: string[],
  turns: TurnV1[],
  events: EventLog,
  warnings: Warnings,
): Pick<
  AgentSessionV1,
  'startedAt' | 'endedAt' | 'models' | 'turns' | 'events' | 'totals' | 'captureTier' | 'warnings'
> {
  if (span.first === undefined) warnings.add('no_timestamps');
  return {
    startedAt: new Date(span.first ?? 0).toISOString(),
    ...(span.last !== undefined ? { endedAt: new Date(span.last).toISOString() } : {}),
    models,
    turns,
    events: events.events,
    totals: sumTotals(turns, span.first, span.last),
    captureTier: 'full',
    warnings: warnings.list(),
  };
}

export function sumTotals(
  turns: TurnV1[],
  firstMs: number | undefined,
  lastMs: number | undefined,
): AgentSessionV1['totals'] {
  const totals: AgentSessionV1['totals'] = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
  };
  for (const t of turns) {
    if (!t.usage) continue;
    totals.inputTokens += t.usage.in;
    totals.outputTokens += t.usage.out;
    totals.cacheReadTokens += t.usage.cacheRead;
    totals.cacheCreationTokens += t.usage.cacheCreate;
  }
  if (firstMs !== undefined && lastMs !== undefined) totals.wallClockMs = lastMs - firstMs;
  return totals;
}
