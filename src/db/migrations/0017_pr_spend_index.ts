// The PR spend tiles (src/areas/prs/spend-store.ts) are computed on every read (no memo of tenant data,
// which could answer stale). Their heaviest part walks every top-level session of a window and reads its
// repo, branch and cost; this index holds exactly those columns in the window's order, so the walk reads the
// index alone instead of one table row per session.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex('sessions_spend_window')
    .on('sessions')
    .columns(['app_id', 'is_subagent', 'started_at', 'repo', 'branch', 'cost_micros', 'id'])
    .execute();
}
