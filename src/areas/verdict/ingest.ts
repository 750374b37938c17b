// Each session's verification facts, stored at ingest from the merged document (the sessions ingest calls this
// inside its transaction) (API.md §11): the pure module reads them from full-tier
// tool input and output, or from the facts events the CLI wrote at capture; a metrics-tier document stores
// null (nothing checkable). A document the module cannot read stores nothing: the session's evidence is
// already accepted, and a fact that is not there is "not checkable", never a pass.
import type { Db } from '../../db/connection.js';
import { factsOfDocument, type FactsDocument } from '../../verify/index.js';
import type { AgentSessionV1 } from '../sessions/document.js';
import * as store from './store.js';

export async function storeSessionFacts(
  db: Db,
  appId: string,
  sessions: ReadonlyArray<{ id: string; repo: string; doc: AgentSessionV1 }>,
  now: number,
  log?: { warn(obj: unknown, msg: string): void },
): Promise<void> {
  const rows: store.SessionVerificationsTable[] = [];
  const kinds: store.RepositoryRunKindsTable[] = [];
  for (const { id, repo, doc } of sessions) {
    try {
      const facts = factsOfDocument(doc as unknown as FactsDocument);
      if (repo !== '')
        for (const kind of new Set(facts?.runs.map((r) => r.kind)))
          kinds.push({ app_id: appId, repository: repo, kind });
      rows.push({
        session_id: id,
        app_id: appId,
        verification: facts === null ? null : JSON.stringify(facts),
        updated_at: now,
      });
    } catch (err) {
      log?.warn({ err, traceId: id }, 'the verification facts of a session could not be read');
    }
  }
  await store.upsertVerifications(db, rows);
  await store.recordRunKinds(db, kinds);
}

/** Forget the facts of deleted sessions (in the deleting transaction). */
export async function forgetSessionFacts(db: Db, appId: string, sessionIds: readonly string[]): Promise<void> {
  await store.deleteVerifications(db, appId, sessionIds);
}
