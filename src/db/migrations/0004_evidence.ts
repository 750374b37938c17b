// Evidence: artifacts (metadata; bytes live in the content-addressed blob store), which factory owns
// which artifact blob, and emitted results (pass/fail of a check run in the caller's own CI).
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('artifacts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('client_artifact_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('media_type', 'text', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('caption', 'text', (c) => c.notNull())
    .addColumn('criterion_id', 'text')
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('repository', 'text')
    .addColumn('pr_number', 'integer')
    .addColumn('work_item_id', 'text')
    .addColumn('supersedes', 'text')
    .addColumn('session_id', 'text')
    .addColumn('session_turn_index', 'integer')
    .addColumn('emitted_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // Idempotency key of ingest: one artifact per clientArtifactId per factory.
    .addUniqueConstraint('artifacts_app_client_id', ['app_id', 'client_artifact_id'])
    .execute();
  await db.schema
    .createIndex('artifacts_app_pr')
    .on('artifacts')
    .columns(['app_id', 'repository', 'pr_number'])
    .execute();
  await db.schema.createIndex('artifacts_app_work_item').on('artifacts').columns(['app_id', 'work_item_id']).execute();
  await db.schema.createIndex('artifacts_app_session').on('artifacts').columns(['app_id', 'session_id']).execute();

  // The blob store is shared and content-addressed; this table says which factory may read which blob,
  // so knowing a digest never lets another factory read the bytes.
  await db.schema
    .createTable('artifact_blobs')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('artifact_blobs_pk', ['app_id', 'sha256'])
    .execute();

  await db.schema
    .createTable('emitted_results')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('client_emit_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('link', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('pr_number', 'integer', (c) => c.notNull())
    .addColumn('head_sha', 'text')
    .addColumn('ci', 'text')
    .addColumn('emitted_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('emitted_results_app_client_id', ['app_id', 'client_emit_id'])
    .execute();
  await db.schema
    .createIndex('emitted_results_app_pr')
    .on('emitted_results')
    .columns(['app_id', 'repository', 'pr_number'])
    .execute();
}
