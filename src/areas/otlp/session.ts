// A session's stored telemetry events to the AgentSession v1 document the sessions area keeps: turns with
// model, tokens, cost and duration, tool calls with their outcome, denials and API errors. The document is
// rebuilt from every event of the session each time, so the order events arrived in does not matter. It holds
// no text (capture tier `metrics`): telemetry carries none that Attest keeps.
import type { AgentSessionV1, EventV1, TurnV1 } from '../sessions/document.js';
import { isEditTool } from '../../capture/common.js';
import type { AttributeValue } from './decode.js';
import type { AgentEvent, AgentKind } from './events.js';

export type StoredEvent = Pick<AgentEvent, 'name' | 'ts' | 'seq' | 'data'>;

const num = (v: AttributeValue | undefined): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : Number.NaN;
  return Number.isFinite(n) && n >= 0 ? n : 0;
};
const int = (v: AttributeValue | undefined): number => Math.min(2 ** 31 - 1, Math.round(num(v)));
const text = (v: AttributeValue | undefined): string | undefined =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
const truthy = (v: AttributeValue | undefined): boolean => v === true || v === 'true';
const iso = (ms: number) => new Date(ms).toISOString();

function toolStatus(e: StoredEvent): 'ok' | 'error' | 'rejected' {
  if (e.name === 'tool_decision') return 'rejected';
  if (text(e.data.decision) === 'reject') return 'rejected';
  return truthy(e.data.success) ? 'ok' : 'error';
}

/** The document of one session from its events (any order; sorted here by time, then sequence). */
export function sessionDocument(agent: AgentKind, sessionId: string, events: readonly StoredEvent[]): AgentSessionV1 {
  const sorted = [...events].sort((x, y) => x.ts - y.ts || x.seq - y.seq);
  const turns: TurnV1[] = [];
  const docEvents: EventV1[] = [];
  const models = new Set<string>();
  const commits = new Set<string>();
  let version: string | undefined;
  let email: string | undefined;
  let repo: string | undefined;
  let branch: string | undefined;
  let lastAssistant: TurnV1 | null = null;
  const totals = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };
  let costMicros = 0;
  let priced = false;

  const assistantTurn = (e: StoredEvent, model: string | undefined): TurnV1 => {
    const turn: TurnV1 = { index: turns.length, role: 'assistant', toolCalls: [], ts: iso(e.ts) };
    if (model) turn.model = model;
    turns.push(turn);
    lastAssistant = turn;
    return turn;
  };

  for (const e of sorted) {
    version ??= text(e.data['app.version']);
    email ??= text(e.data['user.email']);
    repo ??= text(e.data['vcs.repository.name']) ?? text(e.data['vcs.repository.url.full']);
    branch ??= text(e.data['vcs.ref.head.name']);
    const model = text(e.data.model);
    if (model) models.add(model);
    switch (e.name) {
      case 'user_prompt':
        turns.push({ index: turns.length, role: 'user', toolCalls: [], ts: iso(e.ts), source: 'human' });
        lastAssistant = null;
        break;
      case 'api_request': {
        if (agent === 'codex') {
          // Codex reports tokens on the response's sse_event; the request only opens the turn.
          assistantTurn(e, model);
          break;
        }
        const turn = assistantTurn(e, model);
        const usage = {
          in: int(e.data.input_tokens),
          out: int(e.data.output_tokens),
          cacheRead: int(e.data.cache_read_tokens),
          cacheCreate: int(e.data.cache_creation_tokens),
        };
        turn.usage = usage;
        totals.inputTokens += usage.in;
        totals.outputTokens += usage.out;
        totals.cacheReadTokens += usage.cacheRead;
        totals.cacheCreationTokens += usage.cacheCreate;
        if (e.data.cost_usd !== undefined) {
          // The agent's own cost of the request: kept exactly (micro-dollars), and preferred over the table.
          const micros = Math.round(num(e.data.cost_usd) * 1_000_000);
          turn.costUsd = micros / 1_000_000;
          turn.costReported = true;
          costMicros += micros;
          priced = true;
        }
        turn.durationMs = int(e.data.duration_ms);
        break;
      }
      case 'sse_event': {
        if (text(e.data['event.kind']) !== 'response.completed') break;
        const cached = int(e.data.cached_token_count);
        const input = int(e.data.input_token_count);
        const turn: TurnV1 = lastAssistant ?? assistantTurn(e, model);
        // As OpenAI counts them (and a Codex transcript keeps them): cached tokens are part of the input tokens.
        const usage = {
          in: input,
          out: int(e.data.output_token_count),
          cacheRead: Math.min(cached, input),
          cacheCreate: 0,
        };
        turn.usage = usage;
        if (model && !turn.model) turn.model = model;
        totals.inputTokens += usage.in;
        totals.outputTokens += usage.out;
        totals.cacheReadTokens += usage.cacheRead;
        break;
      }
      case 'api_error':
        docEvents.push({
          type: 'api_error',
          seq: docEvents.length,
          ts: iso(e.ts),
          data: {
            ...(model ? { model } : {}),
            ...(text(e.data.status_code) ? { status: text(e.data.status_code) } : {}),
            ...(text(e.data.error) ? { message: text(e.data.error) } : {}),
          },
        });
        break;
      case 'tool_result':
      case 'tool_decision': {
        if (e.name === 'tool_decision' && text(e.data.decision) !== 'reject' && text(e.data.decision) !== 'denied')
          break;
        const name = text(e.data.tool_name) ?? 'unknown';
        const turn: TurnV1 = lastAssistant ?? assistantTurn(e, undefined);
        const call: TurnV1['toolCalls'][number] = { name, status: toolStatus(e), isEdit: isEditTool(name) };
        if (e.data.duration_ms !== undefined) call.durationMs = int(e.data.duration_ms);
        turn.toolCalls.push(call);
        const commit = text(e.data.git_commit_id);
        if (commit && /^[0-9a-f]{7,40}$/.test(commit)) commits.add(commit);
        break;
      }
      default:
        break;
    }
  }

  const first = sorted[0]?.ts ?? 0;
  const last = sorted[sorted.length - 1]?.ts ?? first;
  const doc: AgentSessionV1 = {
    schemaVersion: 1,
    id: sessionId,
    agent: { type: agent, ...(version ? { version } : {}) },
    env: { ...(repo ? { gitRepo: repo } : {}), ...(branch ? { gitBranch: branch } : {}) },
    startedAt: iso(first),
    endedAt: iso(last),
    models: [...models].sort(),
    turns,
    events: docEvents,
    totals: { ...totals, ...(priced ? { costUsd: costMicros / 1_000_000 } : {}) },
    captureTier: 'metrics',
    warnings: [],
    ...(email ? { actor: { email } } : {}),
    ...(commits.size ? { outcome: { commitShas: [...commits] } } : {}),
  };
  return doc;
}
