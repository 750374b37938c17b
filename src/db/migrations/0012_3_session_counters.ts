// Issue 15 §5: `errorCount` is tool calls that ran and failed, nothing else (it used to add API errors), and
// `origin` follows the reference rule (originOf below, frozen as src/areas/sessions/document.ts had it:
// workerKind seat/shared no longer makes a session `worker`, an entrypoint no longer makes it `agent`). The stored rows
// are recomputed from the stored documents, and the `origin` facet counters (originCounts and the origin filter's
// totals) move with them, so lists, filters, originCounts, signals and metrics agree.
// - error_count := tool_error_count, in SQL (tool_error_count already counts exactly the failed tool calls).
// - origin: only rows the old rule could have set differently are read (origin 'worker' or 'agent'); their
//   document gives agent.origin and workerKind.
// Signals and the metric rollups read tool_error_count, api_error_count and rejected_tool_call_count, which
// do not change; the breakdown by origin reads the sessions rows.
import zlib from 'node:zlib';
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

interface Row {
  id: string;
  app_id: string;
  repo: string;
  origin: string;
  is_subagent: number;
}

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await sql`update sessions set error_count = tool_error_count where error_count <> tool_error_count`.execute(db);

  let after = '';
  for (;;) {
    const rows = (
      await sql<Row>`select id, app_id, repo, origin, is_subagent from sessions
        where origin in ('worker', 'agent') and id > ${after} order by id limit 500`.execute(db)
    ).rows;
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.id;
    const docs = (
      await sql<{
        session_id: string;
        encoding: string;
        body: Uint8Array;
      }>`select session_id, encoding, body from session_documents
        where session_id in (${sql.join(rows.map((r) => r.id))})`.execute(db)
    ).rows;
    const docById = new Map(docs.map((d) => [d.session_id, d]));
    for (const row of rows) {
      const d = docById.get(row.id);
      if (!d) continue;
      const origin = originOf(decodeDocument(d.encoding, d.body));
      if (origin === row.origin) continue;
      await sql`update sessions set origin = ${origin} where id = ${row.id}`.execute(db);
      if (Number(row.is_subagent) === 1) continue; // subagent sessions count in no facet
      await sql`update session_facets set sessions = sessions - 1
        where app_id = ${row.app_id} and repo = ${row.repo} and kind = 'origin' and value = ${row.origin}`.execute(db);
      const moved = await sql`update session_facets set sessions = sessions + 1
        where app_id = ${row.app_id} and repo = ${row.repo} and kind = 'origin' and value = ${origin}`.execute(db);
      if (Number(moved.numAffectedRows ?? 0) === 0) {
        await sql`insert into session_facets (app_id, repo, kind, value, label, sessions)
          values (${row.app_id}, ${row.repo}, 'origin', ${origin}, null, 1)`.execute(db);
      }
    }
  }
  await sql`delete from session_facets where kind = 'origin' and sessions <= 0`.execute(db);
}

// Frozen copies of the sessions area's document decoding and origin rule as they were when this migration was
// written (src/areas/sessions/document.ts): the migration must mean the same forever, whatever the area's
// rule becomes later.

interface StoredDocument {
  agent: { origin?: unknown };
  workerKind?: unknown;
}

function decodeDocument(encoding: string, body: Uint8Array | ArrayBuffer): StoredDocument {
  // pg gives a Buffer, libsql an ArrayBuffer.
  const buf =
    body instanceof ArrayBuffer ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const raw = encoding === 'br' ? zlib.brotliDecompressSync(buf) : encoding === 'gzip' ? zlib.gunzipSync(buf) : buf;
  return JSON.parse(raw.toString('utf8')) as StoredDocument;
}

/** `agent.origin` when it is one of the three values; else `worker` for a cloud or CI runner, or `interactive`. */
function originOf(doc: StoredDocument): 'interactive' | 'agent' | 'worker' {
  const declared = doc.agent.origin;
  if (declared === 'interactive' || declared === 'agent' || declared === 'worker') return declared;
  if (doc.workerKind === 'cloud' || doc.workerKind === 'ci') return 'worker';
  return 'interactive';
}
