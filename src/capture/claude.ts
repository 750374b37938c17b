// Claude Code transcripts (~/.claude/projects/<project>/<session>.jsonl and the subagent files beside them)
// into AgentSession v1.
//
// What a transcript looks like: one JSON object per line. `assistant` lines carry one content block each; a
// single API message (one `message.id`) is spread over several lines that repeat its `usage`, and the
// output count grows while the message streams. So a turn is one assistant message, and its usage is the
// largest value each counter reached across its lines (summing the lines would count it several times over).
// `user` lines are either what a person typed or the results of tool calls. Everything else (system notes,
// attachments, titles, PR links, queue operations) is metadata; line types this reader does not know are
// counted in a warning and skipped, so a newer Claude Code does not break capture.
import crypto from 'node:crypto';
import type { AgentSessionV1, CaptureTier, ImageRefV1, ParseOptions, PrRefV1, ToolCallV1, TurnV1 } from './types.js';
import {
  EventLog,
  Warnings,
  contentText,
  derivedUuid,
  displayPath,
  errorSignature,
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

/** Line types Claude Code 2.x writes that carry nothing this capture reports. */
const IGNORED_LINE_TYPES = new Set([
  'attachment',
  'file-history-snapshot',
  'mode',
  'last-prompt',
  'queue-operation',
  'progress',
  'tag',
  'agent-name',
]);

const KNOWN_BLOCKS = new Set([
  'text',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'image',
  'document',
  'tool_result',
]);

interface PendingCall {
  call: ToolCallV1;
  startMs: number | undefined;
}

export function parseClaudeCodeTranscript(text: string, opts: ParseOptions = {}): AgentSessionV1 {
  const tier: CaptureTier = opts.tier ?? 'redacted';
  const warnings = new Warnings();
  const lines = readJsonLines(text, warnings);
  const events = new EventLog();

  const turns: TurnV1[] = [];
  const assistantTurns = new Map<string, TurnV1>();
  const texts = new TurnTexts();
  const calls = new Map<string, PendingCall>();
  const models: string[] = [];
  const prs = new Map<string, PrRefV1 & { repository?: string }>();

  let sessionId: string | undefined;
  let agentId: string | undefined;
  let sidechain = false;
  let version: string | undefined;
  let entrypoint: string | undefined;
  let cwd: string | undefined;
  let gitBranch: string | undefined;
  let gitRepo: string | undefined;
  let slug: string | undefined;
  let aiTitle: string | undefined;
  let customTitle: string | undefined;
  let summaryTitle: string | undefined;
  const span = new TimeSpan();

  const lastTurnIndex = () => (turns.length > 0 ? turns.length - 1 : undefined);

  for (const { value: line } of lines) {
    const ts = isoTime(line.timestamp);
    const ms = ts ? Date.parse(ts) : undefined;
    span.see(ms);
    sessionId ??= str(line.sessionId);
    version = str(line.version) ?? version;
    entrypoint ??= str(line.entrypoint);
    cwd ??= str(line.cwd);
    gitBranch = str(line.gitBranch) ?? gitBranch;
    slug = str(line.slug) ?? slug;
    if (line.isSidechain === true) sidechain = true;
    agentId ??= str(line.agentId);

    const type = str(line.type) ?? '';
    switch (type) {
      case 'assistant':
        readAssistant(line, ts, ms);
        break;
      case 'user':
        readUser(line, ts, ms);
        break;
      case 'system':
        readSystem(line, ts);
        break;
      case 'pr-link': {
        const prNumber = int(line.prNumber);
        if (prNumber > 0) {
          const prUrl = str(line.prUrl);
          const repository = str(line.prRepository);
          if (repository) gitRepo ??= `github.com/${repository}`;
          const key = `${repository ?? ''}#${prNumber}`;
          if (!prs.has(key)) {
            prs.set(key, { prNumber, ...(prUrl ? { prUrl } : {}), ...(repository ? { repository } : {}) });
            events.add('pr_linked', ts, lastTurnIndex(), {
              prNumber,
              ...(prUrl ? { prUrl } : {}),
              ...(repository ? { repository } : {}),
            });
          }
        }
        break;
      }
      case 'ai-title':
        aiTitle = str(line.aiTitle) ?? aiTitle;
        break;
      case 'custom-title':
        customTitle = str(line.customTitle) ?? customTitle;
        break;
      case 'summary':
        summaryTitle = str(line.summary) ?? summaryTitle;
        break;
      default:
        if (!IGNORED_LINE_TYPES.has(type)) warnings.add('unknown_line_type', `line type ${type || '(none)'}`);
    }
  }

  function readAssistant(line: JsonObject, ts: string | undefined, ms: number | undefined): void {
    const msg = isObject(line.message) ? line.message : {};
    if (line.isApiErrorMessage === true) {
      // Claude Code writes a placeholder assistant message (model "<synthetic>") when the API call failed.
      const errorText = [str(line.error), contentText(msg.content)].filter((t): t is string => Boolean(t));
      events.add('api_error', ts, lastTurnIndex(), { source: 'message' }, errorText);
      return;
    }
    const key = str(msg.id) ?? `line:${str(line.uuid) ?? crypto.randomUUID()}`;
    let turn = assistantTurns.get(key);
    if (!turn) {
      turn = { index: turns.length, role: 'assistant', toolCalls: [], usage: zeroUsage() };
      if (ts) turn.ts = ts;
      const messageId = str(msg.id);
      if (messageId) turn.messageId = messageId;
      turns.push(turn);
      assistantTurns.set(key, turn);
    }
    const model = str(msg.model);
    if (model && !model.startsWith('<')) {
      turn.model = model;
      if (!models.includes(model)) models.push(model);
    }
    const usage = isObject(msg.usage) ? msg.usage : undefined;
    if (usage && turn.usage) {
      turn.usage.in = Math.max(turn.usage.in, int(usage.input_tokens));
      turn.usage.out = Math.max(turn.usage.out, int(usage.output_tokens));
      turn.usage.cacheRead = Math.max(turn.usage.cacheRead, int(usage.cache_read_input_tokens));
      turn.usage.cacheCreate = Math.max(turn.usage.cacheCreate, int(usage.cache_creation_input_tokens));
      // Claude Code says per line how the cache write splits by TTL: main sessions write with the one-hour
      // TTL (billed at 2× input), others with the five-minute one (1.25×). The document keeps the one-hour
      // part beside the total (`cacheCreate1h`); the five-minute part is the rest. On the 30 fixture
      // transcripts the two parts add up to the total on every line.
      if (isObject(usage.cache_creation)) {
        const oneHour = int(usage.cache_creation.ephemeral_1h_input_tokens);
        const fiveMinutes = int(usage.cache_creation.ephemeral_5m_input_tokens);
        if (oneHour > 0) turn.usage.cacheCreate1h = Math.max(turn.usage.cacheCreate1h ?? 0, oneHour);
        // A line whose parts exceed its total (never seen) still prices every token it reports.
        turn.usage.cacheCreate = Math.max(turn.usage.cacheCreate, oneHour + fiveMinutes);
      }
    }
    const blocks = Array.isArray(msg.content)
      ? msg.content
      : typeof msg.content === 'string'
        ? [{ type: 'text', text: msg.content }]
        : [];
    for (const block of blocks) {
      if (!isObject(block)) continue;
      const blockType = str(block.type) ?? '';
      if (!KNOWN_BLOCKS.has(blockType)) {
        warnings.add('unknown_content_block', `block type ${blockType || '(none)'}`);
        continue;
      }
      if (blockType === 'text' && typeof block.text === 'string') texts.addText(turn, block.text);
      else if (blockType === 'thinking' && typeof block.thinking === 'string') texts.addThinking(turn, block.thinking);
      else if (blockType === 'tool_use' || blockType === 'server_tool_use') {
        const name = str(block.name) ?? 'unknown';
        const input = isObject(block.input) ? block.input : undefined;
        const call: ToolCallV1 = { name, status: 'ok', isEdit: isEditTool(name) };
        const id = str(block.id);
        if (id) call.toolUseId = id;
        if (ts) call.startTs = ts;
        const file = input ? (str(input.file_path) ?? str(input.notebook_path) ?? str(input.path)) : undefined;
        if (file) call.file = displayPath(file, cwd);
        if (input) call.input = input;
        turn.toolCalls.push(call);
        // Server-side tools (web search) finish inside the message; only client tools await a result.
        if (id && blockType === 'tool_use') calls.set(id, { call, startMs: ms });
      }
    }
  }

  function readUser(line: JsonObject, ts: string | undefined, ms: number | undefined): void {
    const msg = isObject(line.message) ? line.message : {};
    const content = msg.content;
    const blocks = Array.isArray(content) ? content.filter(isObject) : [];
    for (const block of blocks) {
      if (block.type !== 'tool_result') continue;
      const id = str(block.tool_use_id);
      const pending = takeCall(calls, id, warnings);
      if (!pending) continue;
      const output = contentText(block.content);
      const resultText = typeof line.toolUseResult === 'string' ? line.toolUseResult : '';
      const { call } = pending;
      if (block.is_error === true) {
        call.status = looksRejected(output) || looksRejected(resultText) ? 'rejected' : 'error';
        const sig = errorSignature(resultText || output);
        if (sig) call.errorSignature = sig;
      }
      finishCall(call, pending.startMs, ms, output);
    }

    // Meta lines (skill bodies, command caveats) and the summary written after a compaction are not a person typing.
    if (line.isMeta === true || line.isCompactSummary === true || line.isVisibleInTranscriptOnly === true) return;
    const typed =
      typeof content === 'string'
        ? content
        : blocks
            .filter((b) => b.type === 'text')
            .map((b) => (typeof b.text === 'string' ? b.text : ''))
            .join('\n');
    const images = blocks
      .filter((b) => b.type === 'image')
      .map(imageRef)
      .filter((i): i is ImageRefV1 => i !== undefined);
    if (typed.trim() === '' && images.length === 0) return;
    if (/^\[Request interrupted by user/.test(typed.trim())) {
      events.add('interrupt', ts, lastTurnIndex(), { forToolUse: /for tool use/.test(typed) });
      return;
    }
    const turn: TurnV1 = { index: turns.length, role: 'user', toolCalls: [], source: sidechain ? 'peer' : 'human' };
    if (ts) turn.ts = ts;
    if (typed.trim() !== '') turn.text = typed;
    if (images.length > 0) turn.images = images;
    turns.push(turn);
  }

  function readSystem(line: JsonObject, ts: string | undefined): void {
    const subtype = str(line.subtype);
    if (subtype === 'compact_boundary') {
      const meta = isObject(line.compactMetadata) ? line.compactMetadata : {};
      const data: JsonObject = {};
      if (str(meta.trigger)) data.trigger = meta.trigger;
      if (int(meta.preTokens)) data.preTokens = int(meta.preTokens);
      if (int(meta.postTokens)) data.postTokens = int(meta.postTokens);
      events.add('compaction', ts, lastTurnIndex(), data);
    } else if (subtype === 'api_error') {
      const err = isObject(line.error) ? line.error : {};
      const data: JsonObject = { source: 'request' };
      if (int(line.retryAttempt)) data.retryAttempt = int(line.retryAttempt);
      if (int(line.maxRetries)) data.maxRetries = int(line.maxRetries);
      if (int(line.retryInMs)) data.retryInMs = int(line.retryInMs);
      const status = int(err.status);
      if (status) data.status = status;
      const texts = [str(err.message), str(err.formatted)].filter((t): t is string => t !== undefined);
      events.add('api_error', ts, lastTurnIndex(), data, texts);
    }
  }

  closeUnansweredCalls(calls.values(), warnings);
  texts.applyTo(turns);

  const isSubagent = sidechain && agentId !== undefined;
  const id = isSubagent
    ? derivedUuid('claude-code-subagent', sessionId ?? '', agentId!)
    : (sessionId ?? fileSessionId('claude-code-file', opts.sourcePath, text));

  const session: AgentSessionV1 = {
    schemaVersion: 1,
    id,
    agent: { type: 'claude-code', ...(version ? { version } : {}), ...(entrypoint ? { entrypoint } : {}) },
    env: { ...(cwd ? { cwd } : {}), ...(gitBranch ? { gitBranch } : {}), ...(gitRepo ? { gitRepo } : {}) },
    ...sessionBody(span, models, turns, events, warnings),
  };
  if (isSubagent) session.subagent = { agentId: agentId!, ...(sessionId ? { parentSessionId: sessionId } : {}) };
  const prList = [...prs.values()];
  if (prList.length > 0) {
    const last = prList[prList.length - 1]!;
    session.outcome = {
      prNumber: last.prNumber,
      ...(last.prUrl ? { prUrl: last.prUrl } : {}),
      prs: prList.map((p) => ({ prNumber: p.prNumber, ...(p.prUrl ? { prUrl: p.prUrl } : {}) })),
    };
  }
  const title = customTitle ?? aiTitle ?? summaryTitle;
  if (title) session.title = title;
  if (slug) session.vendor = { slug };
  return applyTier(session, tier);
}

function imageRef(block: JsonObject): ImageRefV1 | undefined {
  const source = isObject(block.source) ? block.source : undefined;
  if (!source) return undefined;
  const mediaType = str(source.media_type) ?? 'application/octet-stream';
  if (typeof source.data === 'string') {
    const bytes = Buffer.from(source.data, 'base64');
    return { mediaType, sha256: crypto.createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length };
  }
  return undefined;
}

/** An image's bytes as POST /v1/agents/sync takes them in `blobs` (full tier only: images are content). */
export interface ImageBlob {
  sha256: string;
  mediaType: string;
  bytes: number;
  data: string;
}

/**
 * The images people pasted into a Claude Code transcript, once each, keyed by the sha256 the full-tier turns
 * reference (`turns[].images[].sha256`). Blocks whose media type is not a media type are left out.
 */
export function claudeImageBlobs(text: string): ImageBlob[] {
  const out = new Map<string, ImageBlob>();
  for (const line of text.split('\n')) {
    if (!line.includes('"image"')) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObject(value) || value.type !== 'user' || !isObject(value.message) || !Array.isArray(value.message.content))
      continue;
    for (const block of value.message.content) {
      if (!isObject(block) || block.type !== 'image') continue;
      const ref = imageRef(block);
      const source = isObject(block.source) ? block.source : {};
      if (!ref || typeof source.data !== 'string' || !/^[\w.+-]+\/[\w.+-]+$/.test(ref.mediaType)) continue;
      const data = Buffer.from(source.data, 'base64').toString('base64');
      out.set(ref.sha256, { sha256: ref.sha256, mediaType: ref.mediaType, bytes: ref.bytes ?? 0, data });
    }
  }
  return [...out.values()];
}
