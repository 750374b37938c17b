// The living PR comment (issue 18): the factory setting `pr_comment` on apps, and one durable job row per
// pull request whose comment must be (re)rendered. The row is the debounce (due_at), the lease that keeps
// one replica at a time on a pull request (lease_owner, lease_until), the retry state (attempts,
// retry_at, last_error_*) and what was posted (comment_id, body_sha256).
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('apps')
    .addColumn('pr_comment', 'text', (c) => c.notNull().defaultTo('off'))
    .execute();

  await db.schema
    .createTable('pr_comment_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    // normalized (lower-case) owner/repo, and the pull request (issue) number
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    // Debounce: every trigger bumps `requested`; a run posts what it read and records `done`.
    .addColumn('requested', 'integer', (c) => c.notNull())
    .addColumn('done', 'integer', (c) => c.notNull())
    .addColumn('pending_since', 'bigint')
    .addColumn('due_at', 'bigint')
    .addColumn('retry_at', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'bigint')
    .addColumn('comment_id', 'bigint')
    .addColumn('comment_url', 'text')
    .addColumn('body_sha256', 'text')
    .addColumn('posted_at', 'bigint')
    .addColumn('last_error_code', 'text')
    .addColumn('last_error_message', 'text')
    .addColumn('last_error_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('pr_comment_jobs_pr', ['app_id', 'repository', 'number'])
    .execute();
  await db.schema.createIndex('pr_comment_jobs_due').on('pr_comment_jobs').columns(['due_at']).execute();
}
