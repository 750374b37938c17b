// The verdict on the gateway (issue 39) against the GitHub double: facts stored at ingest and shown on the
// session read, GET /v1/prs/{owner}/{repo}/{number}/verdict with the policy read at the PR's base commit,
// evaluations stored once while identical, the `Attest evidence` check run (a new one per head commit; a
// missing checks write shown as the factory's problem), the comment opening with the verdict, and nothing
// of another factory; a change of the stored verdict announced once (pr.verdict), to this factory's channels only.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoubleInstallation } from '../../github-double/server.js';
import { bindInstallation } from '../../github-double/setup.js';
import { createTenant, type Tenant } from '../../helpers/gateway.js';
import { foreignCallers, siblingFactory } from '../../helpers/cross-tenant.js';
import { deliver, pullRequestDelivery, startWithGithub, type GithubGateway } from '../webhooks/github.js';
import { Receiver } from '../notifications/receiver.js';

const as = (t: Tenant) => ({ token: t.factoryKey, appId: t.appId });
const REPO = 'acme/api';

interface ToolCall {
  name: string;
  status: 'ok' | 'error';
  input: Record<string, unknown>;
  output: string;
}

/** A Claude Code session at the full tier: one assistant turn per tool call, after one human turn. */
function fullSession(opts: {
  prNumber: number;
  branch: string;
  calls: ToolCall[];
  startedAt?: string;
  ended?: boolean;
}): Record<string, unknown> {
  const start = Date.parse(opts.startedAt ?? '2026-11-20T10:00:00Z');
  const turns: Record<string, unknown>[] = [
    {
      index: 0,
      role: 'user',
      source: 'human',
      text: 'fix the login',
      toolCalls: [],
      ts: new Date(start).toISOString(),
    },
  ];
  opts.calls.forEach((c, i) => {
    turns.push({
      index: i + 1,
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      text: null,
      ts: new Date(start + (i + 1) * 1000).toISOString(),
      usage: { in: 100, out: 10, cacheRead: 0, cacheCreate: 0 },
      toolCalls: [{ name: c.name, status: c.status, isEdit: c.name === 'Edit', input: c.input, output: c.output }],
    });
  });
  return {
    schemaVersion: 1,
    id: crypto.randomUUID(),
    agent: { type: 'claude-code', version: '2.1.193' },
    actor: { id: 'member-1' },
    captureTier: 'full',
    env: { gitRepo: `github.com/${REPO}`, gitBranch: opts.branch },
    startedAt: new Date(start).toISOString(),
    ...(opts.ended === false ? {} : { endedAt: new Date(start + (opts.calls.length + 1) * 1000).toISOString() }),
    models: ['claude-sonnet-4-5'],
    turns,
    events: [],
    totals: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheCreationTokens: 0 },
    warnings: [],
    outcome: { prNumber: opts.prNumber },
  };
}

const edit = (file: string): ToolCall => ({
  name: 'Edit',
  status: 'ok',
  input: { file_path: file, old_string: 'a', new_string: 'b' },
  output: 'The file has been updated.',
});
const bash = (command: string, output: string, status: 'ok' | 'error' = 'ok'): ToolCall => ({
  name: 'Bash',
  status,
  input: { command },
  output,
});

