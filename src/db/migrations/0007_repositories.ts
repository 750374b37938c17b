// Repositories a factory has connected through the gateway's GitHub App installation. What the App may do
// on each (permissions, default branch rules) is read live from GitHub; only the connection is stored.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('repositories')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    // `owner/repo` as GitHub spells it, and lower-cased for lookups (GitHub names are case-insensitive).
    .addColumn('full_name', 'text', (c) => c.notNull())
    .addColumn('full_name_key', 'text', (c) => c.notNull())
    .addColumn('github_id', 'bigint', (c) => c.notNull())
    .addColumn('installation_id', 'bigint', (c) => c.notNull())
    .addColumn('default_branch', 'text', (c) => c.notNull())
    .addColumn('connected_by', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('repositories_app_name', ['app_id', 'full_name_key'])
    .execute();
  await db.schema.createIndex('repositories_installation').on('repositories').column('installation_id').execute();
}
