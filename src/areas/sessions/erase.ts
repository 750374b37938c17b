// Erasing a person from a factory's sessions (issue 42): each session they ran is cut to the metrics tier with the
// capture's own rules (applyTier, as the retention sweep does), its document loses its actor, and the rows that
// name them (summary, per-model usage, the list's actor facet) name a pseudonym instead. Tokens, turns and costs
// are metrics, kept: every total reads the same before and after, and the sessions still count as one actor's.
import { applyTier, type AgentSessionV1 as CapturedSession } from '../../capture/index.js';
import type { Db } from '../../db/connection.js';
import { valuesInKeyOrder } from '../../db/counter-deltas.js';
import { forgetImages } from '../agents/service.js';
import { decodeDocument, type AgentSessionV1 } from './document.js';
import { replaceStoredDocuments, type WriteContext } from './ingest.js';
import * as store from './store.js';
import * as counterStore from './counter-store.js';
import * as docStore from './document-store.js';

/** The name an erased person's sessions show. */
export const ERASED_ACTOR_NAME = 'erased person';

export interface ErasedSessions {
  sessions: number;
  /** Images no session of the factory names any more: the caller drops the blobs no factory holds. */
  released: string[];
}

/**
 * Erase the sessions run by any of `actorIds` in the factory, `batch` at a time, each batch its own transaction
 * (a sync of the same session waits for it). Idempotent: a second call finds no session under those ids.
 */
export async function eraseActorSessions(
  ctx: WriteContext,
  db: Db,
  actorIds: readonly string[],
  pseudonym: string,
  batch = 100,
): Promise<ErasedSessions> {
  const out: ErasedSessions = { sessions: 0, released: [] };
  if (!actorIds.length) return out;
  for (;;) {
    const keys = await db
      .selectFrom('sessions')
      .select('session_key')
      .where('app_id', '=', ctx.appId)
      .where('actor_id', 'in', actorIds)
      .orderBy('session_key')
      .limit(batch)
      .execute();
    if (!keys.length) return out;
    const released = await db.transaction().execute(async (trx) => {
      const rows = await store.findByKeys(
        trx,
        ctx.appId,
        keys.map((k) => k.session_key),
      );
      const ids = rows.map((r) => r.id);
      const images = await docStore.imagesOfSessions(trx, ctx.appId, ids);
      const docs = new Map(
        (await docStore.getDocuments(trx, ctx.appId, ids)).map((d) => [
          d.session_id,
          decodeDocument(d.encoding, d.body),
        ]),
      );
      const items: { row: store.SessionRow; doc: AgentSessionV1 }[] = [];
      for (const row of rows) {
        const doc = docs.get(row.id);
        if (!doc) {
          await store.setCaptureTier(trx, row, 'metrics', ctx.clock.now());
          continue;
        }
        const cut = applyTier(doc as unknown as CapturedSession, 'metrics') as unknown as AgentSessionV1;
        delete cut.actor;
        items.push({ row, doc: cut });
      }
      await replaceStoredDocuments(ctx, trx, items);
      // Read again: the cut document can move a session (the metrics tier keeps no repository).
      const cutRows = await store.findByKeys(
        trx,
        ctx.appId,
        keys.map((k) => k.session_key),
      );

      // The actor facet moves from the person to the pseudonym; a counter left at zero goes with its label.
      const facets = new Map<string, counterStore.FacetDelta>();
      const move = (repo: string, value: string, label: string | null, delta: number) => {
        const key = `${repo}\u0000${value}`;
        const found = facets.get(key);
        if (found) found.delta += delta;
        else facets.set(key, { repo, kind: 'actor', value, label, delta });
      };
      for (const row of cutRows) {
        if (row.is_subagent) continue;
        move(row.repo, row.actor_id, null, -1);
        move(row.repo, pseudonym, ERASED_ACTOR_NAME, 1);
      }
      // In key order, as writers take facet rows (sessions/write.ts), so the two never deadlock on PostgreSQL.
      await counterStore.applyFacetDeltas(trx, ctx.appId, valuesInKeyOrder(facets));
      await store.renameActor(trx, ctx.appId, ids, actorIds, pseudonym, ERASED_ACTOR_NAME);

      const still = await docStore.imagesStillNamed(trx, ctx.appId, images);
      const gone = images.filter((sha) => !still.has(sha));
      await forgetImages(trx, ctx.appId, gone);
      return gone;
    });
    out.sessions += keys.length;
    out.released.push(...released);
  }
}
