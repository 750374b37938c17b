// SQL of a stored session's document (its compressed AgentSession) and of the images that document names
// (content-addressed blobs, so a shared image is forgotten only when no session names it). Every query is
// scoped by app_id.
import type { Db } from '../../db/connection.js';
import { insertRows } from '../../db/bulk-insert.js';
import { deleteWhereIn } from '../../db/chunked.js';
import { digestsNamedIn } from '../../db/digests.js';
import type { SessionDocumentsTable, SessionImagesTable } from './store.js';

export async function putDocuments(db: Db, rows: SessionDocumentsTable[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await insertRows(
      db,
      'session_documents',
      rows.slice(i, i + 200),
      'on conflict ("session_id") do update set "encoding" = excluded."encoding", "raw_bytes" = ' +
        'excluded."raw_bytes", "body" = excluded."body"',
    );
  }
}

export async function getDocuments(db: Db, appId: string, sessionIds: string[]): Promise<SessionDocumentsTable[]> {
  if (!sessionIds.length) return [];
  return db
    .selectFrom('session_documents')
    .selectAll()
    .where('app_id', '=', appId)
    .where('session_id', 'in', sessionIds)
    .execute();
}

export async function getDocument(
  db: Db,
  appId: string,
  sessionId: string,
): Promise<SessionDocumentsTable | undefined> {
  return db
    .selectFrom('session_documents')
    .selectAll()
    .where('app_id', '=', appId)
    .where('session_id', '=', sessionId)
    .executeTakeFirst();
}

/** Replace the image rows of these sessions with `rows` (those of `sessionIds` are deleted first). */
export async function replaceSessionImages(
  db: Db,
  appId: string,
  sessionIds: readonly string[],
  rows: SessionImagesTable[],
): Promise<void> {
  await deleteWhereIn(db, 'session_images', appId, 'session_id', sessionIds, 300);
  for (let i = 0; i < rows.length; i += 300)
    await db
      .insertInto('session_images')
      .values(rows.slice(i, i + 300))
      .onConflict((oc) => oc.doNothing())
      .execute();
}

/** The images the stored documents of these sessions name. */
export async function imagesOfSessions(db: Db, appId: string, sessionIds: readonly string[]): Promise<string[]> {
  if (!sessionIds.length) return [];
  const rows = await db
    .selectFrom('session_images')
    .select('sha256')
    .distinct()
    .where('app_id', '=', appId)
    .where('session_id', 'in', [...sessionIds])
    .execute();
  return rows.map((r) => r.sha256);
}

/** Of these images, the ones some stored session of the factory still names. */
export function imagesStillNamed(db: Db, appId: string, shas: readonly string[]): Promise<Set<string>> {
  return digestsNamedIn(db, 'session_images', appId, shas);
}
