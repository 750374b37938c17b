// Two reads of the verdict and the PR read went through every session of a repository:
// - the sessions linked to one pull request by branch had no index to go by: both stores read every top-level
//   session of the repository through (app_id, repo, is_subagent, started_at) and tested each one's branch.
//   (app_id, repo, branch, is_subagent, started_at) gives the PR's head branch its own range.
// - "did this repository's sessions ever run a typecheck / a linter" (the two `*-after-last-edit` rows) matched
//   the facts JSON of every session of the repository with `like` when none did (15-30 ms at 25k sessions on
//   SQLite). `repository_run_kinds` keeps, per repository, the kinds of run its sessions' facts hold (kept by
//   the ingest with the facts; filled here from the facts stored so far).
import { sql, type Kysely } from 'kysely';

const KINDS = ['test', 'typecheck', 'lint', 'build', 'install', 'migrate', 'commit', 'push', 'pr_create', 'other'];

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('sessions_app_repo_branch')
    .on('sessions')
    .columns(['app_id', 'repo', 'branch', 'is_subagent', 'started_at'])
    .execute();
  await db.schema
    .createTable('repository_run_kinds')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('repository_run_kinds_pk', ['app_id', 'repository', 'kind'])
    .execute();
  for (const kind of KINDS) {
    await sql`insert into repository_run_kinds (app_id, repository, kind)
      select distinct s.app_id, s.repo, ${kind} from session_verifications v
        join sessions s on s.id = v.session_id and s.app_id = v.app_id
      where v.verification like ${`%"kind":"${kind}"%`}
      on conflict do nothing`.execute(db);
  }
}
