// The cost of agent sessions: every assistant turn priced from its model and token counts with
// @pydantic/genai-prices. Money stays integer: a turn is priced in nano-dollars (exact for every price the
// package quotes per million tokens with up to three decimals), sums are integer nanos, and what is stored
// and summed downstream is integer micro-dollars, rounded once per session and model.
import type { TokenTotalsV1 } from '../capture/types.js';
import { genaiPrices } from './package.js';

/** Token counts of one turn as AgentSession v1 carries them (`turns[].usage`). */
export interface TurnTokens {
  in: number;
  out: number;
  cacheRead: number;
  cacheCreate: number;
  /** The part of `cacheCreate` written with the one-hour TTL (priced at the one-hour rate); absent = none. */
  cacheCreate1h?: number;
}

/**
 * Tokens split by kind, the same way for every vendor: `input` is the uncached prompt only, so the whole
 * prompt is input + cacheRead + cacheWrite.
 */
export interface TokensByKind {
  input: number;
  output: number;
  cacheRead: number;
  /** Every cache write, whatever its TTL. */
  cacheWrite: number;
  /** The part of `cacheWrite` written with the one-hour TTL; the rest (`cacheWrite - cacheWrite1h`) is five-minute. */
  cacheWrite1h: number;
}

export type CostStatus = 'complete' | 'partial' | 'unpriced';

/** The minimal view of a turn the pricer reads. */
export interface PricedTurnInput {
  role: string;
  model?: string;
  ts?: string;
  usage?: TurnTokens;
  costUsd?: number | null;
  /**
   * `costUsd` is what the agent itself reported for the request (Claude Code's telemetry `cost_usd`): it is
   * the turn's cost even where the price table knows the model.
   */
  costReported?: boolean;
}

export interface ModelCost {
  model: string;
  tokens: TokensByKind;
  /** Assistant turns of this model. */
  turns: number;
  costNanos: number;
  /** Turns of this model left without any cost (the server cannot price them and the client sent none). */
  unpricedTurns: number;
}

export interface SessionCost {
  costNanos: number;
  costMicros: number;
  status: CostStatus;
  /** Models of turns left without any cost, sorted. */
  unpricedModels: string[];
  byModel: ModelCost[];
  tokens: TokensByKind;
}

/** Fallback when a session carries no assistant turn with usage (e.g. a metrics-only upload). */
export interface SessionTotalsInput {
  models: string[];
  startedAt?: string;
  totals: TokenTotalsV1;
}

export const UNKNOWN_MODEL = 'unknown';

const NANOS_PER_USD = 1e9;

/** Anthropic reports cache tokens beside input; everyone else (OpenAI, Codex, Gemini) inside it. */
function isAnthropicModel(model: string): boolean {
  return /claude|anthropic/i.test(model);
}

function providerHint(model: string): string | undefined {
  if (isAnthropicModel(model)) return 'anthropic';
  if (/^(gpt-|o\d|codex|chatgpt)/i.test(model)) return 'openai';
  return undefined;
}

/** Normalise a turn's tokens to the vendor-neutral split (input excludes cache tokens). */
export function tokensByKind(model: string, usage: TurnTokens): TokensByKind {
  const additive = isAnthropicModel(model) || usage.cacheRead + usage.cacheCreate > usage.in;
  return {
    input: additive ? usage.in : usage.in - usage.cacheRead - usage.cacheCreate,
    output: usage.out,
    cacheRead: usage.cacheRead,
    cacheWrite: usage.cacheCreate,
    cacheWrite1h: oneHourPart(usage),
  };
}

/** `cacheCreate1h` as a count within `cacheCreate` (a value outside 0..cacheCreate is clamped into it). */
function oneHourPart(usage: TurnTokens): number {
  const h = usage.cacheCreate1h;
  if (typeof h !== 'number' || !Number.isFinite(h) || h <= 0) return 0;
  return Math.min(Math.floor(h), usage.cacheCreate);
}

/** genai-prices' usage: `cache_write_tokens` is every cache write, `cache_write_1h_tokens` the one-hour part of it. */
type Usage = {
  input_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens?: number;
  output_tokens: number;
};

function calc(model: string, usage: Usage, timestamp: Date | undefined) {
  const attempt = (providerId: string | undefined) => {
    try {
      return genaiPrices().calcPrice(usage, model, {
        ...(providerId ? { providerId } : {}),
        ...(timestamp ? { timestamp } : {}),
      });
    } catch {
      return null;
    }
  };
  const hint = providerHint(model);
  return attempt(hint) ?? (hint ? attempt(undefined) : null);
}

/** $/Mtok of each token kind, as calcPrice charges them, for a model whose price is flat. */
interface FlatRates {
  input: number;
  cacheRead: number;
  /** A five-minute cache write (genai-prices' `cache_write_mtok`). */
  cacheWrite: number;
  /** A one-hour cache write (genai-prices' `cache_write_1h_mtok`; where a model has none, the package's fallback). */
  cacheWrite1h: number;
  output: number;
}

