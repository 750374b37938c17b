// One reference count for content-addressed blobs. A blob (sha256) is named by rows of several tables: what
// names it (session_images: a stored session's image; artifacts: an artifact's bytes) and each factory's hold on
// it (agent_blobs, artifact_blobs). Each area's store asks through these two functions with its own table, so the
// rule "which of these digests does the table still name, in this factory or in any" is written once.
import { sql } from 'kysely';
import type { Db } from './connection.js';
import type { Database } from './schema.js';

/** The tables whose rows name a blob by `sha256` within a factory (`app_id`). */
export type DigestTable = {
  [K in keyof Database]: Database[K] extends { app_id: string; sha256: string } ? K : never;
}[keyof Database];

/** Digests per statement: well under SQLite's bound-parameter limit. */
const CHUNK = 300;

/** Of these digests, the ones some row of `table` names: in the factory `appId`, or in any factory (null). */
export async function digestsNamedIn(
  db: Db,
  table: DigestTable,
  appId: string | null,
  shas: readonly string[],
): Promise<Set<string>> {
  const out = new Set<string>();
  const unique = [...new Set(shas)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const part = sql.join(unique.slice(i, i + CHUNK));
    const factory = appId === null ? sql`` : sql`app_id = ${appId} and `;
    const { rows } = await sql<{ sha256: string }>`
      select distinct sha256 from ${sql.table(table)} where ${factory}sha256 in (${part})`.execute(db);
    for (const r of rows) out.add(r.sha256);
  }
  return out;
}

/** Delete the factory's rows of `table` naming these digests (a hold it lets go of). */
export async function forgetDigests(db: Db, table: DigestTable, appId: string, shas: readonly string[]): Promise<void> {
  const unique = [...new Set(shas)];
  for (let i = 0; i < unique.length; i += CHUNK)
    await sql`delete from ${sql.table(table)} where app_id = ${appId} and sha256 in (${sql.join(
      unique.slice(i, i + CHUNK),
    )})`.execute(db);
}
