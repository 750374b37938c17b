import { normalizeRepoUrl } from '../codehost/repository-name.js';
import type { AgentSessionV1, CaptureTier, ParseOptions, PrRefV1, ToolCallV1, TurnV1 } from './types.js';
import {
  EventLog,
  Warnings,
  displayPath,
  errorSignature,
  findPrUrl,
  int,
  isEditTool,
  isObject,
  isoTime,
  looksRejected,
  readJsonLines,
  str,
  zeroUsage,
  type JsonObject,
  TurnTexts,
  closeUnansweredCalls,
  TimeSpan,
  finishCall,
  fileSessionId,
  sessionBody,
  takeCall,
} from './common.js';
import { applyTier } from './tier.js';

const ASSISTANT_ITEMS = new Set([
  'message',
  'reasoning',
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'web_search_call',
]);
const OUTPUT_ITEMS = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output']);
const QUIET_EVENTS = new Set([
  'agent_message',
  'agent_reasoning',
  'agent_reasoning_raw_content',
  'agent_reasoning_section_break',
  'exec_command_begin',
  'exec_command_end',
  'patch_apply_begin',
  'patch_apply_end',
  'task_started',
  'task_complete',
  'mcp_tool_call_begin',
  'mcp_tool_call_end',
  'web_search_begin',
  'web_search_end',
  'plan_update',
  'turn_diff',
  'entered_review_mode',
  'exited_review_mode',
]);

interface PendingCall {
  call: ToolCallV1;
  startMs: number | undefined;
  command: string;
}

