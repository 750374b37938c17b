// `verification` on GET /v1/sessions/{id} (API.md §11): the facts stored at ingest (or, for a session stored
// before they were, read from its document now), absent at the metrics tier; the command text only at the
// full tier.
import { factsOfDocument, type FactsDocument, type SessionVerification } from '../../verify/index.js';
import type { FactoryContext } from '../../server/context.js';
import * as store from './store.js';

export async function verificationOfSession(
  ctx: FactoryContext,
  session: { traceId: string; captureTier: string },
  document: () => unknown,
): Promise<SessionVerification | undefined> {
  if (session.captureTier === 'metrics') return undefined;
  const stored = await store.factsOfSession(ctx.db, ctx.appId, session.traceId);
  let facts: SessionVerification | null = null;
  if (stored) {
    facts = stored.verification === null ? null : (JSON.parse(stored.verification) as SessionVerification);
  } else {
    try {
      facts = factsOfDocument(document() as FactsDocument);
    } catch (err) {
      ctx.log.warn({ err, traceId: session.traceId }, 'the verification facts of a session could not be read');
    }
  }
  if (facts === null) return undefined;
  if (session.captureTier === 'full') return facts;
  return { ...facts, runs: facts.runs.map(({ command: _command, ...run }) => run) };
}
