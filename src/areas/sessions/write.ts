// Writing a batch of changed sessions in the caller's transaction: their summary rows, and everything that follows
// a session's document (usage, tools, PR links, commits, rollups, facts, images, the document itself and the
// list's counters), one statement a table for the whole batch.
import type { Db } from '../../db/connection.js';
import { insertRowsTogether } from '../../db/bulk-insert.js';
import type { FactoryContext } from '../../server/context.js';
import { recordSessionPrOutcomes, recordSessionPrRefs, recordSessionSpend } from '../prs/service.js';
import { namedPrs } from '../prs/refs.js';
import { recordSessionCommits } from '../prs/commit-links.js';
import { recordToolUsage } from '../metrics/service.js';
import { rollupInserts, storedRollupParts, type RollupToolRow } from '../metrics/rollup-write.js';
import { storeSessionFacts } from '../verdict/ingest.js';
import {
  encodeDocument,
  summarize,
  type AgentSessionV1,
  type EncodedDocument,
  type SessionSummary,
} from './document.js';
import { imagesOf, rowOf, usageRows, type CaptureSource, type SessionActor } from './session-rows.js';
import * as store from './store.js';
import { ListCounterMoves } from './counter-store.js';
import * as docStore from './document-store.js';

export interface Pending {
  key: string;
  before: store.SessionRow | null;
  /** What is stored (null when a row has no document yet), then the folded result. */
  doc: AgentSessionV1 | null;
  parts: number[];
  changed: boolean;
  summary?: SessionSummary;
  /** Where `doc` came from: the stored row's source, then this call's once it folded a version in. */
  source: CaptureSource;
}

/** A session's summary and stored encoding, computed before the transaction (see prepareSessions). */
interface PreparedSession {
  summary: Omit<SessionSummary, 'chunkParts' | 'chunkOf'>;
  encoded: EncodedDocument;
}

/** Work done ahead of storeSessions, keyed by the incoming document object it was computed from. */
export type PreparedSessions = ReadonlyMap<AgentSessionV1, PreparedSession>;

export type Folded = Pending & { doc: AgentSessionV1 };

/** A document as written: for a caller that keeps it decoded (DocumentCache) once the transaction commits. */
export interface WrittenDocument {
  id: string;
  doc: AgentSessionV1;
  encoded: EncodedDocument;
}

/** What storing a session needs of its caller: the factory, a clock and a log (a request or a sweep). */
export type WriteContext = Pick<FactoryContext, 'orgId' | 'appId' | 'clock' | 'log'>;

export function summaryOf(p: Folded, prepared: PreparedSessions): SessionSummary {
  p.summary ??= {
    ...(prepared.get(p.doc)?.summary ?? summarize(p.doc)),
    chunkParts: p.parts,
    chunkOf: p.doc.chunk?.of ?? null,
  };
  return p.summary;
}