// calcPrice costs 70-250 µs a call, too slow for thousands of turns a second. Where the price in force is
// flat (no token tiers) the cost is linear in each token kind, so the rates are asked of calcPrice once
// (one million tokens of each kind) and reused for that model and UTC day; prices change by start date, so
// a day never straddles two prices. Tiered prices and time-of-day prices go through calcPrice turn by
// turn. test/pricing/cost.test.ts checks that both paths agree.
const rateCache = new Map<string, FlatRates | 'per-turn' | null>();
/** The last answer of ratesOf: a session's turns mostly share their model and day (no key string, no lookup). */
let lastRates: { model: string; day: number; rates: FlatRates | 'per-turn' | null } | null = null;

function ratesOf(model: string, atMs: number): FlatRates | 'per-turn' | null {
  // The UTC day by arithmetic: toISOString() on every turn of every session was 3% of an ingest's CPU.
  const day = Math.floor(atMs / 86_400_000);
  if (lastRates !== null && lastRates.model === model && lastRates.day === day) return lastRates.rates;
  const key = `${model}|${day}`;
  let rates = rateCache.get(key);
  if (rates === undefined) {
    rates = flatRates(model, new Date(atMs));
    if (rateCache.size > 10_000) rateCache.clear();
    rateCache.set(key, rates);
  }
  lastRates = { model, day, rates };
  return rates;
}

/** What ratesOf keeps for a model and day: calcPrice asked once a token kind, or 'per-turn', or null. */
function flatRates(model: string, when: Date): FlatRates | 'per-turn' | null {
  const M = 1_000_000;
  const probe = calc(model, { input_tokens: M, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 0 }, when);
  if (!probe) return null;
  const byTimeOfDay =
    Array.isArray(probe.model.prices) && probe.model.prices.some((p) => p.constraint?.type === 'time_of_date');
  const flat = !byTimeOfDay && Object.values(probe.model_price).every((v) => v === undefined || typeof v === 'number');
  if (!flat) return 'per-turn';
  const price = (u: Usage) => calc(model, u, when)?.total_price ?? Number.NaN;
  const rates: FlatRates = {
    input: probe.total_price,
    cacheRead: price({ input_tokens: M, cache_read_tokens: M, cache_write_tokens: 0, output_tokens: 0 }),
    cacheWrite: price({ input_tokens: M, cache_read_tokens: 0, cache_write_tokens: M, output_tokens: 0 }),
    cacheWrite1h: price({
      input_tokens: M,
      cache_read_tokens: 0,
      cache_write_tokens: M,
      cache_write_1h_tokens: M,
      output_tokens: 0,
    }),
    output: price({ input_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: M }),
  };
  return Object.values(rates).every(Number.isFinite) ? rates : 'per-turn';
}

/**
 * The server's price of one turn in nano-dollars, or null when the package does not know the model.
 * genai-prices wants `input_tokens` to be the whole prompt including cache tokens.
 */
export function priceTurnNanos(model: string, tokens: TokensByKind, at?: Date): number | null {
  return priceTurnAt(model, tokens, at ? at.getTime() : Number.NaN);
}

/** priceTurnNanos at an instant in ms (NaN: unknown, priced at the present), without a Date a turn. */
function priceTurnAt(model: string, tokens: TokensByKind, atMs: number): number | null {
  if (!model) return null;
  const known = Number.isFinite(atMs);
  const rates = ratesOf(model, known ? atMs : Date.now());
  if (rates === null) return null;
  if (rates !== 'per-turn') {
    // $/Mtok × tokens = µ$; × 1000 = n$ (exact for prices with up to three decimals).
    return Math.round(
      (tokens.input * rates.input +
        tokens.cacheRead * rates.cacheRead +
        (tokens.cacheWrite - tokens.cacheWrite1h) * rates.cacheWrite +
        tokens.cacheWrite1h * rates.cacheWrite1h +
        tokens.output * rates.output) *
        1000,
    );
  }
  return priceTurnNanosExact(model, tokens, known ? new Date(atMs) : undefined);
}

/** calcPrice for this one turn (tiered and dated prices; also what the fast path is checked against). */
export function priceTurnNanosExact(model: string, tokens: TokensByKind, at?: Date): number | null {
  const usage = {
    input_tokens: tokens.input + tokens.cacheRead + tokens.cacheWrite,
    cache_read_tokens: tokens.cacheRead,
    cache_write_tokens: tokens.cacheWrite,
    ...(tokens.cacheWrite1h > 0 ? { cache_write_1h_tokens: tokens.cacheWrite1h } : {}),
    output_tokens: tokens.output,
  };
  const timestamp = at && Number.isFinite(at.getTime()) ? at : undefined;
  const result = calc(model, usage, timestamp);
  if (!result || !Number.isFinite(result.total_price)) return null;
  return Math.round(result.total_price * NANOS_PER_USD);
}

