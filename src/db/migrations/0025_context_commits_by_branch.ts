// The context history of one branch (GET /v1/context/changes?branch=, its page and its total) had no index by
// branch: both stores read the factory's commits through (app_id, seq) and tested each one's branch, all of
// them for the total and for a branch with few commits. (app_id, branch, seq) answers the total
// and the page, newest first, from the branch's own entries.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('context_commits_app_branch_seq')
    .on('context_commits')
    .columns(['app_id', 'branch', 'seq'])
    .execute();
}
