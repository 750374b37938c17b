// Sessions linked to pull requests by commit, and metrics by resource attribute (issue 41).
// Sessions linked to pull requests by commit: the commits each session made (a telemetry Bash result's
// `git_commit_id`, a transcript's `outcome.commitShas`), and the commits of each PR as the App read them. A
// session is linked to a PR that holds one of its commits, matched as the verdict's commit provenance matches
// (one SHA a prefix of the other, at least 7 hex): both tables carry the first 7 characters, `prefix`, so the
// candidates of either side come by index and the exact match is made by the application.
// The PR commits already read (verdict_pr_inputs, every head commit a PR had) are copied here; sessions stored
// before this migration get their commits when they are next stored.
// Also the telemetry metrics' daily rollups by custom resource attribute (OTEL_RESOURCE_ATTRIBUTES such as
// team=payments), beside those of migration 0041, so the metrics can be filtered and broken down by one; points
// received before this migration have none.
import type { Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

interface Inputs {
  app_id: string;
  repository: string;
  number: number;
  commits: string | null;
}

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('session_commits')
    .addColumn('app_id', 'text', (c) => c.notNull())
    // the session's row id (traceId)
    .addColumn('session_id', 'text', (c) => c.notNull())
    // lower-case hex, 7 to 64 characters
    .addColumn('sha', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_commits_pk', ['app_id', 'session_id', 'sha'])
    .execute();
  await db.schema.createIndex('session_commits_prefix').on('session_commits').columns(['app_id', 'prefix']).execute();

  await db.schema
    .createTable('pr_commits')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('sha', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('pr_commits_pk', ['app_id', 'repository', 'number', 'sha'])
    .execute();
  await db.schema.createIndex('pr_commits_prefix').on('pr_commits').columns(['app_id', 'prefix']).execute();

  await db.schema
    .createTable('telemetry_metric_attribute_days')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('attribute', 'text', (c) => c.notNull())
    .addColumn('attribute_value', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('metric', 'text', (c) => c.notNull())
    .addColumn('variant', 'text', (c) => c.notNull())
    .addColumn('value', 'double precision', (c) => c.notNull())
    .addPrimaryKeyConstraint('telemetry_metric_attribute_days_pk', [
      'app_id',
      'day',
      'attribute',
      'attribute_value',
      'actor_id',
      'model',
      'metric',
      'variant',
    ])
    .execute();

  // Backfill from the PR commits the verdict read, a page at a time (keyset on the primary key's first columns).
  const anyDb = db as unknown as Kysely<{
    verdict_pr_inputs: Inputs & { head_sha: string };
    pr_commits: { app_id: string; repository: string; number: number; sha: string; prefix: string };
  }>;
  let after: [string, string, number, string] = ['', '', 0, ''];
  for (;;) {
    const [app, repo, num, head] = after;
    const page = await anyDb
      .selectFrom('verdict_pr_inputs')
      .select(['app_id', 'repository', 'number', 'head_sha', 'commits'])
      .where((eb) =>
        eb.or([
          eb('app_id', '>', app),
          eb.and([eb('app_id', '=', app), eb('repository', '>', repo)]),
          eb.and([eb('app_id', '=', app), eb('repository', '=', repo), eb('number', '>', num)]),
          eb.and([
            eb('app_id', '=', app),
            eb('repository', '=', repo),
            eb('number', '=', num),
            eb('head_sha', '>', head),
          ]),
        ]),
      )
      .orderBy('app_id')
      .orderBy('repository')
      .orderBy('number')
      .orderBy('head_sha')
      .limit(500)
      .execute();
    if (page.length === 0) break;
    const rows = page.flatMap((r) => {
      let commits: unknown;
      try {
        commits = r.commits === null ? [] : JSON.parse(r.commits);
      } catch {
        commits = [];
      }
      if (!Array.isArray(commits)) return [];
      return commits
        .filter((c): c is string => typeof c === 'string' && /^[0-9a-fA-F]{7,64}$/.test(c))
        .map((c) => ({
          app_id: r.app_id,
          repository: r.repository,
          number: Number(r.number),
          sha: c.toLowerCase(),
          prefix: c.slice(0, 7).toLowerCase(),
        }));
    });
    for (let i = 0; i < rows.length; i += 500)
      await anyDb
        .insertInto('pr_commits')
        .values(rows.slice(i, i + 500))
        .onConflict((oc) => oc.doNothing())
        .execute();
    const last = page[page.length - 1]!;
    after = [last.app_id, last.repository, Number(last.number), last.head_sha];
  }
}
