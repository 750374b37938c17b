// Agent sessions: one summary row per session (what the list filters and sorts on), per-model usage rows
// (tokens by kind and cost, for metrics), the compressed session document (transcript reads), counters the
// list's facets and repo selection read in constant time, and the factory's content-addressed images.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey()) // the traceId
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('session_key', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('parent_session_id', 'text')
    .addColumn('subagent_id', 'text')
    .addColumn('is_subagent', 'integer', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('actor_name', 'text', (c) => c.notNull())
    .addColumn('credential_id', 'text', (c) => c.notNull())
    .addColumn('agent_type', 'text', (c) => c.notNull())
    .addColumn('agent_version', 'text')
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('worker_kind', 'text')
    .addColumn('repo', 'text', (c) => c.notNull())
    .addColumn('branch', 'text', (c) => c.notNull())
    .addColumn('project', 'text', (c) => c.notNull())
    .addColumn('commit_sha', 'text')
    .addColumn('title', 'text')
    .addColumn('capture_tier', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('ended_at', 'bigint')
    .addColumn('duration_ms', 'bigint', (c) => c.notNull())
    .addColumn('turn_count', 'integer', (c) => c.notNull())
    .addColumn('user_turn_count', 'integer', (c) => c.notNull())
    .addColumn('steering_count', 'integer', (c) => c.notNull())
    .addColumn('event_count', 'integer', (c) => c.notNull())
    .addColumn('tool_call_count', 'integer', (c) => c.notNull())
    .addColumn('tool_error_count', 'integer', (c) => c.notNull())
    .addColumn('rejected_tool_call_count', 'integer', (c) => c.notNull())
    .addColumn('api_error_count', 'integer', (c) => c.notNull())
    .addColumn('error_count', 'integer', (c) => c.notNull())
    .addColumn('tool_error_rate_ppm', 'integer', (c) => c.notNull())
    .addColumn('input_tokens', 'bigint', (c) => c.notNull())
    .addColumn('output_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cache_read_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cache_write_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cost_micros', 'bigint', (c) => c.notNull())
    .addColumn('cost_status', 'text', (c) => c.notNull())
    .addColumn('unpriced_models', 'text', (c) => c.notNull())
    .addColumn('models', 'text', (c) => c.notNull())
    .addColumn('pr_refs', 'text', (c) => c.notNull())
    .addColumn('chunk_of', 'integer')
    .addColumn('chunk_parts', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_app_key').on('sessions').columns(['app_id', 'session_key']).unique().execute();
  // One index per sort key inside a repo (the list's default scope) and the two main ones across repos.
  const sortKeys = ['started_at', 'cost_micros', 'error_count', 'turn_count', 'steering_count', 'tool_error_rate_ppm'];
  for (const key of sortKeys) {
    await db.schema
      .createIndex(`sessions_repo_${key}`)
      .on('sessions')
      .columns(['app_id', 'repo', 'is_subagent', key, 'id'])
      .execute();
  }
  for (const key of ['started_at', 'cost_micros']) {
    await db.schema
      .createIndex(`sessions_all_${key}`)
      .on('sessions')
      .columns(['app_id', 'is_subagent', key, 'id'])
      .execute();
  }
  await db.schema.createIndex('sessions_app_parent').on('sessions').columns(['app_id', 'parent_session_id']).execute();

  await db.schema
    .createTable('session_model_usage')
    .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('repo', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('agent_type', 'text', (c) => c.notNull())
    .addColumn('is_subagent', 'integer', (c) => c.notNull())
    .addColumn('turn_count', 'integer', (c) => c.notNull())
    .addColumn('unpriced_turn_count', 'integer', (c) => c.notNull())
    .addColumn('input_tokens', 'bigint', (c) => c.notNull())
    .addColumn('output_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cache_read_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cache_write_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cost_micros', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_model_usage_pk', ['session_id', 'model'])
    .execute();
  await db.schema
    .createIndex('session_model_usage_app_time')
    .on('session_model_usage')
    .columns(['app_id', 'started_at'])
    .execute();
  await db.schema
    .createIndex('session_model_usage_app_model')
    .on('session_model_usage')
    .columns(['app_id', 'model', 'session_id'])
    .execute();

  await db.schema
    .createTable('session_documents')
    .addColumn('session_id', 'text', (c) => c.primaryKey().references('sessions.id').onDelete('cascade'))
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('encoding', 'text', (c) => c.notNull())
    .addColumn('raw_bytes', 'integer', (c) => c.notNull())
    .addColumn('body', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
    .execute();

  // Counters kept in step with the summary rows on every ingest, so the list's facets and its repo
  // selection cost the same at 100k sessions as at 1k. Top-level sessions only (subagents excluded).
  await db.schema
    .createTable('session_facets')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('repo', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('label', 'text')
    .addColumn('sessions', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_facets_pk', ['app_id', 'repo', 'kind', 'value'])
    .execute();
  await db.schema
    .createTable('session_repos')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('repo', 'text', (c) => c.notNull())
    .addColumn('sessions', 'bigint', (c) => c.notNull())
    .addColumn('cost_micros', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_repos_pk', ['app_id', 'repo'])
    .execute();

  await db.schema
    .createTable('agent_blobs')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('media_type', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('agent_blobs_pk', ['app_id', 'sha256'])
    .execute();
}
