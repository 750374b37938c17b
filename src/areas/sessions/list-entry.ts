// The part of a session's list object that depends on its row alone (API.md, GET /v1/sessions), as the row
// stores it in `list_entry` (migration 0053): written with the row by the store, read back by the list as text
// and spliced into its answer. The viewer's actor fields, the context verification and the PR outcomes come
// from elsewhere at read time (wire.ts).
import { microsToUsd, type CostStatus } from '../../pricing/cost.js';
import type { Origin } from './document.js';
import type { SessionWire, TokensWire } from './schema.js';
import type { ListedRow } from './store.js';

/** A listed session's fields that its row alone decides. */
export type ListEntry = Omit<SessionWire, 'actorId' | 'actorName' | 'contextSourceVerification' | 'prOutcomes'>;

/** The columns a list entry is made of. */
export type ListEntryColumns = Omit<ListedRow, 'actor_id' | 'actor_name' | 'commit_sha' | 'pr_refs'>;

export function tokensWire(r: {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
}): TokensWire {
  const write = Number(r.cache_write_tokens);
  const oneHour = Number(r.cache_write_1h_tokens ?? 0);
  return {
    input: Number(r.input_tokens),
    output: Number(r.output_tokens),
    cacheRead: Number(r.cache_read_tokens),
    cacheWrite: write,
    cacheWrite5m: write - oneHour,
    cacheWrite1h: oneHour,
  };
}

const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
/** 9999-12-31T23:59:59.999Z: past it toISOString writes a six-digit signed year. */
const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_799_999;

/**
 * `new Date(ms).toISOString()`, written in JavaScript for whole milliseconds from 1970 to 9999: V8 formats a
 * date in its runtime (about 0.5 µs), which took three times that for each listed session's three times, a
 * sixth of the list's own work in a profile. Other values (before 1970, fractions, NaN) go to toISOString.
 */
export function iso(ms: number): string {
  if (!(ms >= 0 && ms <= LAST_FOUR_DIGIT_YEAR_MS) || !Number.isInteger(ms)) return new Date(ms).toISOString();
  const days = Math.floor(ms / 86_400_000);
  let rest = ms - days * 86_400_000;
  // The civil date of a day number (days from 1970-01-01), in eras of 400 years starting on March 1st
  // (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return (
    `${year}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:` +
    `${TWO_DIGITS[seconds]}.${THREE_DIGITS[rest - seconds * 1000]}Z`
  );
}

export function listEntryOf(row: ListEntryColumns): ListEntry {
  return {
    traceId: row.id,
    sessionId: row.session_id,
    agentType: row.agent_type,
    agentVersion: row.agent_version,
    branch: row.branch,
    repo: row.repo,
    project: row.project,
    title: row.title ?? '',
    origin: row.origin as Origin,
    workerKind: row.worker_kind ?? '',
    captureTier: row.capture_tier,
    captureSource: row.capture_source === 'telemetry' ? 'telemetry' : 'transcript',
    costStatus: row.cost_status as CostStatus,
    costUsd: microsToUsd(row.cost_micros),
    unpricedModels: JSON.parse(row.unpriced_models) as string[],
    models: JSON.parse(row.models) as string[],
    tokens: tokensWire(row),
    startedAt: iso(row.started_at),
    endedAt: iso(row.ended_at ?? row.started_at + row.duration_ms),
    updatedAt: iso(row.updated_at),
    durationMs: row.duration_ms,
    turnCount: row.turn_count,
    userTurnCount: row.user_turn_count,
    steeringCount: row.steering_count,
    toolCallCount: row.tool_call_count,
    toolErrorCount: row.tool_error_count,
    rejectedToolCallCount: row.rejected_tool_call_count,
    apiErrorCount: row.api_error_count,
    errorCount: row.error_count,
    toolErrorRate: row.tool_error_rate_ppm / 1_000_000,
    isSubagent: row.is_subagent === 1,
    parentSessionId: row.parent_session_id,
  };
}

/** The stored text of a row's list entry: a JSON object. */
export function listEntryText(row: ListEntryColumns): string {
  return JSON.stringify(listEntryOf(row));
}
