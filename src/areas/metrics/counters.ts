// The counters metrics rows are made of, and the one mapping from the name an aggregate selects a counter as
// (the column of the daily rollups: metrics_days, metrics_day_models) to the field a row carries. Tiles, days,
// breakdowns and models are all read from their aggregate rows, and summed, through it.
import { USAGE_COLUMNS } from '../../db/schema.js';

const FIELD_OF = {
  sessions: 'sessions',
  subagent_sessions: 'subagentSessions',
  cost_micros: 'costMicros',
  /** Cost of the top-level sessions (subagent transcripts excluded): the unshipped tile's whole. */
  top_cost_micros: 'topCostMicros',
  turns: 'turns',
  unpriced_turns: 'unpricedTurns',
  tool_calls: 'toolCalls',
  tool_errors: 'toolErrors',
  /** Denied (rejected) tool calls. */
  rejected: 'rejectedToolCalls',
  /** Sessions with no tool error, no provider error and no denied tool call. */
  clean: 'cleanSessions',
  /** Sessions a person steered (a human turn after the first). */
  hands_on: 'handsOnSessions',
  input_tokens: 'inputTokens',
  output_tokens: 'outputTokens',
  cache_read_tokens: 'cacheReadTokens',
  cache_write_tokens: 'cacheWriteTokens',
  cache_write_1h_tokens: 'cacheWrite1hTokens',
} as const;

export type Counter = keyof typeof FIELD_OF;
/** A row of the named counters, by their field names. */
export type Counters<C extends Counter> = { -readonly [K in C as (typeof FIELD_OF)[K]]: number };

/** The tiles' counters (distinct actors apart: they do not sum). */
export const TILE_COUNTERS = [
  'sessions',
  'subagent_sessions',
  'cost_micros',
  'top_cost_micros',
  'tool_calls',
  'tool_errors',
  'rejected',
  'clean',
  'hands_on',
  'turns',
] as const satisfies readonly Counter[];
/** What the days and the breakdowns both count of their sessions (each adds its own after these). */
const SESSION_COUNTERS = [
  'sessions',
  'cost_micros',
  'turns',
  'tool_calls',
  'tool_errors',
  'rejected',
] as const satisfies readonly Counter[];
export const DAY_COUNTERS = [...SESSION_COUNTERS, 'clean', 'hands_on'] as const satisfies readonly Counter[];
export const BREAKDOWN_COUNTERS = [
  ...SESSION_COUNTERS,
  'input_tokens',
  'output_tokens',
] as const satisfies readonly Counter[];
export const MODEL_COUNTERS = [
  'sessions',
  'turns',
  'unpriced_turns',
  ...USAGE_COLUMNS,
] as const satisfies readonly Counter[];

/**
 * The named counters of an aggregate row as numbers (an absent or null sum is 0). `prefix` reads the columns of
 * one window or range out of a row that aggregates several (`w0_sessions`, `r1_sessions`).
 */
export function readCounters<C extends Counter>(row: object, counters: readonly C[], prefix = ''): Counters<C> {
  const r = row as Record<string, unknown>;
  const out: Record<string, number> = {};
  for (const c of counters) out[FIELD_OF[c]] = Number(r[`${prefix}${c}`] ?? 0);
  return out as Counters<C>;
}

/** The field names of the named counters. */
export function fieldsOf<C extends Counter>(counters: readonly C[]): (typeof FIELD_OF)[C][] {
  return counters.map((c) => FIELD_OF[c]);
}

type NumericKey<T> = { [K in keyof T]-?: T[K] extends number ? K : never }[keyof T];

/** `a` with each of `fields` increased by b's. */
export function addFields<T extends object, K extends NumericKey<T>>(a: T, b: Pick<T, K>, fields: readonly K[]): T {
  const out = { ...a };
  for (const f of fields) (out as Record<K, number>)[f] = (a[f] as number) + (b[f] as number);
  return out;
}
