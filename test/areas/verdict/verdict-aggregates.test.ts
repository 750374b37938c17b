// The Overview's PRs by verdict are read from one row per linked PR kept at write time (issue 46): through syncs,
// a re-sync that moves sessions between PRs, a failed check at a PR's head, evaluations, a merge, a revert of it
// and a session's deletion, the rows equal a from-scratch recomputation written here in plain SQL from the tables
// they count (and so does migration 0048's fill, run again on the store); GET /v1/metrics/verdicts answers the
// numbers worked out by hand.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../helpers/gateway.js';
import {
  checkDelivery,
  connectRepository,
  deliver,
  pullRequestDelivery,
  startWithGithub,
  type GithubGateway,
  type PullSpec,
} from '../webhooks/github.js';
import { ingest, sessionDoc, type SessionSpec } from '../metrics/sessions.js';
import { up } from '../../../src/db/migrations/0048_pr_outcomes.js';

const REPO = 'acme/api';
const WINDOW = 'from=2026-09-01&to=2026-10-31';

describe('PRs by verdict kept at write time', () => {
  let g: GithubGateway;
  let t: Tenant;
  const as = () => ({ token: t.factoryKey, appId: t.appId });
  const pr = (spec: Partial<PullSpec> & Pick<PullSpec, 'number' | 'updatedAt'>): PullSpec => ({
    repository: REPO,
    title: `PR ${spec.number}`,
    head: `feat/${spec.number}`,
    installationId: g.installation.id,
    ...spec,
  });
  const open = async (number: number, extra: Partial<PullSpec> = {}) =>
    expect(
      (
        await deliver(
          g,
          'pull_request',
          pullRequestDelivery(pr({ number, updatedAt: '2026-10-01T10:00:00Z', ...extra })),
        )
      ).status,
    ).toBeLessThan(300);
  const merge = async (number: number, at: string, extra: Partial<PullSpec> = {}) =>
    expect(
      (
        await deliver(
          g,
          'pull_request',
          pullRequestDelivery(pr({ number, updatedAt: at, state: 'closed', merged: true, ...extra })),
        )
      ).status,
    ).toBeLessThan(300);

  /** The rows as kept, in key order. */
  const kept = async () => {
    const rows = await sql<Record<string, unknown>>`
      select repository, number, opened_at, first_session_at, verdict, merged, reverted, ci_failed from pr_outcomes
      where app_id = ${t.appId} order by repository, number`.execute(g.gw.app.attest.db);
    return rows.rows.map((r) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === 'repository' || k === 'verdict' ? v : Number(v)])),
    );
  };
  /**
   * The rows recomputed from the tables they count: a PR linked by a top-level session naming it or running on
   * its head branch in its repository before it closed; opened at the code host's opening, else its first linked
   * session; its latest evaluation; reverted by a later merged PR of the repository naming it or its title; CI
   * failed when the check runs at its head (the suites when it has no runs) hold a failure.
   */
  const recomputed = async () => {
    const app = t.appId;
    const failed = (kind: 'run' | 'suite') => sql`exists (select 1 from pr_checks c where c.app_id = ${app}
      and c.repository = p.repository and c.head_sha = p.head_sha
      and c.check_id ${kind === 'run' ? sql`like` : sql`not like`} 'run:%' and c.status = 'completed'
      and c.conclusion in ('failure', 'timed_out', 'cancelled', 'action_required', 'startup_failure'))`;
    const rows = await sql<Record<string, unknown>>`
      with linked as (
        select r.repository, r.number, s.started_at from session_pr_refs r
          join sessions s on s.app_id = r.app_id and s.id = r.session_id
        where r.app_id = ${app} and s.is_subagent = 0
        union all
        select p.repository, p.number, s.started_at from pull_requests p
          join sessions s on s.app_id = p.app_id and s.repo = p.repository and s.branch = p.head_branch
        where p.app_id = ${app} and s.is_subagent = 0 and (p.closed_at is null or s.started_at <= p.closed_at)
      ), firsts as (select repository, number, min(started_at) as first from linked group by repository, number)
      select f.repository, f.number, coalesce(p.opened_at, f.first) as opened_at, f.first as first_session_at,
        (select e.verdict from pr_evaluations e where e.app_id = ${app} and e.repository = f.repository
          and e.number = f.number order by e.evaluated_at desc, e.id desc limit 1) as verdict,
        coalesce(p.merged, 0) as merged,
        case when p.merged = 1 and exists (select 1 from pr_revert_refs v where v.app_id = ${app}
          and v.repository = p.repository and v.reverting_number <> p.number and v.merged_at >= coalesce(p.merged_at, 0)
          and (v.target_number = p.number or (v.target_number is null and v.target_title = p.title)))
          then 1 else 0 end as reverted,
        case when p.number is null then 0
          when exists (select 1 from pr_checks c where c.app_id = ${app} and c.repository = p.repository
            and c.head_sha = p.head_sha and c.check_id like 'run:%')
          then case when ${failed('run')} then 1 else 0 end
          else case when ${failed('suite')} then 1 else 0 end end as ci_failed
      from firsts f left join pull_requests p on p.app_id = ${app} and p.repository = f.repository
        and p.number = f.number
      order by f.repository, f.number`.execute(g.gw.app.attest.db);
    return rows.rows.map((r) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === 'repository' || k === 'verdict' ? v : Number(v)])),
    );
  };
  const expectExact = async () => {
    const rows = await kept();
    expect(rows).toEqual(await recomputed());
    return new Map(rows.map((r) => [r.number as number, r]));
  };
  const verdicts = async (query = WINDOW) => {
    const r = await g.gw.call('GET', `/v1/metrics/verdicts?${query}`, as());
    expect(r.status, r.text).toBe(200);
    return Object.fromEntries(
      (r.body.data.verdicts as { verdict: string; prs: number; merged: number; reverted: number; ciFailures: number }[])
        .filter((b) => b.prs > 0)
        .map(({ verdict, ...b }) => [verdict, b]),
    );
  };

  const turn = { model: 'claude-sonnet-4-5', in: 1000, out: 500 };
  // On 51's branch; names 52; names 53 (no PR row: opened at its first session); a subagent on 51's branch.
  const s1: SessionSpec = {
    id: 'd0000000-0000-4000-8000-000000000001',
    startedAt: '2026-10-09T08:00:00Z',
    repo: REPO,
    branch: 'feat/51',
    turns: [turn],
  };
  const s2: SessionSpec = {
    id: 'd0000000-0000-4000-8000-000000000002',
    startedAt: '2026-10-10T08:00:00Z',
    repo: REPO,
    branch: 'main',
    prNumber: 52,
    turns: [turn],
  };
  const s3: SessionSpec = {
    id: 'd0000000-0000-4000-8000-000000000003',
    startedAt: '2026-10-11T08:00:00Z',
    repo: REPO,
    branch: 'other',
    prLinked: [53],
    turns: [turn],
  };
  const at = (iso: string) => Date.parse(iso);

  beforeAll(async () => {
    g = await startWithGithub();
    t = await createTenant(g.gw);
    await connectRepository(g, t, REPO);
  });
  afterAll(async () => {
    await g?.close();
  });

  it('stay exact through syncs, a re-sync, a failed check, evaluations, a merge, a revert, a deletion', async () => {
    await open(51);
    await open(52);
    const sub = sessionDoc({ ...s1, id: 'd0000000-0000-4000-8000-0000000000a1', startedAt: '2026-10-01T11:00:00Z' });
    sub.subagent = { agentId: 'agent-1', parentSessionId: s1.id };
    await ingest(g.gw, as(), [s1, s2, s3].map(sessionDoc).concat(sub));
    let rows = await expectExact();
    // 51 and 52 opened when GitHub said (2026-10-01T10:00Z); 53 has no PR row: its first session. The subagent
    // started earlier on 51's branch and counts for nothing.
    expect([...rows.keys()]).toEqual([51, 52, 53]);
    expect(rows.get(51)).toMatchObject({ opened_at: at('2026-10-01T10:00:00Z'), first_session_at: at(s1.startedAt) });
    expect(rows.get(53)).toMatchObject({ opened_at: at(s3.startedAt), verdict: null, merged: 0 });

    // CI fails at 51's head: a check run completed with a failure.
    const head51 = (await g.gw.call('GET', `/v1/prs/${REPO}/51`, as())).body.data.headSha as string;
    const check = checkDelivery('check_run', {
      repository: REPO,
      id: 9001,
      headSha: head51,
      status: 'completed',
      conclusion: 'failure',
      installationId: g.installation.id,
    });
    expect((await deliver(g, 'check_run', check)).status).toBeLessThan(300);
    rows = await expectExact();
    expect(rows.get(51)!.ci_failed).toBe(1);

    // The PRs' webhook jobs read what the verdict reads of GitHub (a read makes no GitHub call); then the first
    // read evaluates the three PRs (none had a verdict), which stores one each.
    g.gw.clock.advance(60_000);
    await g.gw.app.attest.jobs.runDueJobs();
    const first = await verdicts();
    rows = await expectExact();
    const v51 = rows.get(51)!.verdict as string;
    const v52 = rows.get(52)!.verdict as string;
    const v53 = rows.get(53)!.verdict as string;
    expect([v51, v52, v53].every((v) => typeof v === 'string')).toBe(true);
    const byHand: Record<string, { prs: number; merged: number; reverted: number; ciFailures: number }> = {};
    for (const [v, ci] of [
      [v51, 1],
      [v52, 0],
      [v53, 0],
    ] as const) {
      const b = (byHand[v] ??= { prs: 0, merged: 0, reverted: 0, ciFailures: 0 });
      b.prs += 1;
      b.ciFailures += ci;
    }
    expect(first).toEqual(byHand);
    expect(await verdicts()).toEqual(first);
    // A window holding only 53's opening, and one repository that has none of them.
    expect(await verdicts('from=2026-10-11&to=2026-10-11')).toEqual({
      [v53]: { prs: 1, merged: 0, reverted: 0, ciFailures: 0 },
    });
    expect(await verdicts(`${WINDOW}&repo=acme/web`)).toEqual({});

    // Re-sync: s1 grows and starts a day earlier, s3 names 54 instead of 53 (53 loses its only session).
    await ingest(g.gw, as(), [
      sessionDoc({ ...s1, startedAt: '2026-10-08T08:00:00Z', turns: [turn, turn] }),
      sessionDoc({ ...s3, prLinked: [54] }),
    ]);
    rows = await expectExact();
    expect([...rows.keys()]).toEqual([51, 52, 54]);
    expect(rows.get(51)!.first_session_at).toBe(at('2026-10-08T08:00:00Z'));
    expect(rows.get(54)).toMatchObject({ opened_at: at(s3.startedAt), verdict: null });

    // 51 merges, then a revert of it merges: merged, then reverted.
    await merge(51, '2026-10-12T12:00:00Z');
    rows = await expectExact();
    expect(rows.get(51)).toMatchObject({ merged: 1, reverted: 0 });
    await open(55, { title: 'Revert "PR 51"', body: 'Reverts acme/api#51' });
    await merge(55, '2026-10-13T12:00:00Z', { title: 'Revert "PR 51"', body: 'Reverts acme/api#51' });
    rows = await expectExact();
    expect(rows.get(51)).toMatchObject({ merged: 1, reverted: 1, ci_failed: 1 });
    expect(rows.has(55)).toBe(false); // no session links to the revert

    const after = await verdicts();
    rows = await expectExact();
    const v54 = rows.get(54)!.verdict as string;
    const expected: typeof byHand = {};
    for (const [v, merged, reverted, ci] of [
      [v51, 1, 1, 1],
      [v52, 0, 0, 0],
      [v54, 0, 0, 0],
    ] as const) {
      const b = (expected[v] ??= { prs: 0, merged: 0, reverted: 0, ciFailures: 0 });
      b.prs += 1;
      b.merged += merged;
      b.reverted += reverted;
      b.ciFailures += ci;
    }
    expect(after).toEqual(expected);

    // Migration 0048 run again on this store fills the same rows from the tables with its own copy of the rules.
    const db = g.gw.app.attest.db;
    await sql`drop table pr_outcomes`.execute(db);
    await sql`drop index pull_requests_app_repo_sha`.execute(db);
    await up(db as never, g.gw.app.attest.dialect);
    expect(await kept()).toEqual([...rows.values()]);

    // s2 is deleted: 52 has no session left, and no row.
    const del = await g.gw.call('DELETE', `/v1/sessions/${s2.id}`, as());
    expect(del.status, del.text).toBe(204);
    rows = await expectExact();
    expect([...rows.keys()]).toEqual([51, 54]);
  });
});
