// Sessions linked to pull requests by commit (issue 41): a `git_commit_id` on a Claude Code Bash tool result
// (sent when tool details are on) links the telemetry session to the PR that holds the commit, matched as the
// verdict's commit provenance matches (a whole SHA or a prefix of at least 7), whichever arrives first: the
// telemetry before the PR (linked when the PR's webhook job reads its commits) or after it. Against the GitHub
// double; another factory's session with the same commit is never linked, nor sees the PR.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { up } from '../../../src/db/migrations/0052_session_commit_prs.js';
import type { DoubleInstallation } from '../../github-double/server.js';
import { bindInstallation } from '../../github-double/setup.js';
import { createTenant, usingPostgres, type Tenant } from '../../helpers/gateway.js';
import { deliver, pullRequestDelivery, startWithGithub, type GithubGateway } from '../webhooks/github.js';

const REPO = 'acme/api';
const as = (t: Tenant) => ({ token: t.factoryKey, appId: t.appId });
const read = (t: Tenant) => ({ token: t.loginToken, appId: t.appId });

describe('a session linked to the pull request that holds its commit', () => {
  let g: GithubGateway;
  let t: Tenant;
  let other: Tenant;
  let writer: DoubleInstallation;
  let branchNo = 0;

  beforeAll(async () => {
    g = await startWithGithub();
    writer = g.github.addInstallation('acme', { ...g.github.appPermissions, checks: 'write' });
    g.github.addRepository(REPO, { installation: writer });
    t = await createTenant(g.gw);
    other = await createTenant(g.gw);
    await bindInstallation(g.gw, t.appId, writer.id);
    const connected = await g.gw.call('POST', '/v1/repositories', {
      ...as(t),
      body: { repository: REPO, installationId: writer.id },
    });
    expect(connected.status, connected.text).toBe(201);
    // The PR comment job (run on each PR webhook) evaluates the verdict, which reads the PR's commits.
    const on = await g.gw.call('PATCH', `/v1/apps/${t.appId}`, { ...as(t), body: { pr_comment: 'on' } });
    expect(on.status, on.text).toBe(200);
  });
  afterAll(async () => {
    await g?.close();
  });

  /** A branch of 2 commits pushed to the double; its commits' SHAs. */
  function pushBranch(): { branch: string; commits: string[] } {
    const branch = `feature/c${++branchNo}`;
    g.github.pushBranch(REPO, branch, 2);
    return { branch, commits: g.github.repo(REPO).branches.get(branch)!.slice(-2) };
  }

  /** The PRs this file opened that a session is linked to (the Overview's PRs by verdict count them). */
  const linkedPrs = new Set<number>();
  const heads = new Map<number, { branch: string; headSha: string }>();

  /** The PR's webhook delivered to the gateway (opened, or merged at `mergedAt`), then the due jobs run. */
  async function webhook(number: number, mergedAt?: string) {
    const { branch, headSha } = heads.get(number)!;
    const payload = pullRequestDelivery({
      repository: REPO,
      number,
      title: 'Fix login',
      head: branch,
      headSha,
      updatedAt: mergedAt ?? '2026-11-20T11:00:00Z',
      ...(mergedAt ? { state: 'closed' as const, merged: true } : {}),
      installationId: writer.id,
    });
    const r = await deliver(g, 'pull_request', payload);
    expect(r.status, r.text).toBeLessThan(300);
    g.gw.clock.advance(60_000);
    await g.gw.app.attest.jobs.runDueJobs();
  }

  /** The PR of `branch` opened in the double and delivered to the gateway by its webhook, then the jobs run. */
  async function openPull(branch: string): Promise<number> {
    const pull = g.github.openPullAs('alice', REPO, branch, 'Fix login');
    heads.set(pull.number, { branch, headSha: pull.headSha });
    await webhook(pull.number);
    return pull.number;
  }

  /**
   * Claude Code's telemetry of one session, as OTLP/JSON: an API request costing `cost` USD, then a Bash tool
   * result carrying the commit it made. By default no vcs attributes: the session has no repository or branch,
   * so only the commit can link it.
   */
  async function telemetry(
    tenant: Tenant,
    sessionId: string,
    commit: string,
    { startedAt = '2026-11-20T10:00:00Z', cost = 0.02, vcs = {} as Record<string, string> } = {},
  ): Promise<string> {
    const at = Date.parse(startedAt);
    const record = (ms: number, name: string, attrs: Record<string, string | number>) => ({
      timeUnixNano: String(BigInt(at + ms) * 1_000_000n),
      body: { stringValue: `claude_code.${name}` },
      attributes: Object.entries({
        'event.name': name,
        'event.timestamp': new Date(at + ms).toISOString(),
        'session.id': sessionId,
        'user.account_uuid': 'acc-1',
        ...vcs,
        ...attrs,
      }).map(([key, v]) => ({ key, value: typeof v === 'number' ? { doubleValue: v } : { stringValue: v } })),
    });
    const body = {
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'claude-code' } }] },
          scopeLogs: [
            {
              logRecords: [
                record(0, 'api_request', { model: 'claude-sonnet-4-5-20250929', cost_usd: cost }),
                record(1000, 'tool_result', {
                  tool_name: 'Bash',
                  success: 'true',
                  duration_ms: 80,
                  tool_parameters: JSON.stringify({ bash_command: 'git commit -m "fix"', git_commit_id: commit }),
                }),
              ],
            },
          ],
        },
      ],
    };
    const r = await g.gw.app.inject({
      method: 'POST',
      url: '/v1/logs',
      headers: {
        authorization: `Bearer ${tenant.factoryKey}`,
        'x-outerlayer-app-id': tenant.appId,
        'content-type': 'application/json',
      },
      payload: JSON.stringify(body),
    });
    expect(r.statusCode, r.body).toBe(200);
    expect(JSON.parse(r.body)).toEqual({});
    const list = await g.gw.call('GET', '/v1/sessions?repoScope=all&limit=100', read(tenant));
    const s = list.body.data.sessions.find((x: { sessionId: string }) => x.sessionId === sessionId);
    expect(s?.captureSource).toBe('telemetry');
    return s.traceId as string;
  }

  const prNumbersOf = async (tenant: Tenant, traceId: string) => {
    const r = await g.gw.call('GET', `/v1/sessions/${traceId}`, read(tenant));
    expect(r.status, r.text).toBe(200);
    return (r.body.data.prOutcomes as { prNumber: number }[]).map((o) => o.prNumber);
  };

  const sessionsOfPr = async (number: number) => {
    const r = await g.gw.call('GET', `/v1/prs/${REPO}/${number}`, read(t));
    expect(r.status, r.text).toBe(200);
    return r.body.data.sessionList as { traceId: string; linkedBy: string[] }[];
  };

  it('telemetry first: the PR, when its webhook arrives, is linked to the session that made its commit', async () => {
    const { branch, commits } = pushBranch();
    const mine = await telemetry(t, 'cc-commit-first', commits[0]!);
    // Another factory's session made the same commit (the same SHA): it is never linked to this factory's PR.
    const theirs = await telemetry(other, 'cc-commit-first-other', commits[0]!);
    expect(await prNumbersOf(t, mine)).toEqual([]);

    const number = await openPull(branch);
    linkedPrs.add(number);
    // The webhook's job read the PR's commits: the session read shows the PR before anyone reads the PR.
    expect(await prNumbersOf(t, mine)).toEqual([number]);
    expect(await sessionsOfPr(number)).toEqual([expect.objectContaining({ traceId: mine, linkedBy: ['commit'] })]);
    // The other factory: its session links to nothing, and it cannot read the PR.
    expect(await prNumbersOf(other, theirs)).toEqual([]);
    const foreign = await g.gw.call('GET', `/v1/prs/${REPO}/${number}`, read(other));
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('pull_request_not_found');
  });

  it('PR first: a session whose telemetry names a commit of it by its 7-character prefix is linked', async () => {
    const { branch, commits } = pushBranch();
    const number = await openPull(branch);
    expect(await sessionsOfPr(number)).toEqual([]);

    const mine = await telemetry(t, 'cc-pr-first', commits[1]!.slice(0, 7));
    linkedPrs.add(number);
    expect(await prNumbersOf(t, mine)).toEqual([number]);
    expect(await sessionsOfPr(number)).toEqual([expect.objectContaining({ traceId: mine, linkedBy: ['commit'] })]);
    // A commit of no PR (6 characters of one say too little) links to nothing.
    const none = await telemetry(t, 'cc-no-pr', commits[1]!.slice(0, 6));
    expect(await prNumbersOf(t, none)).toEqual([]);
    const outcomes = await g.gw.call('GET', `/v1/prs/outcomes?repo=${REPO}`, read(t));
    expect(outcomes.status, outcomes.text).toBe(200);
    expect(outcomes.body.data.find((o: { number: number }) => o.number === number)).toMatchObject({ sessions: 1 });
  });

  // PostgreSQL (read committed): the session's export holds its transaction open, its commits written, while the
  // PR's job reads and commits the PR's commits; neither transaction sees the other's rows. The table the export
  // writes last is locked meanwhile, so the export waits there until the PR's job is done.
  it.runIf(usingPostgres)('a session stored while the PR reads its commits is linked once', async () => {
    const db = g.gw.app.attest.db;
    const { branch, commits } = pushBranch();
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => {
      locked = r;
    });
    const holder = db.transaction().execute(async (trx) => {
      await sql`lock table session_documents in exclusive mode`.execute(trx);
      locked();
      await released;
    });
    await isLocked;
    const stored = telemetry(t, 'cc-race', commits[0]!, { startedAt: '2026-11-21T10:00:00Z', cost: 0.04 });
    const waiting = async () => {
      const r = await sql<{ n: string }>`select count(*) as n from pg_locks l join pg_class c on c.oid = l.relation
        where c.relname = 'session_documents' and not l.granted`.execute(db);
      return Number(r.rows[0]!.n) > 0;
    };
    while (!(await waiting())) await new Promise((r) => setImmediate(r));
    const number = await openPull(branch);
    linkedPrs.add(number);
    release();
    await holder;
    const mine = await stored;

    expect(await prNumbersOf(t, mine)).toEqual([number]);
    const pr = await g.gw.call('GET', `/v1/prs/${REPO}/${number}`, read(t));
    expect(pr.status, pr.text).toBe(200);
    expect(pr.body.data).toMatchObject({ sessions: 1, costUsd: 0.04 });
    expect(pr.body.data.sessionList).toEqual([expect.objectContaining({ traceId: mine, linkedBy: ['commit'] })]);
    const outcomes = await g.gw.call('GET', `/v1/prs/outcomes?repo=${REPO}`, read(t));
    expect(outcomes.body.data.find((o: { number: number }) => o.number === number)).toMatchObject({
      sessions: 1,
      costUsd: 0.04,
    });
  });

  it('counts a commit-linked session once in the PR read, its export, the spend tiles, PRs by verdict', async () => {
    // Comments and checks off: the PR's webhook job still reads its commits (the reads never ask GitHub).
    const off = await g.gw.call('PATCH', `/v1/apps/${t.appId}`, { ...as(t), body: { pr_comment: 'off' } });
    expect(off.status, off.text).toBe(200);
    const { branch, commits } = pushBranch();
    const startedAt = '2026-11-25T10:00:00Z';
    // A (first): telemetry only, linked by its commit alone. B: on the PR's branch in its repository and made the other
    // commit: linked by branch and by commit, counted once.
    const a = await telemetry(t, 'cc-count-a', commits[0]!, { startedAt, cost: 0.02 });
    const b = await telemetry(t, 'cc-count-b', commits[1]!, {
      startedAt: '2026-11-25T11:00:00Z',
      cost: 0.03,
      vcs: { 'vcs.repository.name': REPO, 'vcs.ref.head.name': branch },
    });
    const commitLists = () => g.github.countCalls('GET', '/repos/{owner}/{repo}/pulls/{pull_number}/commits');
    const listed = commitLists();
    const number = await openPull(branch);
    linkedPrs.add(number);
    expect(commitLists()).toBe(listed + 1);

    // Every read below only reads the store: the GitHub double answers no call meanwhile.
    let calls = g.github.calls.length;
    const pr = await g.gw.call('GET', `/v1/prs/${REPO}/${number}`, read(t));
    expect(pr.status, pr.text).toBe(200);
    expect(pr.body.data).toMatchObject({ sessions: 2, costUsd: 0.05, costStatus: 'complete' });
    expect(pr.body.data.sessionList).toEqual([
      expect.objectContaining({ traceId: a, linkedBy: ['commit'], costUsd: 0.02 }),
      expect.objectContaining({ traceId: b, linkedBy: ['branch', 'commit'], costUsd: 0.03 }),
    ]);
    const outcomes = await g.gw.call('GET', `/v1/prs/outcomes?repo=${REPO}`, read(t));
    expect(outcomes.body.data.find((o: { number: number }) => o.number === number)).toMatchObject({
      sessions: 2,
      costUsd: 0.05,
    });

    const json = await g.gw.call('GET', `/v1/prs/${REPO}/${number}/export?format=json`, read(t));
    expect(json.status, json.text).toBe(200);
    expect(json.body.sessions.map((s: { traceId: string; linkedBy: string[] }) => [s.traceId, s.linkedBy])).toEqual([
      [a, ['commit']],
      [b, ['branch', 'commit']],
    ]);
    const csv = await g.gw.call('GET', `/v1/prs/${REPO}/${number}/export?format=csv`, read(t));
    expect(csv.status, csv.text).toBe(200);
    const sessionLines = csv.text.split('\r\n').filter((l) => l.startsWith('session,'));
    expect(sessionLines).toHaveLength(2);
    expect(sessionLines.find((l) => l.includes(a))).toContain(',0.02,commit,');
    expect(sessionLines.find((l) => l.includes(b))).toContain(',0.03,branch commit,');

    expect(g.github.calls.slice(calls)).toEqual([]);

    // Merged the next day: both sessions shipped, each counted once, in whole days and in a partial window.
    await webhook(number, '2026-11-26T10:00:00Z');
    calls = g.github.calls.length;
    for (const window of ['from=2026-11-25&to=2026-11-26', 'from=2026-11-25T00:00:00Z&to=2026-11-26T12:00:00Z']) {
      const overview = await g.gw.call('GET', `/v1/metrics/overview?${window}`, read(t));
      expect(overview.status, overview.text).toBe(200);
      const tiles = overview.body.data.tiles;
      expect(tiles.totalCostUsd.current).toBeCloseTo(0.05, 9);
      expect(tiles.mergedPrs.current).toBe(1);
      expect(tiles.costPerMergedPrUsd.current).toBeCloseTo(0.05, 9);
      expect(tiles.unshippedCostUsd.current).toBeCloseTo(0, 9);
    }
    // PRs by verdict: every PR of this file opened (GitHub's opening, 2026-10-01) with a linked session counts,
    // those linked by commit alone too.
    const verdicts = await g.gw.call('GET', '/v1/metrics/verdicts?from=2026-10-01&to=2026-10-01', read(t));
    expect(verdicts.status, verdicts.text).toBe(200);
    const prs = (verdicts.body.data.verdicts as { prs: number }[]).reduce((n, v) => n + v.prs, 0);
    expect(prs).toBe(linkedPrs.size);

    expect(await prNumbersOf(t, a)).toEqual([number]);
    expect((await g.gw.call('GET', `/v1/prs/${REPO}/${number}`, read(t))).body.data).toMatchObject({
      state: 'merged',
      sessions: 2,
      costUsd: 0.05,
    });
    expect(g.github.calls.slice(calls)).toEqual([]);
    expect(commitLists()).toBe(listed + 1);

    // Migration 0052 run again on this store fills the same links from the kept commits with its own copy of the
    // matching, and owes this factory (not the other, which has none) a rebuild of its sums.
    const db = g.gw.app.attest.db;
    const links = () =>
      sql<{
        app_id: string;
        session_id: string;
        repository: string;
        number: unknown;
      }>`select app_id, session_id, repository, number from session_commit_prs
        order by app_id, session_id, repository, number`
        .execute(db)
        .then((r) => r.rows.map((row) => ({ ...row, number: Number(row.number) })));
    const kept = await links();
    expect(kept.filter((l) => l.app_id === t.appId && l.number === number).map((l) => l.session_id)).toEqual(
      [a, b].sort(),
    );
    await sql`drop table session_commit_prs`.execute(db);
    await sql`delete from rollup_rebuilds`.execute(db);
    await up(db as never, g.gw.app.attest.dialect);
    expect(await links()).toEqual(kept);
    const owed = await sql<{ app_id: string }>`select app_id from rollup_rebuilds`.execute(db);
    expect(owed.rows.map((r) => r.app_id)).toEqual([t.appId]);
    await sql`delete from rollup_rebuilds`.execute(db);
  });
});
