// The verdict (issue 39): the factory setting `pr_check` on apps; the check run the PR job keeps on the
// head commit (on pr_comment_jobs, beside the comment it keeps); each session's verification facts; every
// evaluation of a pull request (a new row only when it differs from the PR's latest); and what the App read
// from GitHub for the evaluation: a PR's commits and changed files per head commit, the repository's policy
// files per base commit (so each is read once, and a PR cannot change the policy it is judged by).
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('pull_requests').addColumn('base_sha', 'text').execute();
  await db.schema
    .alterTable('apps')
    .addColumn('pr_check', 'text', (c) => c.notNull().defaultTo('off'))
    .execute();

  for (const [name, type] of [
    ['check_run_id', 'bigint'],
    ['check_head_sha', 'text'],
    ['check_sha256', 'text'],
    ['check_url', 'text'],
    ['check_error_code', 'text'],
    ['check_error_message', 'text'],
    ['check_error_at', 'bigint'],
  ] as const) {
    await db.schema.alterTable('pr_comment_jobs').addColumn(name, type).execute();
  }

  await db.schema
    .createTable('session_verifications')
    .addColumn('session_id', 'text', (c) => c.primaryKey().references('sessions.id').onDelete('cascade'))
    .addColumn('app_id', 'text', (c) => c.notNull())
    // JSON SessionVerification; null = nothing checkable (metrics tier)
    .addColumn('verification', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('pr_evaluations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('head_sha', 'text')
    .addColumn('verdict', 'text', (c) => c.notNull())
    .addColumn('flagged', 'integer', (c) => c.notNull())
    .addColumn('blocked', 'integer', (c) => c.notNull())
    .addColumn('rows', 'text', (c) => c.notNull())
    .addColumn('policy', 'text', (c) => c.notNull())
    // sha256 of what the evaluation says (head, verdict, rows, policy): equal = the same evaluation
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('evaluated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('pr_evaluations_pr')
    .on('pr_evaluations')
    .columns(['app_id', 'repository', 'number', 'evaluated_at'])
    .execute();

  await db.schema
    .createTable('verdict_pr_inputs')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('head_sha', 'text', (c) => c.notNull())
    // JSON string[]; null when GitHub would not give it
    .addColumn('commits', 'text')
    .addColumn('files', 'text')
    .addColumn('fetched_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('verdict_pr_inputs_pk', ['app_id', 'repository', 'number', 'head_sha'])
    .execute();

  await db.schema
    .createTable('verdict_policies')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('base_sha', 'text', (c) => c.notNull())
    // JSON [{ path, text }] of .attest/policy.yaml and .attest/validators/*.yaml at that commit
    .addColumn('files', 'text', (c) => c.notNull())
    .addColumn('fetched_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('verdict_policies_pk', ['app_id', 'repository', 'base_sha'])
    .execute();
}
