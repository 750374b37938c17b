// Artifacts carry what the OuterLayer CLI sends about where they were made (issue 15 §2): whether in CI, the
// normalized git remote, branch and commit. All optional; existing rows read null.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('artifacts').addColumn('ci', 'integer').execute();
  await db.schema.alterTable('artifacts').addColumn('git_repo', 'text').execute();
  await db.schema.alterTable('artifacts').addColumn('git_branch', 'text').execute();
  await db.schema.alterTable('artifacts').addColumn('commit_sha', 'text').execute();
}
