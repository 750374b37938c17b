// One session's transcript (GET /v1/sessions/{traceId}): its fields, turns with tool calls (images linked to
// the blob route), events, warnings, per-model usage, its parent and its subagents.
import type { FactoryContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { microsToUsd, type CostStatus } from '../../pricing/cost.js';
import { decodeDocument } from './document.js';
import { assertNotDeleted } from '../tombstones/service.js';
import type { SessionDetailWire } from './schema.js';
import * as store from './store.js';
import * as docStore from './document-store.js';
import { iso, tokensWire } from './list-entry.js';
import { actorView, enrich, toWire } from './wire.js';

/** How many subagent sessions a transcript read lists. */
export const SUBAGENTS_LISTED = 200;

/** The full transcript: summary fields, turns with tool calls (images linked to the blob route), events. */
export async function getSession(ctx: FactoryContext, traceId: string): Promise<SessionDetailWire> {
  const row =
    (await store.findById(ctx.db, ctx.appId, traceId)) ?? (await store.findBySessionId(ctx.db, ctx.appId, traceId));
  if (!row) {
    await assertNotDeleted(ctx.db, ctx.appId, 'session', traceId);
    throw apiError('session_not_found', 'No such session in this factory.');
  }
  const [docRow, usage, parent, subagents] = await Promise.all([
    docStore.getDocument(ctx.db, ctx.appId, row.id),
    store.modelUsageOf(ctx.db, ctx.appId, row.id),
    row.parent_session_id ? store.findTopLevelBySessionId(ctx.db, ctx.appId, row.parent_session_id) : undefined,
    row.is_subagent ? [] : store.subagentsOf(ctx.db, ctx.appId, row.session_id, SUBAGENTS_LISTED),
  ]);
  if (!docRow) throw apiError('session_not_found', 'No such session in this factory.');
  const doc = decodeDocument(docRow.encoding, docRow.body);
  const turns = doc.turns.map((t) =>
    t.images?.length ? { ...t, images: t.images.map((img) => ({ ...img, url: `/v1/agents/blob/${img.sha256}` })) } : t,
  );
  return {
    ...toWire(row, actorView(ctx), await enrich(ctx, [row])),
    env: { ...doc.env },
    outcome: doc.outcome ?? null,
    subagent: doc.subagent ?? null,
    chunk: { of: row.chunk_of, partsReceived: JSON.parse(row.chunk_parts) as number[] },
    turns,
    events: doc.events,
    warnings: doc.warnings,
    modelUsage: usage
      .sort((a, b) => a.model.localeCompare(b.model))
      .map((u) => ({
        model: u.model,
        turns: u.turn_count,
        costUsd: microsToUsd(u.cost_micros),
        tokens: tokensWire(u),
      })),
    parentTraceId: parent && parent.id !== row.id ? parent.id : null,
    subagents: subagents.map((s) => ({
      traceId: s.id,
      sessionId: s.session_id,
      subagentId: s.subagent_id,
      title: s.title ?? '',
      agentType: s.agent_type,
      startedAt: iso(s.started_at),
      costUsd: microsToUsd(s.cost_micros),
      costStatus: s.cost_status as CostStatus,
    })),
  };
}
