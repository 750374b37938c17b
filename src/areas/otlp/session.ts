// A session's stored telemetry events to the AgentSession v1 document the sessions area keeps: turns with
// model, tokens, cost and duration, tool calls with their outcome, denials and API errors. New events later than
// the stored document's last are folded into it; others make it rebuilt from every event of the session, so
// the order events arrived in does not matter. It holds no text (capture tier `metrics`): telemetry carries none
// that Attest keeps.
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
  const fold = new SessionFold(agent, sessionId, null);
  for (const e of sortEvents(events)) fold.add(e);
  return fold.document();
}

/** Events by time, then sequence (stable: events equal in both keep their order). */
export function sortEvents(events: readonly StoredEvent[]): StoredEvent[] {
  return [...events].sort((x, y) => x.ts - y.ts || x.seq - y.seq);
}

/**
 * The session `stored` (made by this module from earlier events) with `events` folded in, or null when that
 * would not be exactly what rebuilding from every event makes: an event no later than the stored session's
 * last one would land inside its turns, so the caller rebuilds from every stored event instead. `stored` is
 * taken over (its turns are extended in place): pass a document decoded for this call.
 */
export function foldInto(stored: AgentSessionV1, events: readonly StoredEvent[]): AgentSessionV1 | null {
  if (stored.captureTier !== 'metrics' || !stored.endedAt) return null;
  const last = Date.parse(stored.endedAt);
  const sorted = sortEvents(events);
  if (!sorted.length || !(sorted[0]!.ts > last)) return null;
  const fold = new SessionFold(stored.agent.type as AgentKind, stored.id, stored);
  for (const e of sorted) fold.add(e);
  return fold.document();
}

/**
 * A session's document built one event at a time, in time order. It starts empty or from a document it made
 * before: everything it carries between events (the open assistant turn, totals, first-seen attributes) is
 * read back from that document, so folding events in two goes makes the same document as in one.
 */
class SessionFold {
  private readonly turns: TurnV1[];
  private readonly docEvents: EventV1[];
  private readonly models: Set<string>;
  private readonly commits: Set<string>;
  private version: string | undefined;
  private email: string | undefined;
  private repo: string | undefined;
  private branch: string | undefined;
  private lastAssistant: TurnV1 | null;
  private readonly totals: {
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheCreationTokens: number;
  };
  private costMicros: number;
  private priced: boolean;
  private first: number | null;
  private last: number | null;

  constructor(
    private readonly agent: AgentKind,
    private readonly sessionId: string,
    from: AgentSessionV1 | null,
  ) {
    // Taken over, not copied: `from` is a document just decoded for this fold (foldInto says so).
    this.turns = from?.turns ?? [];
    this.docEvents = from?.events ?? [];
    this.models = new Set(from?.models ?? []);
    this.commits = new Set(from?.outcome?.commitShas ?? []);
    this.version = from?.agent.version;
    this.email = from?.actor?.email;
    this.repo = from?.env.gitRepo;
    this.branch = from?.env.gitBranch;
    const lastTurn = this.turns[this.turns.length - 1];
    // Only a user prompt closes an assistant turn, and every turn but a user's is an assistant's.
    this.lastAssistant = lastTurn?.role === 'assistant' ? lastTurn : null;
    const t = from?.totals;
    this.totals = {
      inputTokens: t?.inputTokens ?? 0,
      outputTokens: t?.outputTokens ?? 0,
      cacheReadTokens: t?.cacheReadTokens ?? 0,
      cacheCreationTokens: t?.cacheCreationTokens ?? 0,
    };
    this.priced = t?.costUsd !== undefined;
    this.costMicros = Math.round((t?.costUsd ?? 0) * 1_000_000);
    this.first = from ? Date.parse(from.startedAt) : null;
    this.last = from?.endedAt ? Date.parse(from.endedAt) : null;
  }

  private assistantTurn(e: StoredEvent, model: string | undefined): TurnV1 {
    const turn: TurnV1 = { index: this.turns.length, role: 'assistant', toolCalls: [], ts: iso(e.ts) };
    if (model) turn.model = model;
    this.turns.push(turn);
    this.lastAssistant = turn;
    return turn;
  }

  add(e: StoredEvent): void {
    this.first ??= e.ts;
    this.last = e.ts;
    this.version ??= text(e.data['app.version']);
    this.email ??= text(e.data['user.email']);
    this.repo ??= text(e.data['vcs.repository.name']) ?? text(e.data['vcs.repository.url.full']);
    this.branch ??= text(e.data['vcs.ref.head.name']);
    const model = text(e.data.model);
    if (model) this.models.add(model);
    const totals = this.totals;
    switch (e.name) {
      case 'user_prompt':
        this.turns.push({ index: this.turns.length, role: 'user', toolCalls: [], ts: iso(e.ts), source: 'human' });
        this.lastAssistant = null;
        break;
      case 'api_request': {
        if (this.agent === 'codex') {
          // Codex reports tokens on the response's sse_event; the request only opens the turn.
          this.assistantTurn(e, model);
          break;
        }
        const turn = this.assistantTurn(e, model);
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
          this.costMicros += micros;
          this.priced = true;
        }
        turn.durationMs = int(e.data.duration_ms);
        break;
      }
      case 'sse_event': {
        if (text(e.data['event.kind']) !== 'response.completed') break;
        const cached = int(e.data.cached_token_count);
        const input = int(e.data.input_token_count);
        const turn: TurnV1 = this.lastAssistant ?? this.assistantTurn(e, model);
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
        this.docEvents.push({
          type: 'api_error',
          seq: this.docEvents.length,
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
        const turn: TurnV1 = this.lastAssistant ?? this.assistantTurn(e, undefined);
        const call: TurnV1['toolCalls'][number] = { name, status: toolStatus(e), isEdit: isEditTool(name) };
        if (e.data.duration_ms !== undefined) call.durationMs = int(e.data.duration_ms);
        turn.toolCalls.push(call);
        const commit = text(e.data.git_commit_id);
        if (commit && /^[0-9a-f]{7,40}$/.test(commit)) this.commits.add(commit);
        break;
      }
      default:
        break;
    }
  }

  document(): AgentSessionV1 {
    const { version, repo, branch, email, commits } = this;
    const first = this.first ?? 0;
    const last = this.last ?? first;
    return {
      schemaVersion: 1,
      id: this.sessionId,
      agent: { type: this.agent, ...(version ? { version } : {}) },
      env: { ...(repo ? { gitRepo: repo } : {}), ...(branch ? { gitBranch: branch } : {}) },
      startedAt: iso(first),
      endedAt: iso(last),
      models: [...this.models].sort(),
      turns: this.turns,
      events: this.docEvents,
      totals: { ...this.totals, ...(this.priced ? { costUsd: this.costMicros / 1_000_000 } : {}) },
      captureTier: 'metrics',
      warnings: [],
      ...(email ? { actor: { email } } : {}),
      ...(commits.size ? { outcome: { commitShas: [...commits] } } : {}),
    };
  }
}