export function usdToNanos(usd: number): number {
  return Math.round(usd * NANOS_PER_USD);
}

export function nanosToMicros(nanos: number): number {
  return Math.round(nanos / 1000);
}

/** Micro-dollars as a number of dollars for the wire (exact to the micro-dollar). */
export function microsToUsd(micros: number): number {
  return micros / 1e6;
}

function emptyTokens(): TokensByKind {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0 };
}

function addTokens(into: TokensByKind, t: TokensByKind): void {
  into.input += t.input;
  into.output += t.output;
  into.cacheRead += t.cacheRead;
  into.cacheWrite += t.cacheWrite;
  into.cacheWrite1h += t.cacheWrite1h;
}

/**
 * Price a session: each assistant turn by the server when it knows the model, else by the client's
 * `costUsd` when given, else the turn stays unpriced. `complete` = every assistant turn has a cost
 * (vacuously true without assistant turns), `unpriced` = none has, `partial` otherwise.
 */
export function priceSession(turns: readonly PricedTurnInput[], fallback?: SessionTotalsInput): SessionCost {
  const models = new Map<string, ModelCost>();
  const tokens = emptyTokens();
  let costNanos = 0;
  let assistantTurns = 0;
  let pricedTurns = 0;
  const unpriced = new Set<string>();

  const bucket = (model: string): ModelCost => {
    let m = models.get(model);
    if (!m) {
      m = { model, tokens: emptyTokens(), turns: 0, costNanos: 0, unpricedTurns: 0 };
      models.set(model, m);
    }
    return m;
  };

  for (const turn of turns) {
    if (turn.role !== 'assistant') continue;
    const model = turn.model?.trim() ? turn.model : UNKNOWN_MODEL;
    const usage = turn.usage;
    if (!usage && (turn.costUsd === undefined || turn.costUsd === null)) {
      // An assistant turn without usage (a local error message, an interrupted reply) used no tokens.
      continue;
    }
    assistantTurns += 1;
    const m = bucket(model);
    m.turns += 1;
    const t = usage ? tokensByKind(model, usage) : emptyTokens();
    addTokens(m.tokens, t);
    addTokens(tokens, t);
    const zero = t.input + t.output + t.cacheRead + t.cacheWrite === 0;
    let nanos =
      turn.costReported && typeof turn.costUsd === 'number'
        ? usdToNanos(turn.costUsd)
        : usage
          ? zero
            ? 0
            : priceTurnAt(model, t, turn.ts ? Date.parse(turn.ts) : Number.NaN)
          : null;
    if (nanos === null && typeof turn.costUsd === 'number') nanos = usdToNanos(turn.costUsd);
    if (nanos === null) {
      m.unpricedTurns += 1;
      unpriced.add(model);
      continue;
    }
    pricedTurns += 1;
    m.costNanos += nanos;
    costNanos += nanos;
  }

  if (assistantTurns === 0 && fallback) return priceTotals(fallback);

  const status: CostStatus = pricedTurns === assistantTurns ? 'complete' : pricedTurns === 0 ? 'unpriced' : 'partial';
  return {
    costNanos,
    costMicros: nanosToMicros(costNanos),
    status,
    unpricedModels: [...unpriced].sort(),
    byModel: [...models.values()].sort((a, b) => a.model.localeCompare(b.model)),
    tokens,
  };
}

/** A session with totals but no priced turns: priced from totals when it names exactly one model. */
function priceTotals(input: SessionTotalsInput): SessionCost {
  const t = input.totals;
  const usage: TurnTokens = {
    in: t.inputTokens,
    out: t.outputTokens,
    cacheRead: t.cacheReadTokens,
    cacheCreate: t.cacheCreationTokens,
  };
  const hasTokens = usage.in + usage.out + usage.cacheRead + usage.cacheCreate > 0;
  if (!hasTokens && (t.costUsd === undefined || t.costUsd === null)) {
    return { costNanos: 0, costMicros: 0, status: 'complete', unpricedModels: [], byModel: [], tokens: emptyTokens() };
  }
  const model = input.models.length === 1 && input.models[0] ? input.models[0] : UNKNOWN_MODEL;
  const tokens = tokensByKind(model, usage);
  let nanos =
    model !== UNKNOWN_MODEL
      ? priceTurnNanos(model, tokens, input.startedAt ? new Date(input.startedAt) : undefined)
      : null;
  if (nanos === null && typeof t.costUsd === 'number') nanos = usdToNanos(t.costUsd);
  const priced = nanos !== null;
  const costNanos = nanos ?? 0;
  return {
    costNanos,
    costMicros: nanosToMicros(costNanos),
    status: priced ? 'complete' : 'unpriced',
    unpricedModels: priced ? [] : [model],
    byModel: [{ model, tokens, turns: 0, costNanos, unpricedTurns: priced ? 0 : 1 }],
    tokens,
  };
}
