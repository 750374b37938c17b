// Fading a stored session to a lower capture tier (issue 42, the retention sweep): its document is cut with the
// capture's own tier rules (applyTier), then stored as a re-sync of it would be, so the summary row, usage, tool
// and PR rows, verification facts, images and counters all follow the cut document. Tokens, turns and costs are
// metrics, kept at every tier: the metrics read the same totals before and after.
import { applyTier, type AgentSessionV1 as CapturedSession, type CaptureTier } from '../../capture/index.js';
import type { Db } from '../../db/connection.js';
import { decodeDocument, type AgentSessionV1 } from './document.js';
import { replaceStoredDocuments, type WriteContext } from './ingest.js';
import * as store from './store.js';
import * as docStore from './document-store.js';

/**
 * Cut these sessions down to `tier` inside the caller's transaction. The rows are read again there (locked on
 * PostgreSQL, as the ingest locks them), so a sync of the same session waits instead of interleaving. A row
 * already at or below `tier` is left as it is. Answers how many were cut.
 */
export async function fadeStoredSessions(
  ctx: WriteContext,
  db: Db,
  sessionKeys: readonly string[],
  tier: CaptureTier,
): Promise<number> {
  if (!sessionKeys.length) return 0;
  const rows = await store.findByKeys(db, ctx.appId, [...sessionKeys].sort());
  const docs = new Map(
    (
      await docStore.getDocuments(
        db,
        ctx.appId,
        rows.map((r) => r.id),
      )
    ).map((d) => [d.session_id, decodeDocument(d.encoding, d.body)]),
  );
  const rank = { metrics: 0, redacted: 1, full: 2 } as const;
  const items: { row: store.SessionRow; doc: AgentSessionV1 }[] = [];
  for (const row of rows) {
    if (rank[row.capture_tier as CaptureTier] <= rank[tier]) continue;
    const doc = docs.get(row.id);
    if (!doc) {
      // No document to cut (never expected): the row alone says the tier, so the sweep does not find it again.
      await store.setCaptureTier(db, row, tier, ctx.clock.now());
      continue;
    }
    const cut = applyTier(doc as unknown as CapturedSession, tier) as unknown as AgentSessionV1;
    items.push({ row, doc: cut });
  }
  await replaceStoredDocuments(ctx, db, items);
  return items.length;
}