export function parseCodexRollout(text: string, opts: ParseOptions = {}): AgentSessionV1 {
  const tier: CaptureTier = opts.tier ?? 'redacted';
  const warnings = new Warnings();
  const lines = readJsonLines(text, warnings);
  const events = new EventLog();

  const turns: TurnV1[] = [];
  const models: string[] = [];
  const calls = new Map<string, PendingCall>();
  const texts = new TurnTexts();
  const prs = new Map<string, PrRefV1>();

  let sessionId: string | undefined;
  let version: string | undefined;
  let originator: string | undefined;
  let cwd: string | undefined;
  let gitBranch: string | undefined;
  let gitRepo: string | undefined;
  let commitSha: string | undefined;
  let model: string | undefined;
  let open: TurnV1 | undefined;
  let lastTotal = -1;
  const span = new TimeSpan();

  const lastTurnIndex = () => (turns.length > 0 ? turns.length - 1 : undefined);
  const openAssistant = (ts: string | undefined): TurnV1 => {
    if (open) return open;
    const turn: TurnV1 = { index: turns.length, role: 'assistant', toolCalls: [], usage: zeroUsage() };
    if (ts) turn.ts = ts;
    if (model) turn.model = model;
    turns.push(turn);
    open = turn;
    return turn;
  };

  for (const { value: line } of lines) {
    const ts = isoTime(line.timestamp);
    const ms = ts ? Date.parse(ts) : undefined;
    span.see(ms);
    // Wrapped form { type, payload } or the older bare form (the payload is the line).
    const wrapped = isObject(line.payload);
    const payload: JsonObject = wrapped ? (line.payload as JsonObject) : line;
    const kind = wrapped ? (str(line.type) ?? '') : bareKind(line);

    switch (kind) {
      case 'session_meta': {
        sessionId ??= str(payload.id);
        version = str(payload.cli_version) ?? version;
        originator ??= str(payload.originator);
        cwd ??= str(payload.cwd);
        const git = isObject(payload.git) ? payload.git : {};
        gitBranch = str(git.branch) ?? gitBranch;
        commitSha = str(git.commit_hash) ?? commitSha;
        const url = str(git.repository_url);
        if (url) gitRepo = normalizeRepoUrl(url);
        break;
      }
      case 'turn_context': {
        model = str(payload.model) ?? model;
        if (model && !models.includes(model)) models.push(model);
        cwd ??= str(payload.cwd);
        break;
      }
      case 'response_item':
        readItem(payload, ts, ms);
        break;
      case 'event_msg':
        readEvent(payload, ts);
        break;
      case 'compacted':
        open = undefined;
        events.add('compaction', ts, lastTurnIndex(), { trigger: 'auto' });
        break;
      case 'state':
        break;
      default:
        warnings.add('unknown_line_type', `line type ${kind || '(none)'}`);
    }
  }

  function readItem(item: JsonObject, ts: string | undefined, ms: number | undefined): void {
    const type = str(item.type) ?? '';
    // user and developer items: instructions and environment context, not typing
    if (type === 'message' && item.role !== 'assistant') return;
    if (ASSISTANT_ITEMS.has(type)) {
      const turn = openAssistant(ts);
      if (type === 'message') {
        const parts = Array.isArray(item.content) ? item.content.filter(isObject) : [];
        const t = parts
          .map((p) => (typeof p.text === 'string' ? p.text : ''))
          .filter(Boolean)
          .join('\n');
        if (t) texts.addText(turn, t);
      } else if (type === 'reasoning') {
        const summary = Array.isArray(item.summary) ? item.summary.filter(isObject) : [];
        const t = summary
          .map((p) => (typeof p.text === 'string' ? p.text : ''))
          .filter(Boolean)
          .join('\n');
        if (t) texts.addThinking(turn, t);
      } else {
        const name =
          str(item.name) ??
          (type === 'local_shell_call' ? 'local_shell' : type === 'web_search_call' ? 'web_search' : 'unknown');
        const call: ToolCallV1 = { name, status: 'ok', isEdit: isEditTool(name) };
        const id = str(item.call_id) ?? str(item.id);
        if (id) call.toolUseId = id;
        if (ts) call.startTs = ts;
        const input = parseArguments(item);
        if (input !== undefined) call.input = input;
        const file = patchedFile(input);
        if (file) call.file = displayPath(file, cwd);
        turn.toolCalls.push(call);
        if (id && type !== 'web_search_call') calls.set(id, { call, startMs: ms, command: commandText(input) });
      }
      return;
    }
    if (OUTPUT_ITEMS.has(type)) {
      const id = str(item.call_id);
      const pending = takeCall(calls, id, warnings);
      if (!pending) return;
      const { output, exitCode } = readOutput(item.output);
      const { call } = pending;
      if (looksRejected(output)) call.status = 'rejected';
      else if (
        (exitCode !== undefined && exitCode !== 0) ||
        (exitCode === undefined && /^(?:error|failed|aborted)\b/i.test(output.trim()))
      )
        call.status = 'error';
      if (call.status !== 'ok') {
        const sig = errorSignature(output);
        if (sig) call.errorSignature = sig;
      }
      finishCall(call, pending.startMs, ms, output);
      if (/\bgh\s+pr\s+create\b/.test(pending.command)) {
        const pr = findPrUrl(output);
        if (pr && !prs.has(pr.prUrl)) {
          prs.set(pr.prUrl, { prNumber: pr.prNumber, prUrl: pr.prUrl });
          gitRepo ??= `github.com/${pr.repository}`;
          events.add('pr_linked', ts, lastTurnIndex(), {
            prNumber: pr.prNumber,
            prUrl: pr.prUrl,
            repository: pr.repository,
          });
        }
      }
      return;
    }
    warnings.add('unknown_item_type', `item type ${type || '(none)'}`);
  }

  function readEvent(ev: JsonObject, ts: string | undefined): void {
    const type = str(ev.type) ?? '';
    if (type === 'token_count') {
      const info = isObject(ev.info) ? ev.info : undefined;
      const last = info && isObject(info.last_token_usage) ? info.last_token_usage : undefined;
      const total = info && isObject(info.total_token_usage) ? info.total_token_usage : undefined;
      if (!last) return;
      const runningTotal = total ? int(total.total_tokens) : -1;
      if (total && runningTotal === lastTotal) return; // a repeat of the previous count
      lastTotal = runningTotal;
      const turn = open ?? openAssistant(ts);
      const cached = int(last.cached_input_tokens);
      turn.usage = {
        in: int(last.input_tokens),
        out: int(last.output_tokens),
        cacheRead: cached,
        cacheCreate: 0,
      };
      open = undefined;
      return;
    }
    if (type === 'user_message') {
      open = undefined;
      const message = typeof ev.message === 'string' ? ev.message : '';
      const turn: TurnV1 = { index: turns.length, role: 'user', toolCalls: [], source: 'human' };
      if (ts) turn.ts = ts;
      if (message.trim() !== '') turn.text = message;
      turns.push(turn);
      return;
    }
    if (type === 'turn_aborted') {
      open = undefined;
      events.add('interrupt', ts, lastTurnIndex(), { reason: str(ev.reason) ?? 'interrupted' });
      return;
    }
    if (type === 'error' || type === 'stream_error') {
      const message = str(ev.message);
      events.add('api_error', ts, lastTurnIndex(), { source: type }, message ? [message] : undefined);
      return;
    }
    if (type === 'context_compacted') {
      events.add('compaction', ts, lastTurnIndex(), { trigger: 'auto' });
      return;
    }
    if (!QUIET_EVENTS.has(type)) warnings.add('unknown_event_type', `event type ${type || '(none)'}`);
  }

  closeUnansweredCalls(calls.values(), warnings);
  texts.applyTo(turns);
  for (const turn of turns) if (turn.model && !models.includes(turn.model)) models.push(turn.model);

  const session: AgentSessionV1 = {
    schemaVersion: 1,
    id: sessionId ?? fileSessionId('codex-file', opts.sourcePath, text),
    agent: { type: 'codex', ...(version ? { version } : {}), ...(originator ? { entrypoint: originator } : {}) },
    env: {
      ...(cwd ? { cwd } : {}),
      ...(gitBranch ? { gitBranch } : {}),
      ...(gitRepo ? { gitRepo } : {}),
      ...(commitSha ? { commitSha } : {}),
    },
    ...sessionBody(span, models, turns, events, warnings),
  };
  const prList = [...prs.values()];
  if (prList.length > 0) {
    const last = prList[prList.length - 1]!;
    session.outcome = { prNumber: last.prNumber, ...(last.prUrl ? { prUrl: last.prUrl } : {}), prs: prList };
  }
  return applyTier(session, tier);
}

