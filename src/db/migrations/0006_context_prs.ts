// Context tree history (the `.outerlayer/` tree per synced commit), pull-request state from the code
// host's webhooks (state, checks, reverts) and per-tool counters for metrics. File bytes live in the blob
// store (content-addressed); these tables hold only the per-factory trees and what changed between commits.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  // One row per synced commit. `seq` orders the history per factory (sync order, 1 upward): "previous
  // synced commit" means the row with the next lower seq.
  await db.schema
    .createTable('context_commits')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('commit_sha', 'text', (c) => c.notNull())
    .addColumn('branch', 'text')
    .addColumn('tree_sha256', 'text', (c) => c.notNull())
    .addColumn('file_count', 'integer', (c) => c.notNull())
    .addColumn('total_bytes', 'bigint', (c) => c.notNull())
    .addColumn('previous_commit_sha', 'text')
    .addColumn('synced_at', 'bigint', (c) => c.notNull())
    .addColumn('synced_by', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('context_commits_app_sha')
    .on('context_commits')
    .columns(['app_id', 'commit_sha'])
    .unique()
    .execute();
  await db.schema
    .createIndex('context_commits_app_seq')
    .on('context_commits')
    .columns(['app_id', 'seq'])
    .unique()
    .execute();

  // The tree at a commit: path → blob sha256. Unchanged files point at the same blob.
  await db.schema
    .createTable('context_files')
    .addColumn('commit_id', 'text', (c) => c.notNull().references('context_commits.id').onDelete('cascade'))
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('context_files_pk', ['commit_id', 'path'])
    .execute();

  // What a commit changed relative to the previous synced commit, computed once at sync time.
  await db.schema
    .createTable('context_changes')
    .addColumn('commit_id', 'text', (c) => c.notNull().references('context_commits.id').onDelete('cascade'))
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('change', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text')
    .addColumn('previous_sha256', 'text')
    .addPrimaryKeyConstraint('context_changes_pk', ['commit_id', 'path'])
    .execute();

  // Pull requests of the factory's connected repositories, as the code host's webhooks report them.
  await db.schema
    .createTable('pull_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('author', 'text')
    .addColumn('head_branch', 'text', (c) => c.notNull())
    .addColumn('head_sha', 'text', (c) => c.notNull())
    .addColumn('base_branch', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('merged', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('opened_at', 'bigint', (c) => c.notNull())
    .addColumn('closed_at', 'bigint')
    .addColumn('merged_at', 'bigint')
    // GitHub's pull_request.updated_at: a redelivered older event never rolls state back.
    .addColumn('source_updated_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('pull_requests_app_repo_number')
    .on('pull_requests')
    .columns(['app_id', 'repository', 'number'])
    .unique()
    .execute();
  await db.schema
    .createIndex('pull_requests_app_repo_head')
    .on('pull_requests')
    .columns(['app_id', 'repository', 'head_branch'])
    .execute();

  // "PR B reverts PR A" references, recorded when B merges. A is named by number ("Reverts owner/repo#12")
  // or by title (`Revert "<title>"`); read time joins them, so the order webhooks arrive in does not matter.
  await db.schema
    .createTable('pr_revert_refs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('reverting_number', 'integer', (c) => c.notNull())
    .addColumn('target_number', 'integer')
    .addColumn('target_title', 'text')
    .addColumn('merged_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('pr_revert_refs_app_repo')
    .on('pr_revert_refs')
    .columns(['app_id', 'repository'])
    .execute();

  // Check suites and check runs per head commit; a PR's ciGreen is derived from those of its head sha.
  await db.schema
    .createTable('pr_checks')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('check_id', 'text', (c) => c.notNull())
    .addColumn('head_sha', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('conclusion', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('pr_checks_pk', ['app_id', 'repository', 'check_id'])
    .execute();
  await db.schema
    .createIndex('pr_checks_app_repo_sha')
    .on('pr_checks')
    .columns(['app_id', 'repository', 'head_sha'])
    .execute();

  // Per-session, per-tool call counters for the metrics' tool breakdown (GROUP BY tool in SQL). The session
  // summary rows keep only totals; these rows are written beside them when a session is ingested.
  await db.schema
    .createTable('session_tool_usage')
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('tool', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('repo', 'text', (c) => c.notNull())
    .addColumn('is_subagent', 'integer', (c) => c.notNull())
    .addColumn('calls', 'integer', (c) => c.notNull())
    .addColumn('errors', 'integer', (c) => c.notNull())
    .addColumn('rejected', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_tool_usage_pk', ['session_id', 'tool'])
    .execute();
  await db.schema
    .createIndex('session_tool_usage_app_time')
    .on('session_tool_usage')
    .columns(['app_id', 'started_at'])
    .execute();

  // Daily rollups of the sessions (per factory, UTC day, repository), refreshed from the summary rows when
  // metrics are read, so a 30-day overview reads ~30 rows per repository instead of every session. Only
  // whole days come from here; partial days at a window's edges are aggregated from the sessions directly.
  await db.schema
    .createTable('metrics_days')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('repo', 'text', (c) => c.notNull())
    .addColumn('sessions', 'bigint', (c) => c.notNull())
    .addColumn('subagent_sessions', 'bigint', (c) => c.notNull())
    .addColumn('cost_micros', 'bigint', (c) => c.notNull())
    .addColumn('turns', 'bigint', (c) => c.notNull())
    .addColumn('tool_calls', 'bigint', (c) => c.notNull())
    .addColumn('tool_errors', 'bigint', (c) => c.notNull())
    .addColumn('rejected', 'bigint', (c) => c.notNull())
    .addColumn('clean', 'bigint', (c) => c.notNull())
    .addColumn('hands_on', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('metrics_days_pk', ['app_id', 'day', 'repo'])
    .execute();
  await db.schema
    .createTable('metrics_day_actors')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('repo', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('metrics_day_actors_pk', ['app_id', 'day', 'repo', 'actor_id'])
    .execute();
  await db.schema
    .createTable('metrics_day_models')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('repo', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('sessions', 'bigint', (c) => c.notNull())
    .addColumn('turns', 'bigint', (c) => c.notNull())
    .addColumn('unpriced_turns', 'bigint', (c) => c.notNull())
    .addColumn('input_tokens', 'bigint', (c) => c.notNull())
    .addColumn('output_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cache_read_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cache_write_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cost_micros', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('metrics_day_models_pk', ['app_id', 'day', 'repo', 'model'])
    .execute();
  // How far the rollups of a factory are refreshed: every session with updated_at below `watermark`, and
  // `ties` sessions at it, are counted; `rechecked_at` is when sessions of the last minutes were last re-read.
  await db.schema
    .createTable('metrics_refresh')
    .addColumn('app_id', 'text', (c) => c.primaryKey())
    .addColumn('watermark', 'bigint', (c) => c.notNull())
    .addColumn('ties', 'bigint', (c) => c.notNull())
    .addColumn('rechecked_at', 'bigint', (c) => c.notNull())
    .execute();
  // On the sessions area's table (read-only here): which sessions changed since a refresh, and the partial
  // days at a window's edges, each an index range.
  await db.schema
    .createIndex('metrics_sessions_app_updated')
    .on('sessions')
    .columns(['app_id', 'updated_at'])
    .execute();
  await db.schema
    .createIndex('metrics_sessions_app_started')
    .on('sessions')
    .columns(['app_id', 'started_at'])
    .execute();
}
