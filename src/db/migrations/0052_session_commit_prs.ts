// Sessions linked to pull requests by commit (issue 41), kept as rows at write time: (session, PR) for every
// session that made a commit a PR holds, the join of session_commits and pr_commits (migration 0046) made when
// either side is stored, so the PR read, the PR export and the PR spend and outcome sums read them by index
// like session_pr_refs instead of matching SHAs on each read. Filled here from the commits already kept, with
// this migration's own copy of the matching of its day (one SHA a prefix of the other, at least 7 characters,
// case aside; a session in another repository than the PR's never links, one with no repository may). The
// factories given links here are owed a rebuild of their sums (rollup_rebuilds, paid at start-up as for
// migration 0032), since the PR spend and outcome sums count these links from now on.
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../connection.js';

const sameCommit = (a: string, b: string) => {
  if (a.length < 7 || b.length < 7) return false;
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x.startsWith(y) || y.startsWith(x);
};

interface Tables {
  session_commits: { app_id: string; session_id: string; sha: string; prefix: string };
  pr_commits: { app_id: string; repository: string; number: number; sha: string; prefix: string };
  sessions: { id: string; app_id: string; repo: string };
  session_commit_prs: { app_id: string; session_id: string; repository: string; number: number };
}

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('session_commit_prs')
    .addColumn('app_id', 'text', (c) => c.notNull())
    // the session's row id (traceId)
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_commit_prs_pk', ['app_id', 'session_id', 'repository', 'number'])
    .execute();
  await db.schema
    .createIndex('session_commit_prs_by_pr')
    .on('session_commit_prs')
    .columns(['app_id', 'repository', 'number', 'session_id'])
    .execute();

  // Backfill, a page of session commits at a time (keyset on their primary key).
  const t = db as unknown as Kysely<Tables>;
  let after: [string, string, string] = ['', '', ''];
  for (;;) {
    const [app, sid, sha] = after;
    const page = await t
      .selectFrom('session_commits as c')
      .innerJoin('sessions as s', 's.id', 'c.session_id')
      .select(['c.app_id', 'c.session_id', 'c.sha', 'c.prefix', 's.repo'])
      .where((eb) =>
        eb.or([
          eb('c.app_id', '>', app),
          eb.and([eb('c.app_id', '=', app), eb('c.session_id', '>', sid)]),
          eb.and([eb('c.app_id', '=', app), eb('c.session_id', '=', sid), eb('c.sha', '>', sha)]),
        ]),
      )
      .orderBy('c.app_id')
      .orderBy('c.session_id')
      .orderBy('c.sha')
      .limit(500)
      .execute();
    if (page.length === 0) break;
    const rows = new Map<string, Tables['session_commit_prs']>();
    for (const c of page) {
      const prs = await t
        .selectFrom('pr_commits')
        .select(['repository', 'number', 'sha'])
        .where('app_id', '=', c.app_id)
        .where('prefix', '=', c.prefix)
        .execute();
      for (const p of prs) {
        if ((c.repo !== '' && c.repo !== p.repository) || !sameCommit(c.sha, p.sha)) continue;
        const row = { app_id: c.app_id, session_id: c.session_id, repository: p.repository, number: Number(p.number) };
        rows.set(`${row.app_id}\u0000${row.session_id}\u0000${row.repository}#${row.number}`, row);
      }
    }
    if (rows.size)
      await t
        .insertInto('session_commit_prs')
        .values([...rows.values()])
        .onConflict((oc) => oc.doNothing())
        .execute();
    const last = page[page.length - 1]!;
    after = [last.app_id, last.session_id, last.sha];
  }
  // `where 1 = 1`: SQLite reads an upsert's `on conflict` after a bare select as a join's.
  await sql`insert into rollup_rebuilds (app_id)
    select distinct app_id from session_commit_prs where 1 = 1 on conflict do nothing`.execute(db);
}
