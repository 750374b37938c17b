// The pull requests each session names itself, as rows (`session_pr_refs`), so the cost tiles of the metrics
// (cost per merged PR, unshipped spend) join sessions to PRs in SQL instead of parsing `sessions.pr_refs`
// JSON in memory. Kept by the sessions ingest (through the prs service) in the writing transaction; this
// migration backfills it from the sessions already stored, a page at a time.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

interface Row {
  id: string;
  app_id: string;
  repo: string;
  pr_refs: string;
}

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('session_pr_refs')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_pr_refs_pk', ['app_id', 'session_id', 'repository', 'number'])
    .execute();
  await db.schema
    .createIndex('session_pr_refs_app_pr')
    .on('session_pr_refs')
    .columns(['app_id', 'repository', 'number', 'session_id'])
    .execute();

  // Backfill: sessions that name a PR, in pages by id (keyset), never all in memory.
  const anyDb = db as unknown as Kysely<{
    sessions: Row;
    session_pr_refs: { app_id: string; session_id: string; repository: string; number: number };
  }>;
  let after = '';
  for (;;) {
    const page = await anyDb
      .selectFrom('sessions')
      .select(['id', 'app_id', 'repo', 'pr_refs'])
      .where('pr_refs', '<>', '[]')
      .where('id', '>', after)
      .orderBy('id')
      .limit(1000)
      .execute();
    if (page.length === 0) break;
    const rows = page.flatMap((s) =>
      namedPrs(s).map((k) => ({ app_id: s.app_id, session_id: s.id, repository: k.repository, number: k.number })),
    );
    for (let i = 0; i < rows.length; i += 500)
      await anyDb
        .insertInto('session_pr_refs')
        .values(rows.slice(i, i + 500))
        .onConflict((oc) => oc.doNothing())
        .execute();
    after = page[page.length - 1]!.id;
  }
}

// A frozen copy of how the prs area parsed a session's named pull requests when this migration was written
// (src/areas/prs/refs.ts namedPrs, with prs/state.ts normalizeRepository): the migration must backfill the
// same rows forever, whatever the area's rule becomes later.

const PR_URL = /^https?:\/\/[^/]+\/([^/\s]+)\/([^/\s]+)\/pulls?\/(\d+)/i;

function normalizeRepository(repository: string): string {
  return repository
    .trim()
    .replace(/^https?:\/\/[^/]+\//i, '')
    .replace(/^github\.com\//i, '')
    .replace(/\.git$/i, '')
    .toLowerCase();
}

/** The PRs a session names itself: the repository from the PR URL when given, else the session's own. */
function namedPrs(row: { repo: string; pr_refs: string }): { repository: string; number: number }[] {
  let refs: unknown;
  try {
    refs = JSON.parse(row.pr_refs);
  } catch {
    return [];
  }
  if (!Array.isArray(refs)) return [];
  const out: { repository: string; number: number }[] = [];
  for (const ref of refs) {
    if (!ref || typeof ref !== 'object') continue;
    const { prNumber, prUrl } = ref as { prNumber?: unknown; prUrl?: unknown };
    if (typeof prNumber !== 'number' || !Number.isSafeInteger(prNumber) || prNumber <= 0) continue;
    const m = typeof prUrl === 'string' ? PR_URL.exec(prUrl) : null;
    const repository = m ? normalizeRepository(`${m[1]}/${m[2]}`) : row.repo;
    if (!repository) continue;
    if (!out.some((o) => o.repository === repository && o.number === prNumber))
      out.push({ repository, number: prNumber });
  }
  return out;
}
