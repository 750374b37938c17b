// Issue 45 §4: a pull request's state may come from the GitHub App's webhooks (`app`) or, on a gateway without
// the App, from the CLI, which reads it with `gh pr view` at sync (`cli`). A CLI report is kept only until a
// webhook speaks for the same PR, and never replaces what a webhook stored. Every stored row came from a webhook.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('pull_requests')
    .addColumn('state_source', 'text', (c) => c.notNull().defaultTo('app'))
    .execute();
}
