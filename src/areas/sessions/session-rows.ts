// A session's rows as they are stored, from its summary: the summary row, its per-model usage rows and the
// images its document names. Pure mapping: storing them is write.ts's.
import type { FactoryContext } from '../../server/context.js';
import { nanosToMicros } from '../../pricing/cost.js';
import type { AgentSessionV1, SessionSummary } from './document.js';
import type * as store from './store.js';

/** Where a stored session's figures come from: a synced transcript, or agent telemetry (OTLP) alone. */
export type CaptureSource = 'transcript' | 'telemetry';

export interface SessionActor {
  actorId: string;
  actorName: string;
  credentialId: string;
}

/** A new session's summary row (exported for bench/sessions.ts's ingest floor, which inserts the same rows). */
export function rowOf(
  ctx: Pick<FactoryContext, 'orgId' | 'appId'>,
  id: string,
  s: SessionSummary,
  actor: SessionActor,
  now: number,
  createdAt: number,
  source: CaptureSource,
): store.SessionRow {
  return {
    id,
    org_id: ctx.orgId,
    app_id: ctx.appId,
    session_key: s.sessionKey,
    session_id: s.sessionId,
    parent_session_id: s.parentSessionId,
    subagent_id: s.subagentId,
    is_subagent: s.isSubagent ? 1 : 0,
    actor_id: actor.actorId,
    actor_name: actor.actorName,
    credential_id: actor.credentialId,
    agent_type: s.agentType,
    agent_version: s.agentVersion,
    origin: s.origin,
    worker_kind: s.workerKind,
    repo: s.repo,
    branch: s.branch,
    project: s.project,
    commit_sha: s.commitSha,
    title: s.title,
    capture_tier: s.captureTier,
    capture_source: source,
    started_at: s.startedAt,
    ended_at: s.endedAt,
    duration_ms: s.durationMs,
    turn_count: s.turnCount,
    user_turn_count: s.userTurnCount,
    steering_count: s.steeringCount,
    event_count: s.eventCount,
    tool_call_count: s.toolCallCount,
    tool_error_count: s.toolErrorCount,
    rejected_tool_call_count: s.rejectedToolCallCount,
    api_error_count: s.apiErrorCount,
    error_count: s.errorCount,
    tool_error_rate_ppm: s.toolErrorRatePpm,
    input_tokens: s.cost.tokens.input,
    output_tokens: s.cost.tokens.output,
    cache_read_tokens: s.cost.tokens.cacheRead,
    cache_write_tokens: s.cost.tokens.cacheWrite,
    cache_write_1h_tokens: s.cost.tokens.cacheWrite1h,
    cost_micros: s.cost.costMicros,
    cost_status: s.cost.status,
    unpriced_models: JSON.stringify(s.cost.unpricedModels),
    models: JSON.stringify(s.models),
    pr_refs: JSON.stringify(s.prRefs),
    chunk_of: s.chunkOf,
    chunk_parts: JSON.stringify(s.chunkParts),
    created_at: createdAt,
    updated_at: now,
  };
}

export function usageRows(row: store.SessionRow, s: SessionSummary): store.ModelUsageRow[] {
  return s.cost.byModel.map((m) => ({
    session_id: row.id,
    org_id: row.org_id,
    app_id: row.app_id,
    model: m.model,
    started_at: row.started_at,
    repo: row.repo,
    actor_id: row.actor_id,
    agent_type: row.agent_type,
    is_subagent: row.is_subagent,
    turn_count: m.turns,
    unpriced_turn_count: m.unpricedTurns,
    input_tokens: m.tokens.input,
    output_tokens: m.tokens.output,
    cache_read_tokens: m.tokens.cacheRead,
    cache_write_tokens: m.tokens.cacheWrite,
    cache_write_1h_tokens: m.tokens.cacheWrite1h,
    cost_micros: nanosToMicros(m.costNanos),
  }));
}

/** The images (blob digests) a document names. */
export function imagesOf(doc: AgentSessionV1): string[] {
  const out = new Set<string>();
  for (const turn of doc.turns) for (const image of turn.images ?? []) out.add(image.sha256);
  return [...out];
}