describe('the verdict of a pull request', () => {
  let g: GithubGateway;
  let t: Tenant;
  let writer: DoubleInstallation;
  let branchNo = 0;

  /** A pull request in the double (2 commits on a new branch), known to the factory through its webhook. */
  async function openPull(installationId: number, files: string[] = ['src/login.ts']) {
    const branch = `feature/v${++branchNo}`;
    g.github.pushBranch(REPO, branch, 2);
    const pull = g.github.openPullAs('alice', REPO, branch, 'Fix login');
    pull.files = files.map((filename) => ({ filename, status: 'modified' as const }));
    const commits = g.github.repo(REPO).branches.get(branch)!.slice(-2);
    const baseSha = g.github.headOf(REPO, 'main');
    await webhook(installationId, pull.number, branch, pull.headSha, baseSha, '2026-11-20T11:00:00Z');
    return { number: pull.number, branch, commits, baseSha, pull };
  }

  async function webhook(
    installationId: number,
    number: number,
    branch: string,
    headSha: string,
    baseSha: string,
    updatedAt: string,
  ) {
    const payload = pullRequestDelivery({
      repository: REPO,
      number,
      title: 'Fix login',
      head: branch,
      headSha,
      updatedAt,
      installationId,
    });
    ((payload.pull_request as Record<string, unknown>).base as Record<string, unknown>).sha = baseSha;
    const r = await deliver(g, 'pull_request', payload);
    expect(r.status, r.text).toBeLessThan(300);
  }

  async function sync(doc: Record<string, unknown>, tenant = t) {
    const r = await g.gw.call('POST', '/v1/agents/sync', {
      ...as(tenant),
      body: { schemaVersion: 1, sessions: [doc] },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.rejected).toEqual([]);
  }

  async function settle() {
    g.gw.clock.advance(60_000);
    return g.gw.app.attest.jobs.runDueJobs();
  }

  beforeAll(async () => {
    g = await startWithGithub();
    writer = g.github.addInstallation('acme', { ...g.github.appPermissions, checks: 'write' });
    g.github.addRepository(REPO, { installation: writer });
    t = await createTenant(g.gw);
    await bindInstallation(g.gw, t.appId, writer.id);
    expect(
      (await g.gw.call('POST', '/v1/repositories', { ...as(t), body: { repository: REPO, installationId: writer.id } }))
        .status,
    ).toBe(201);
    const on = await g.gw.call('PATCH', `/v1/apps/${t.appId}`, {
      ...as(t),
      body: { pr_check: 'on', pr_comment: 'on' },
    });
    expect(on.status, on.text).toBe(200);
    expect(on.body.data).toMatchObject({ pr_check: 'on', pr_comment: 'on', pr_check_problem: null });
  });
  afterAll(async () => {
    await g?.close();
  });

  it('pr_check is off by default, set by PATCH, shown on every read of the App; a bad value is a 400', async () => {
    const other = await createTenant(g.gw);
    expect((await g.gw.call('GET', `/v1/apps/${other.appId}`, as(other))).body.data).toMatchObject({
      pr_check: 'off',
      pr_check_problem: null,
    });
    const bad = await g.gw.call('PATCH', `/v1/apps/${other.appId}`, { ...as(other), body: { pr_check: 'yes' } });
    expect(bad.status).toBe(400);
    expect((await g.gw.call('GET', '/v1/apps', as(t))).body.data[0]).toMatchObject({ pr_check: 'on' });
  });

  it('reads the policy at the base commit, judges linked sessions, stores an evaluation once while same', async () => {
    const pr = await openPull(writer.id);
    // The base commit's policy makes commit provenance block and turns red-then-green off; the PR's own
    // head carries a policy that would turn everything off, which must not count.
    g.github.putFiles(REPO, pr.baseSha, {
      '.attest/policy.yaml': 'validators:\n  commit-provenance: block\n  red-then-green: off\n',
    });
    g.github.putFiles(REPO, pr.pull.headSha, {
      '.attest/policy.yaml': 'validators:\n  commit-provenance: off\n  tests-after-last-edit: off\n',
    });
    const mine = pr.commits[0]!.slice(0, 7);
    await sync(
      fullSession({
        prNumber: pr.number,
        branch: pr.branch,
        calls: [
          edit('src/login.ts'),
          bash('npx vitest run', ' Test Files  3 passed (3)\n      Tests  12 passed (12)'),
          bash('git commit -m "fix login"', `[${pr.branch} ${mine}] fix login\n 1 file changed, 1 insertion(+)`),
        ],
      }),
    );

    const res = await g.gw.call('GET', `/v1/prs/${REPO}/${pr.number}/verdict`, as(t));
    expect(res.status, res.text).toBe(200);
    const v = res.body.data;
    expect(v).toMatchObject({
      repository: REPO,
      number: pr.number,
      headSha: pr.pull.headSha,
      verdict: 'review',
      flagged: 1,
    });
    expect(v.policy).toEqual({ source: `.attest/policy.yaml@${pr.baseSha}`, errors: [] });
    const byId = new Map((v.rows as Array<{ validator: string; refs: unknown[] }>).map((r) => [r.validator, r]));
    expect(byId.has('red-then-green')).toBe(false);
    expect(byId.get('tests-after-last-edit')).toMatchObject({ status: 'pass', level: 'warn' });
    expect(byId.get('hooks-kept')).toMatchObject({ status: 'pass' });
    const foreign = pr.commits[1]!.slice(0, 7);
    expect(byId.get('commit-provenance')).toMatchObject({
      status: 'flag',
      level: 'block',
      sentence: `1 of 2 commits came from recorded sessions; no session made ${foreign}.`,
    });
    const prRead = await g.gw.call('GET', `/v1/prs/${REPO}/${pr.number}`, as(t));
    const traceId = prRead.body.data.sessionList[0].traceId as string;
    expect(byId.get('commit-provenance')!.refs).toEqual([{ traceId, sessionId: expect.any(String), turnIndex: 3 }]);

    // The same inputs: the same evaluation, stored once, with the same evaluatedAt.
    g.gw.clock.advance(5_000);
    const again = await g.gw.call('GET', `/v1/prs/${REPO}/${pr.number}/verdict`, as(t));
    expect(again.body.data).toEqual(v);
    const stored = await g.gw.app.attest.db
      .selectFrom('pr_evaluations')
      .select(['verdict', 'flagged'])
      .where('app_id', '=', t.appId)
      .where('number', '=', pr.number)
      .execute();
    expect(stored).toEqual([{ verdict: 'review', flagged: 1 }]);
    // Policy and PR inputs were read from GitHub once (cached per base and head commit).
    expect(
      g.github.calls.filter(
        (c) => c.route === '/repos/{owner}/{repo}/contents/{path}' && c.path.endsWith('policy.yaml'),
      ).length,
    ).toBe(1);
    expect(g.github.calls.filter((c) => c.route === '/repos/{owner}/{repo}/pulls/{pull_number}/commits').length).toBe(
      1,
    );

    // The session read carries the facts, with the command text at the full tier.
    const session = await g.gw.call('GET', `/v1/sessions/${traceId}`, as(t));
    expect(session.status).toBe(200);
    expect(session.body.data.verification).toMatchObject({
      runs: [
        { turnIndex: 2, kind: 'test', result: 'pass', scope: 'full', command: 'npx vitest run' },
        { turnIndex: 3, kind: 'commit', result: 'pass' },
      ],
      edits: [{ turnIndex: 1, file: 'src/login.ts', test: false }],
      commits: [mine],
      bypasses: [],
    });

    // The PR job: the check run on the head commit fails (a block row did not pass); the comment opens with the
    // verdict.
    expect((await settle()).claimed).toBeGreaterThanOrEqual(1);
    const runs = g.github.checkRunsOn(REPO, pr.pull.headSha);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      name: 'Attest evidence',
      status: 'completed',
      conclusion: 'failure',
      title: "Review: 1 row needs a person's look",
    });
    const comment = g.github.commentsOn(REPO, pr.number).find((c) => c.user === 'attest-test-app[bot]')!;
    const lines = comment.body.split('\n');
    expect(lines[1]).toBe('### Attest evidence');
    expect(lines[3]).toBe("**Verdict: Review: 1 row needs a person's look**");
    expect(comment.body).toContain(`[turn 3](http://attest.test/f/${t.appId}/sessions/${traceId}#turn-3)`);

    // A new head commit gets a new check run; the old one is left as it was.
    const newHead = crypto.randomBytes(20).toString('hex');
    g.github.repo(REPO).branches.get(pr.branch)!.push(newHead);
    pr.pull.headSha = newHead;
    await webhook(writer.id, pr.number, pr.branch, newHead, pr.baseSha, '2026-11-20T12:00:00Z');
    await settle();
    expect(g.github.checkRunsOn(REPO, newHead)).toHaveLength(1);
    expect(g.github.checkRunsOn(REPO, pr.commits[1]!)).toHaveLength(1);
    expect(g.github.checkRuns.filter((c) => c.name === 'Attest evidence').length).toBe(2);
  });

  it('a pull request with no agent session is none, and its check run is neutral', async () => {
    const pr = await openPull(writer.id);
    const res = await g.gw.call('GET', `/v1/prs/${REPO}/${pr.number}/verdict`, as(t));
    expect(res.status, res.text).toBe(200);
    // main's policy (put there by an earlier test) is read, and says nothing of a PR without sessions.
    expect(res.body.data).toMatchObject({
      verdict: 'none',
      flagged: 0,
      rows: [],
      policy: { source: `.attest/policy.yaml@${pr.baseSha}`, errors: [] },
    });
    await settle();
    expect(g.github.checkRunsOn(REPO, pr.pull.headSha)).toEqual([expect.objectContaining({ conclusion: 'neutral' })]);
  });

  it('a broken policy file is one error row, and the rest renders', async () => {
    const pr = await openPull(writer.id);
    g.github.putFiles(REPO, pr.baseSha, { '.attest/validators/e2e.yaml': 'name: [unclosed\n' });
    await g.gw.app.attest.db.deleteFrom('verdict_policies').execute();
    await sync(
      fullSession({
        prNumber: pr.number,
        branch: pr.branch,
        calls: [edit('src/a.ts'), bash('npm test', 'Tests: 3 passed, 3 total')],
      }),
    );
    const v = (await g.gw.call('GET', `/v1/prs/${REPO}/${pr.number}/verdict`, as(t))).body.data;
    expect(v.policy.errors).toHaveLength(1);
    expect(v.policy.errors[0].file).toBe('.attest/validators/e2e.yaml');
    expect(v.rows[0]).toMatchObject({ validator: 'policy', status: 'error' });
    expect(v.rows.some((r: { validator: string }) => r.validator === 'tests-after-last-edit')).toBe(true);
  });

  it('a missing checks write is the factory’s pr_check_problem', async () => {
    const reader = g.github.addInstallation('acme-read');
    g.github.addRepository('acme-read/web', { installation: reader });
    const u = await createTenant(g.gw);
    await bindInstallation(g.gw, u.appId, reader.id);
    expect(
      (
        await g.gw.call('POST', '/v1/repositories', {
          ...as(u),
          body: { repository: 'acme-read/web', installationId: reader.id },
        })
      ).status,
    ).toBe(201);
    await g.gw.call('PATCH', `/v1/apps/${u.appId}`, { ...as(u), body: { pr_check: 'on' } });
    g.github.pushBranch('acme-read/web', 'feature/x', 1);
    const pull = g.github.openPullAs('alice', 'acme-read/web', 'feature/x', 'X');
    const payload = pullRequestDelivery({
      repository: 'acme-read/web',
      number: pull.number,
      title: 'X',
      head: 'feature/x',
      headSha: pull.headSha,
      updatedAt: '2026-11-20T11:00:00Z',
      installationId: reader.id,
    });
    expect((await deliver(g, 'pull_request', payload)).status).toBeLessThan(300);
    await settle();
    const app = (await g.gw.call('GET', `/v1/apps/${u.appId}`, as(u))).body.data;
    expect(app.pr_check_problem).toMatchObject({
      code: 'missing_permission',
      repository: 'acme-read/web',
      number: pull.number,
    });
    expect(app.pr_check_problem.message).toContain('checks write');
  });

  it('the PR read and the outcomes list carry verdict and flagged; the list filters by verdict', async () => {
    const pr = await openPull(writer.id);
    await sync(
      fullSession({
        prNumber: pr.number,
        branch: pr.branch,
        calls: [
          edit('src/c.ts'),
          bash('git commit --no-verify -m wip', `[${pr.branch} ${pr.commits[0]!.slice(0, 7)}] wip`),
        ],
      }),
    );
    const read = await g.gw.call('GET', `/v1/prs/${REPO}/${pr.number}`, as(t));
    expect(read.status, read.text).toBe(200);
    // hooks-kept fails: unverifiable.
    expect(read.body.data).toMatchObject({ verdict: 'unverifiable' });
    const list = await g.gw.call('GET', '/v1/prs/outcomes?limit=100', as(t));
    expect(list.status, list.text).toBe(200);
    const mine = list.body.data.find((o: { number: number }) => o.number === pr.number);
    expect(mine).toMatchObject({ verdict: 'unverifiable', flagged: read.body.data.flagged });
    const only = await g.gw.call('GET', '/v1/prs/outcomes?limit=100&verdict=unverifiable,clean', as(t));
    expect(only.status).toBe(200);
    expect(only.body.data.length).toBeGreaterThan(0);
    expect(
      only.body.data.every((o: { verdict: string }) => o.verdict === 'unverifiable' || o.verdict === 'clean'),
    ).toBe(true);
    expect(only.body.pagination.total).toBe(only.body.data.length);
    const none = await g.gw.call('GET', '/v1/prs/outcomes?verdict=waiting', as(t));
    expect(none.body.data).toEqual([]);
    const bad = await g.gw.call('GET', '/v1/prs/outcomes?verdict=green', as(t));
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_query_params');
  });

  it('another factory sees no verdict of our PRs in the outcomes list; its verdict filter reveals none', async () => {
    const pr = await openPull(writer.id);
    await sync(
      fullSession({
        prNumber: pr.number,
        branch: pr.branch,
        calls: [bash('git commit -n -m wip', `[${pr.branch} ${pr.commits[0]!.slice(0, 7)}] wip`)],
      }),
    );
    const ours = await g.gw.call('GET', '/v1/prs/outcomes?limit=100&verdict=unverifiable', as(t));
    expect(ours.body.data.some((o: { number: number }) => o.number === pr.number)).toBe(true);
    const b = await createTenant(g.gw);
    for (const [who, caller] of foreignCallers(b, await siblingFactory(g.gw, t))) {
      for (const query of ['limit=100', 'limit=100&verdict=unverifiable', 'limit=100&verdict=clean,review,waiting']) {
        const r = await g.gw.call('GET', `/v1/prs/outcomes?${query}`, caller);
        expect(r.status, `${who} ${query}`).toBe(200);
        expect(r.body.data, `${who} ${query}`).toEqual([]);
        expect(r.body.pagination.total, `${who} ${query}`).toBe(0);
      }
    }
  });

  it('the Overview compares PRs by verdict in the window: count, merged, reverted, CI failures', async () => {
    const u = await createTenant(g.gw);
    await bindInstallation(g.gw, u.appId, writer.id);
    expect(
      (await g.gw.call('POST', '/v1/repositories', { ...as(u), body: { repository: REPO, installationId: writer.id } }))
        .status,
    ).toBe(201);
    const hooksSkipped = (pr: { number: number; branch: string }) =>
      fullSession({
        prNumber: pr.number,
        branch: pr.branch,
        calls: [bash('git commit -n -m wip', `[${pr.branch} 0000000] wip`)],
      });
    // Two PRs opened 2026-10-01 (pullRequestDelivery's created_at): one unverifiable and merged, one with no session.
    const a = await openPull(writer.id);
    const merged = pullRequestDelivery({
      repository: REPO,
      number: a.number,
      title: 'Fix login',
      head: a.branch,
      headSha: a.pull.headSha,
      state: 'closed',
      merged: true,
      updatedAt: '2026-11-21T00:00:00Z',
      installationId: writer.id,
    });
    expect((await deliver(g, 'pull_request', merged)).status).toBeLessThan(300);
    await sync(hooksSkipped(a), u);
    const res = await g.gw.call('GET', '/v1/metrics/verdicts?from=2026-09-15&to=2026-10-15', as(u));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.window).toEqual({ from: '2026-09-15T00:00:00.000Z', to: '2026-10-16T00:00:00.000Z' });
    const by = new Map(res.body.data.verdicts.map((b: { verdict: string }) => [b.verdict, b]));
    expect([...by.keys()]).toEqual(['clean', 'review', 'unverifiable', 'waiting', 'none']);
    expect(by.get('unverifiable')).toEqual({ verdict: 'unverifiable', prs: 1, merged: 1, reverted: 0, ciFailures: 0 });
    expect(by.get('clean')).toEqual({ verdict: 'clean', prs: 0, merged: 0, reverted: 0, ciFailures: 0 });
    // Outside the window: nothing; another factory: nothing of this one.
    const later = await g.gw.call('GET', '/v1/metrics/verdicts?from=2026-10-20&to=2026-10-30', as(u));
    expect(later.body.data.verdicts.every((b: { prs: number }) => b.prs === 0)).toBe(true);
    const other = await createTenant(g.gw);
    const theirs = await g.gw.call('GET', '/v1/metrics/verdicts?from=2026-09-15&to=2026-10-15', as(other));
    expect(theirs.body.data.verdicts.every((b: { prs: number }) => b.prs === 0)).toBe(true);
    expect((await g.gw.call('GET', '/v1/metrics/verdicts?from=2026-10-15&to=2026-09-15', as(u))).body.error.code).toBe(
      'invalid_date_range',
    );
    expect((await g.gw.call('GET', '/v1/metrics/verdicts', { appId: u.appId })).status).toBe(401);
  });

  it('announces a stored verdict change once, signed, not an identical re-evaluation; this factory only', async () => {
    const receiver = new Receiver();
    await receiver.start();
    const config = g.gw.app.attest.config;
    config.notifyAllowPrivate = true;
    try {
      const channel = async (tenant: Tenant, path: string) => {
        const r = await g.gw.call('POST', '/v1/notification-channels', {
          ...as(tenant),
          body: { name: path, kind: 'webhook', url: `${receiver.url}${path}`, events: ['pr.verdict'] },
        });
        expect(r.status, r.text).toBe(201);
        return r.body.data;
      };
      const mine = await channel(t, '/verdict');
      receiver.expectSecret('/verdict', mine.secret);
      await channel(await createTenant(g.gw), '/theirs');
      const run = () => g.gw.app.attest.notifications.runDueJobs();
      const got = () => receiver.at('/verdict').map((r) => r.json as { type: string; data: Record<string, unknown> });

      const pr = await openPull(writer.id);
      const path = `/v1/prs/${REPO}/${pr.number}/verdict`;
      // An edit and no test after it: review.
      await sync(fullSession({ prNumber: pr.number, branch: pr.branch, calls: [edit('src/n.ts')] }));
      const review = (await g.gw.call('GET', path, as(t))).body.data;
      expect(review.verdict).toBe('review');
      g.gw.clock.advance(5_000);
      await g.gw.call('GET', path, as(t));
      await run();
      expect(got()).toHaveLength(1);
      expect(got()[0]).toMatchObject({
        type: 'pr.verdict',
        data: {
          repository: REPO,
          number: pr.number,
          title: 'Fix login',
          headSha: pr.pull.headSha,
          verdict: 'review',
          previousVerdict: null,
          flagged: review.flagged,
          url: `http://attest.test/f/${t.appId}/prs/${REPO}/${pr.number}`,
        },
      });
      // The rows the PR's verdict shows as not passed (none of them info), without their refs.
      const notPassed = (review.rows as Array<{ status: string; level: string }>).filter((r) => r.status !== 'pass');
      expect(notPassed.map((r) => r.level)).not.toContain('info');
      expect(got()[0]!.data.rows).toEqual(
        notPassed.map(({ refs: _refs, ...r }: { refs?: unknown; status: string; level: string }) => r),
      );
      expect(notPassed.length).toBe(review.flagged);

      // A second session commits past the hooks: unverifiable, announced once however often it is read.
      await sync(
        fullSession({
          prNumber: pr.number,
          branch: pr.branch,
          startedAt: '2026-11-20T10:30:00Z',
          calls: [bash('git commit --no-verify -m wip', `[${pr.branch} abc1234] wip\n 1 file changed`)],
        }),
      );
      g.gw.clock.advance(5_000);
      const changed = (await g.gw.call('GET', path, as(t))).body.data;
      expect(changed.verdict).toBe('unverifiable');
      await g.gw.call('GET', path, as(t));
      await run();
      await run();
      expect(got()).toHaveLength(2);
      expect(got()[1]!.data).toMatchObject({
        verdict: 'unverifiable',
        previousVerdict: 'review',
        evaluatedAt: changed.evaluatedAt,
      });
      expect(receiver.at('/verdict').every((r) => r.signatureValid === true)).toBe(true);
      expect(receiver.at('/theirs')).toEqual([]);
    } finally {
      config.notifyAllowPrivate = false;
      await receiver.close();
    }
  });

  it('answers 404 pull_request_not_found, 401 with no or a wrong credential, none to another factory', async () => {
    const pr = await openPull(writer.id);
    await sync(fullSession({ prNumber: pr.number, branch: pr.branch, calls: [edit('src/b.ts')] }));
    const path = `/v1/prs/${REPO}/${pr.number}/verdict`;
    expect((await g.gw.call('GET', path, as(t))).status).toBe(200);
    const missing = await g.gw.call('GET', `/v1/prs/${REPO}/99999/verdict`, as(t));
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('pull_request_not_found');
    expect((await g.gw.call('GET', path, { appId: t.appId })).status).toBe(401);
    expect((await g.gw.call('GET', path, { token: 'sk_outerlayer_wrong', appId: t.appId })).status).toBe(401);
    const b = await createTenant(g.gw);
    for (const [who, caller] of foreignCallers(b, await siblingFactory(g.gw, t))) {
      const r = await g.gw.call('GET', path, caller);
      expect(r.status, who).toBe(404);
      expect(r.body.error.code, who).toBe('pull_request_not_found');
    }
  });
});
