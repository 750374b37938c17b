// Sessions linked to pull requests by commit (issue 41): a `git_commit_id` on a Claude Code Bash tool result
// (sent when tool details are on) links the telemetry session to the PR that holds the commit, matched as the
// verdict's commit provenance matches (a whole SHA or a prefix of at least 7), whichever arrives first: the
// telemetry before the PR (linked when the PR's webhook job reads its commits) or after it. Against the GitHub
// double; another factory's session with the same commit is never linked, nor sees the PR.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoubleInstallation } from '../../github-double/server.js';
import { bindInstallation } from '../../github-double/setup.js';
import { createTenant, type Tenant } from '../../helpers/gateway.js';
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

  /** The PR of `branch` opened in the double and delivered to the gateway by its webhook, then the jobs run. */
  async function openPull(branch: string): Promise<number> {
    const pull = g.github.openPullAs('alice', REPO, branch, 'Fix login');
    const payload = pullRequestDelivery({
      repository: REPO,
      number: pull.number,
      title: 'Fix login',
      head: branch,
      headSha: pull.headSha,
      updatedAt: '2026-11-20T11:00:00Z',
      installationId: writer.id,
    });
    const r = await deliver(g, 'pull_request', payload);
    expect(r.status, r.text).toBeLessThan(300);
    g.gw.clock.advance(60_000);
    await g.gw.app.attest.jobs.runDueJobs();
    return pull.number;
  }

  /**
   * Claude Code's telemetry of one session, as OTLP/JSON: an API request, then a Bash tool result carrying the
   * commit it made. No vcs attributes: the session has no repository or branch, so only the commit can link it.
   */
  async function telemetry(tenant: Tenant, sessionId: string, commit: string): Promise<string> {
    const at = Date.parse('2026-11-20T10:00:00Z');
    const record = (ms: number, name: string, attrs: Record<string, string | number>) => ({
      timeUnixNano: String(BigInt(at + ms) * 1_000_000n),
      body: { stringValue: `claude_code.${name}` },
      attributes: Object.entries({
        'event.name': name,
        'event.timestamp': new Date(at + ms).toISOString(),
        'session.id': sessionId,
        'user.account_uuid': 'acc-1',
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
                record(0, 'api_request', { model: 'claude-sonnet-4-5-20250929', cost_usd: 0.02 }),
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
    expect(await prNumbersOf(t, mine)).toEqual([number]);
    expect(await sessionsOfPr(number)).toEqual([expect.objectContaining({ traceId: mine, linkedBy: ['commit'] })]);
    // A commit of no PR (6 characters of one say too little) links to nothing.
    const none = await telemetry(t, 'cc-no-pr', commits[1]!.slice(0, 6));
    expect(await prNumbersOf(t, none)).toEqual([]);
    const outcomes = await g.gw.call('GET', `/v1/prs/outcomes?repo=${REPO}`, read(t));
    expect(outcomes.status, outcomes.text).toBe(200);
    expect(outcomes.body.data.find((o: { number: number }) => o.number === number)).toMatchObject({ sessions: 1 });
  });
});
