// Where artifacts meet work items, through the work-items area's service (never its store).
//
// "Emitted from a session linked to the item" means, in Attest: a session that emitted at least one
// artifact naming the item in `workItemId`. Every artifact of that session then belongs to the item too,
// even one that names only the session.
import type { FactoryContext } from '../../server/context.js';
import { getWorkItem, listLinkedPullRequests } from '../work-items/service.js';
import { listItemArtifacts, storedArtifactsOfItem, type ItemArtifacts, type StoredArtifact } from './service.js';

/** The item named by id or number, as stored on an artifact (its id); 404 work_item_not_found. */
export async function resolveWorkItemForArtifact(ctx: FactoryContext, idOrNumber: string): Promise<{ id: string }> {
  const item = await getWorkItem(ctx, idOrNumber);
  return { id: item.id };
}

/** GET /v1/work-items/{workItemId}/artifacts: the item's live artifacts, oldest first, at most 200. */
export async function listWorkItemArtifacts(ctx: FactoryContext, idOrNumber: string): Promise<ItemArtifacts> {
  const item = await getWorkItem(ctx, idOrNumber);
  const pullRequests = await listLinkedPullRequests(ctx, item.id);
  return listItemArtifacts(ctx, {
    workItemId: item.id,
    pullRequests: pullRequests.map((pr) => ({ repository: pr.repository, number: pr.number })),
  });
}

/** Every stored artifact of the item (as the list reaches them, replaced versions too); 404 work_item_not_found. */
export async function workItemEvidence(
  ctx: FactoryContext,
  idOrNumber: string,
): Promise<{ workItemId: string; artifacts: StoredArtifact[] }> {
  const item = await getWorkItem(ctx, idOrNumber);
  const pullRequests = await listLinkedPullRequests(ctx, item.id);
  const artifacts = await storedArtifactsOfItem(ctx.db, ctx.appId, {
    workItemId: item.id,
    pullRequests: pullRequests.map((pr) => ({ repository: pr.repository, number: pr.number })),
  });
  return { workItemId: item.id, artifacts };
}