function bareKind(line: JsonObject): string {
  if (line.record_type === 'state') return 'state';
  if (typeof line.type === 'string') return line.type === 'compacted' ? 'compacted' : 'response_item';
  if (str(line.id) && line.timestamp !== undefined) return 'session_meta';
  return '';
}

function parseArguments(item: JsonObject): unknown {
  if (typeof item.arguments === 'string') {
    try {
      return JSON.parse(item.arguments) as unknown;
    } catch {
      return item.arguments;
    }
  }
  if (item.input !== undefined) return item.input; // custom tools (apply_patch) carry raw text
  if (isObject(item.action)) return item.action; // local_shell_call
  return undefined;
}

function commandText(input: unknown): string {
  if (typeof input === 'string') return input;
  if (isObject(input)) {
    const cmd = input.command ?? input.cmd;
    if (Array.isArray(cmd)) return cmd.filter((c) => typeof c === 'string').join(' ');
    if (typeof cmd === 'string') return cmd;
  }
  return '';
}

/** The first file an apply_patch touches ("*** Update File: path"), or a `path` argument. */
function patchedFile(input: unknown): string | undefined {
  const patch =
    typeof input === 'string' ? input : isObject(input) && typeof input.input === 'string' ? input.input : undefined;
  if (patch) {
    const m = /^\*\*\* (?:Update|Add|Delete) File: (.+)$/m.exec(patch);
    if (m) return m[1]!.trim();
  }
  if (isObject(input)) return str(input.path) ?? str(input.file_path);
  return undefined;
}

function readOutput(raw: unknown): { output: string; exitCode: number | undefined } {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      return { output: raw, exitCode: undefined };
    }
  }
  if (isObject(value)) {
    const meta = isObject(value.metadata) ? value.metadata : {};
    const exitCode = typeof meta.exit_code === 'number' ? meta.exit_code : undefined;
    const output = typeof value.output === 'string' ? value.output : JSON.stringify(value);
    return { output, exitCode };
  }
  return { output: typeof raw === 'string' ? raw : JSON.stringify(raw ?? ''), exitCode: undefined };
}