/** Update the replaced rows, then usage, documents and counters of every changed session in one go each. */
export async function writeAll(
  ctx: WriteContext,
  db: Db,
  changed: Folded[],
  insertedRows: store.SessionRow[],
  now: number,
  prepared: PreparedSessions,
): Promise<WrittenDocument[]> {
  const insertedByKey = new Map(insertedRows.map((r) => [r.session_key, r]));
  const written: {
    before: store.SessionRow | null;
    row: store.SessionRow;
    summary: SessionSummary;
    doc: AgentSessionV1;
  }[] = [];
  const updates: Parameters<typeof store.updateSessions>[2] = [];
  for (const p of changed) {
    const summary = summaryOf(p, prepared);
    const inserted = insertedByKey.get(p.key);
    if (inserted && !p.before) {
      written.push({ before: null, row: inserted, summary, doc: p.doc });
      continue;
    }
    if (!p.before) continue; // lost a race and not reloaded: nothing of ours to write
    const kept: SessionActor = {
      actorId: p.before.actor_id,
      actorName: p.before.actor_name,
      credentialId: p.before.credential_id,
    };
    const row = rowOf(ctx, p.before.id, summary, kept, now, p.before.created_at, p.source);
    const { id: _id, org_id: _o, app_id: _a, session_key: _k, created_at: _c, ...changes } = row;
    updates.push({ id: p.before.id, ...changes });
    written.push({ before: p.before, row, summary, doc: p.doc });
  }
  if (!written.length) return [];
  await store.updateSessions(db, ctx.appId, updates);

  // Only a replaced session can have usage, tool or PR rows already: an inserted one has a new id.
  const replaced = written.filter((w) => w.before).map((w) => w.row.id);
  // What the replaced sessions counted in the daily rollups, read before their rows are replaced.
  const storedParts = await storedRollupParts(db, ctx.appId, replaced);
  const usage = written.map((w) => usageRows(w.row, w.summary));
  await store.replaceModelUsage(db, ctx.appId, replaced, usage.flat());
  // Per-tool counters for the metrics tool breakdown, from the same merged documents.
  const toolRows = await recordToolUsage(
    db,
    ctx.appId,
    written.map((w) => ({
      session: {
        id: w.row.id,
        orgId: w.row.org_id,
        appId: w.row.app_id,
        startedAt: w.row.started_at,
        repo: w.row.repo,
        isSubagent: w.row.is_subagent === 1,
      },
      turns: w.doc.turns,
    })),
    replaced,
  );
  // The PRs each session names, as rows, for the metrics' PR spend tiles, and those tiles' sums.
  // A stored row that names no PR has no PR-ref rows to replace (they are what namedPrs reads of it).
  await recordSessionPrRefs(
    db,
    ctx.appId,
    written.map((w) => w.row),
    written.filter((w) => w.before && namedPrs(w.before).length > 0).map((w) => w.row.id),
  );
  // The commits each session made: what links it to the PR that holds one (prs/commit-links.ts).
  await recordSessionCommits(
    db,
    ctx.appId,
    written.map((w) => ({ id: w.row.id, doc: w.doc })),
    replaced,
  );
  await recordSessionSpend(
    db,
    ctx.appId,
    written.filter((w) => !w.row.is_subagent).map((w) => w.row.id),
    replaced.length > 0,
  );
  // The PRs by verdict of the Overview: the PRs these sessions linked to or link to now.
  await recordSessionPrOutcomes(
    db,
    ctx.appId,
    written.map((w) => ({ before: w.before, after: w.row })),
  );
  // The verification facts the verdict reads (issue 39).
  await storeSessionFacts(
    db,
    ctx.appId,
    written.map((w) => ({ id: w.row.id, repo: w.row.repo, doc: w.doc })),
    now,
    ctx.log,
  );
  // The images each document names, so a shared image is forgotten only when no session names it (issue 42).
  // A session stored from telemetry has no image rows to replace: its documents name no image.
  await docStore.replaceSessionImages(
    db,
    ctx.appId,
    written.filter((w) => w.before && w.before.capture_source !== 'telemetry').map((w) => w.row.id),
    written.flatMap((w) => imagesOf(w.doc).map((sha256) => ({ app_id: ctx.appId, session_id: w.row.id, sha256 }))),
  );
  const documents = written.map((w) => ({
    id: w.row.id,
    doc: w.doc,
    // A document stored exactly as it came was compressed before the transaction; a merged one is compressed here.
    encoded: prepared.get(w.doc)?.encoded ?? encodeDocument(w.doc, w.row.capture_source === 'telemetry' ? 0 : 1),
  }));
  await docStore.putDocuments(
    db,
    documents.map(({ id, encoded }) => ({
      session_id: id,
      app_id: ctx.appId,
      encoding: encoded.encoding,
      raw_bytes: encoded.rawBytes,
      body: encoded.body,
    })),
  );

  // The daily rollups of the metrics move by what each session counts now minus what it counted. They, the facets
  // and the repositories below are counter rows every session of a day and repository shares: on PostgreSQL a
  // writer holds such a row locked from its upsert to its commit, so they are written last, and concurrent
  // writers queue on them only for the end of their transactions (OTLP exports of one day, every few seconds).
  const toolsBySession = new Map<string, RollupToolRow[]>();
  for (const t of toolRows) {
    const list = toolsBySession.get(t.session_id);
    if (list) list.push(t);
    else toolsBySession.set(t.session_id, [t]);
  }
  const rollups = rollupInserts(
    ctx.appId,
    written.map((w, i) => ({
      before: w.before
        ? {
            row: w.before,
            usage: storedParts.get(w.before.id)?.usage ?? [],
            tools: storedParts.get(w.before.id)?.tools ?? [],
          }
        : null,
      after: { row: w.row, usage: usage[i]!, tools: toolsBySession.get(w.row.id) ?? [] },
    })),
  );
  const counters = new ListCounterMoves();
  for (const w of written) {
    if (w.before) counters.add(w.before, -1);
    counters.add(w.row, 1);
  }
  // A fixed order keeps concurrent writers from taking counter rows in opposite orders (deadlocks).
  // One statement on PostgreSQL: the shared rows are locked by one round trip before the COMMIT.
  await insertRowsTogether(db, [...rollups, ...counters.inserts(ctx.appId)]);
  return documents;
}
