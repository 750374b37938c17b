// The data's whole life (issue 42): the factory's retention settings on apps; tombstones of deleted sessions and
// artifacts (so a link to one says "deleted" rather than 404); which images each stored session refers to
// (`session_images`, so a shared content-addressed image is forgotten only when no session of the factory still
// names it), backfilled from the stored documents; the retention sweep's lease and progress per factory; and the
// indexes the sweep reads by. (A deletion moves the metric rollups back in its own transaction, as a re-sync does.)
import zlib from 'node:zlib';
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  for (const name of [
    'retention_full_days',
    'retention_redacted_days',
    'retention_sessions_days',
    'retention_artifacts_days',
  ])
    await db.schema.alterTable('apps').addColumn(name, 'integer').execute();

  await db.schema
    .createTable('tombstones')
    .addColumn('app_id', 'text', (c) => c.notNull())
    // 'session' | 'artifact'
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    // 'request' (a person deleted it) | 'retention' (the factory's retention deleted it)
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('tombstones_pk', ['app_id', 'kind', 'id'])
    .execute();

  await db.schema
    .createTable('session_images')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_images_pk', ['app_id', 'session_id', 'sha256'])
    .execute();
  await db.schema.createIndex('session_images_app_sha').on('session_images').columns(['app_id', 'sha256']).execute();

  await db.schema
    .createTable('retention_runs')
    .addColumn('app_id', 'text', (c) => c.primaryKey())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'bigint', (c) => c.notNull())
    .addColumn('last_finished_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  // The sweep asks for a factory's oldest sessions still at a tier, and its oldest artifacts.
  await db.schema
    .createIndex('sessions_app_tier_started')
    .on('sessions')
    .columns(['app_id', 'capture_tier', 'started_at'])
    .execute();
  await db.schema.createIndex('artifacts_app_created').on('artifacts').columns(['app_id', 'created_at']).execute();
  // Blob reference checks across every factory: is this digest still held anywhere?
  await db.schema.createIndex('agent_blobs_sha').on('agent_blobs').columns(['sha256']).execute();
  await db.schema.createIndex('artifact_blobs_sha').on('artifact_blobs').columns(['sha256']).execute();

  await backfillSessionImages(db);
}

interface DocRow {
  session_id: string;
  app_id: string;
  encoding: string;
  body: Uint8Array | ArrayBuffer;
}

type BackfillDb = Kysely<{
  session_documents: DocRow;
  session_images: { app_id: string; session_id: string; sha256: string };
}>;

/** Page through the stored documents by session id (keyset), never all in memory. */
async function backfillSessionImages(db: Kysely<unknown>): Promise<void> {
  const anyDb = db as unknown as BackfillDb;
  let after = '';
  for (;;) {
    const page = await anyDb
      .selectFrom('session_documents')
      .select(['session_id', 'app_id', 'encoding', 'body'])
      .where('session_id', '>', after)
      .orderBy('session_id')
      .limit(200)
      .execute();
    if (page.length === 0) break;
    const rows = page.flatMap((d) =>
      imagesOf(d).map((sha256) => ({ app_id: d.app_id, session_id: d.session_id, sha256 })),
    );
    for (let i = 0; i < rows.length; i += 300)
      await anyDb
        .insertInto('session_images')
        .values(rows.slice(i, i + 300))
        .onConflict((oc) => oc.doNothing())
        .execute();
    after = page[page.length - 1]!.session_id;
  }
}

// A frozen copy of how a stored document was decoded (src/areas/sessions/document.ts decodeDocument) and where
// its images were (turns[].images[].sha256) when this migration was written.
function imagesOf(d: DocRow): string[] {
  const buf =
    d.body instanceof ArrayBuffer
      ? Buffer.from(d.body)
      : Buffer.from(d.body.buffer, d.body.byteOffset, d.body.byteLength);
  let doc: unknown;
  try {
    const raw =
      d.encoding === 'br' ? zlib.brotliDecompressSync(buf) : d.encoding === 'gzip' ? zlib.gunzipSync(buf) : buf;
    doc = JSON.parse(raw.toString('utf8'));
  } catch {
    return [];
  }
  const out = new Set<string>();
  const turns = (doc as { turns?: unknown }).turns;
  if (!Array.isArray(turns)) return [];
  for (const turn of turns) {
    const images = (turn as { images?: unknown } | null)?.images;
    if (!Array.isArray(images)) continue;
    for (const image of images) {
      const sha = (image as { sha256?: unknown } | null)?.sha256;
      if (typeof sha === 'string' && /^[0-9a-f]{64}$/.test(sha)) out.add(sha);
    }
  }
  return [...out];
}
