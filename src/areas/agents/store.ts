// SQL for the factory's content-addressed session images: which sha256 a factory holds (the bytes live once in
// the blob store, app.attest.blobs). Scoped by app_id, so another factory's blob is simply absent.
import type { Db } from '../../db/connection.js';
import { digestsNamedIn, forgetDigests } from '../../db/digests.js';

export interface AgentBlobsTable {
  app_id: string;
  sha256: string;
  media_type: string;
  bytes: number;
  created_at: number;
}

declare module '../../db/schema.js' {
  interface Database {
    agent_blobs: AgentBlobsTable;
  }
}

export async function recordBlobs(db: Db, rows: AgentBlobsTable[]): Promise<void> {
  if (!rows.length) return;
  await db
    .insertInto('agent_blobs')
    .values(rows)
    .onConflict((oc) => oc.columns(['app_id', 'sha256']).doNothing())
    .execute();
}

export async function findBlob(db: Db, appId: string, sha256: string): Promise<AgentBlobsTable | undefined> {
  return db
    .selectFrom('agent_blobs')
    .selectAll()
    .where('app_id', '=', appId)
    .where('sha256', '=', sha256)
    .executeTakeFirst();
}

/** Let go of the factory's hold on these images. */
export function forgetBlobs(db: Db, appId: string, shas: readonly string[]): Promise<void> {
  return forgetDigests(db, 'agent_blobs', appId, shas);
}

/** Of these digests, the ones some factory holds as a session image. */
export function blobsHeldAnywhere(db: Db, shas: readonly string[]): Promise<Set<string>> {
  return digestsNamedIn(db, 'agent_blobs', null, shas);
}
