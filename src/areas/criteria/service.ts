// Acceptance criteria of a work item: one list, replaced whole by PUT (at most 100, ids unique).
import type { FactoryContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { schedulePrComments } from '../pr-comments/outbox.js';
import { getWorkItem, listLinkedPullRequests } from '../work-items/service.js';
import { MAX_CRITERIA, type CriteriaInput, type CriteriaList, type Criterion } from './schema.js';
import * as store from './store.js';

function toList(workItemId: string, rows: store.CriterionRow[]): CriteriaList {
  const first = rows[0];
  return {
    workItemId,
    criteria: rows.map((r) => ({ id: r.criterion_id, text: r.text, proof: r.proof })),
    updatedAt: first ? new Date(Number(first.updated_at)).toISOString() : null,
  };
}

export async function getCriteria(ctx: FactoryContext, idOrNumber: string): Promise<CriteriaList> {
  const item = await getWorkItem(ctx, idOrNumber);
  return toList(item.id, await store.listCriteria(ctx.db, ctx.appId, item.id));
}

/** The criteria of an item named by its uuid, for other areas (e.g. evidence bound to a criterion). */
export async function listCriteriaOf(ctx: FactoryContext, workItemId: string): Promise<Criterion[]> {
  return (await store.listCriteria(ctx.db, ctx.appId, workItemId)).map((r) => ({
    id: r.criterion_id,
    text: r.text,
    proof: r.proof,
  }));
}

export async function replaceCriteria(
  ctx: FactoryContext,
  idOrNumber: string,
  criteria: CriteriaInput,
): Promise<CriteriaList> {
  if (criteria.length > MAX_CRITERIA) {
    throw apiError('invalid_request_body', `At most ${MAX_CRITERIA} criteria.`, {
      details: [{ path: 'criteria', message: `must have at most ${MAX_CRITERIA} items` }],
    });
  }
  const seen = new Set<string>();
  for (const [i, c] of criteria.entries()) {
    if (seen.has(c.id)) {
      throw apiError('duplicate_criterion_id', `Criterion id "${c.id}" appears more than once.`, {
        details: [{ path: `criteria.${i}.id`, message: 'duplicates an earlier id' }],
      });
    }
    seen.add(c.id);
  }
  const item = await getWorkItem(ctx, idOrNumber);
  if (item.withdrawn) throw apiError('work_item_withdrawn', 'The work item is withdrawn; its criteria cannot change.');
  const now = ctx.clock.now();
  const rows: store.CriterionRow[] = criteria.map((c, position) => ({
    app_id: ctx.appId,
    work_item_id: item.id,
    position,
    criterion_id: c.id,
    text: c.text,
    proof: c.proof ?? null,
    updated_at: now,
  }));
  await store.replaceCriteria(ctx.db, ctx.gateway.dialect, ctx.appId, item.id, rows);
  await schedulePrComments(ctx, ctx.appId, await listLinkedPullRequests(ctx, item.id));
  return toList(item.id, rows);
}
