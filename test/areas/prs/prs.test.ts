import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../helpers/gateway.js';
import {
  connectRepository,
  deliver,
  checkDelivery,
  type CheckSpec,
  pullRequestDelivery,
  startWithGithub,
  type GithubGateway,
  type PullSpec,
} from '../webhooks/github.js';
import { ingest, sessionDoc } from '../metrics/sessions.js';

const MODEL = 'claude-sonnet-4-5';
const turn = { model: MODEL, in: 1000, out: 500, cacheRead: 2000 };

describe('PR attribution and outcomes', () => {
  let g: GithubGateway;
  let t: Tenant;
  let other: Tenant;
  const ids = {
    outcome: 'a0000000-0000-4000-8000-000000000001',
    event: 'a0000000-0000-4000-8000-000000000002',
    branch: 'a0000000-0000-4000-8000-000000000003',
    late: 'a0000000-0000-4000-8000-000000000004',
    url: 'a0000000-0000-4000-8000-000000000005',
    none: 'a0000000-0000-4000-8000-000000000006',
  };
  const as = (tenant: Tenant) => ({ token: tenant.factoryKey, appId: tenant.appId });
  const pr = (spec: Partial<PullSpec> & Pick<PullSpec, 'number' | 'updatedAt'>): PullSpec => ({
    repository: 'acme/api',
    title: `PR ${spec.number}`,
    head: `feature/${spec.number}`,
    installationId: g.installation.id,
    ...spec,
  });
  /** sessionId → { traceId, costUsd } as the session list reports them. */
  let listed: Map<string, { traceId: string; costUsd: number }>;

  beforeAll(async () => {
    g = await startWithGithub();
    t = await createTenant(g.gw, { plan: 'free' });
    other = await createTenant(g.gw);
    await connectRepository(g, t, 'acme/api');
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(
        pr({
          number: 12,
          title: 'Fix rate limit',
          head: 'fix/rate-limit',
          headSha: 'e'.repeat(40),
          updatedAt: '2026-10-01T10:00:00Z',
        }),
      ),
    );
    await deliver(
      g,
      'check_run',
      checkDelivery('check_run', {
        repository: 'acme/api',
        id: 1,
        headSha: 'e'.repeat(40),
        status: 'completed',
        conclusion: 'success',
        installationId: g.installation.id,
      }),
    );
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(
        pr({
          number: 12,
          title: 'Fix rate limit',
          head: 'fix/rate-limit',
          headSha: 'e'.repeat(40),
          state: 'closed',
          merged: true,
          updatedAt: '2026-10-03T10:00:00Z',
        }),
      ),
    );
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(
        pr({ number: 14, title: 'Unrelated', head: 'chore/unrelated', updatedAt: '2026-10-03T10:00:00Z' }),
      ),
    );

    await ingest(g.gw, as(t), [
      sessionDoc({
        id: ids.outcome,
        startedAt: '2026-10-01T09:00:00Z',
        repo: 'acme/api',
        branch: 'main',
        prNumber: 12,
        turns: [turn],
      }),
      sessionDoc({
        id: ids.event,
        startedAt: '2026-10-01T12:00:00Z',
        repo: 'acme/api',
        branch: 'other',
        prLinked: [12],
        turns: [turn, turn],
      }),
      sessionDoc({
        id: ids.branch,
        startedAt: '2026-10-02T08:00:00Z',
        repo: 'acme/api',
        branch: 'fix/rate-limit',
        turns: [turn, turn, turn],
      }),
      // On the PR's branch, but after the PR merged: the branch name was reused.
      sessionDoc({
        id: ids.late,
        startedAt: '2026-10-05T08:00:00Z',
        repo: 'acme/api',
        branch: 'fix/rate-limit',
        turns: [turn],
      }),
      // Names a PR of another repository by URL; no webhook state is known for it.
      sessionDoc({
        id: ids.url,
        startedAt: '2026-10-04T08:00:00Z',
        repo: 'acme/api',
        branch: 'x',
        prNumber: 5,
        prUrl: 'https://github.com/Acme/Web/pull/5',
        turns: [turn],
      }),
      sessionDoc({ id: ids.none, startedAt: '2026-10-04T09:00:00Z', repo: 'acme/api', branch: 'y', turns: [turn] }),
    ]);
    // Another factory's session naming the same PR number stays in that factory.
    await ingest(g.gw, as(other), [
      sessionDoc({
        startedAt: '2026-10-01T09:00:00Z',
        repo: 'acme/api',
        branch: 'fix/rate-limit',
        prNumber: 12,
        turns: [turn],
      }),
    ]);

    const list = await g.gw.call('GET', '/v1/sessions?repoScope=all&limit=100', as(t));
    expect(list.status).toBe(200);
    listed = new Map(
      list.body.data.sessions.map((s: { sessionId: string; traceId: string; costUsd: number }) => [
        s.sessionId,
        { traceId: s.traceId, costUsd: s.costUsd },
      ]),
    );
    expect(listed.size).toBe(6);
  });
  afterAll(async () => {
    await g?.close();
  });

  it('lists attributed PRs with state, CI, sessions and cost', async () => {
    const r = await g.gw.call('GET', '/v1/prs/outcomes', as(t));
    expect(r.status).toBe(200);
    expect(r.headers['x-ratelimit-limit']).toBe('100');
    expect(r.body.pagination).toEqual({ total: 2, limit: 25, offset: 0 });
    const [web, api] = r.body.data;
    const cost = (...sessionIds: string[]) => sessionIds.reduce((n, id) => n + listed.get(id)!.costUsd, 0);
    expect(api).toMatchObject({
      repository: 'acme/api',
      number: 12,
      url: 'https://github.com/acme/api/pull/12',
      title: 'Fix rate limit',
      branch: 'fix/rate-limit',
      state: 'merged',
      merged: true,
      reverted: false,
      ciGreen: true,
      sessions: 3,
      firstSessionAt: '2026-10-01T09:00:00.000Z',
      lastSessionAt: '2026-10-02T08:00:00.000Z',
      mergedAt: '2026-10-03T10:00:00.000Z',
    });
    expect(api.costUsd).toBeGreaterThan(0);
    expect(api.costUsd).toBeCloseTo(cost(ids.outcome, ids.event, ids.branch), 6);
    expect(web).toMatchObject({
      repository: 'acme/web',
      number: 5,
      url: 'https://github.com/Acme/Web/pull/5',
      title: null,
      state: 'unknown',
      merged: null,
      reverted: null,
      ciGreen: null,
      sessions: 1,
    });
    expect(web.costUsd).toBeCloseTo(cost(ids.url), 6);

    const merged = await g.gw.call('GET', '/v1/prs/outcomes?state=merged', as(t));
    expect(merged.body.data.map((p: { number: number }) => p.number)).toEqual([12]);
    const byRepo = await g.gw.call('GET', '/v1/prs/outcomes?repo=Acme/Web', as(t));
    expect(byRepo.body.data.map((p: { number: number }) => p.number)).toEqual([5]);
    const paged = await g.gw.call('GET', '/v1/prs/outcomes?limit=1&offset=1', as(t));
    expect(paged.body).toMatchObject({ data: [{ number: 12 }], pagination: { total: 2, limit: 1, offset: 1 } });
    for (const q of ['limit=0', 'offset=10001', 'state=draft', 'pr=1']) {
      const bad = await g.gw.call('GET', `/v1/prs/outcomes?${q}`, as(t));
      expect(bad.status, q).toBe(400);
      expect(bad.body.error.code).toBe('invalid_query_params');
    }
  });

  it('gives one PR with its sessions and how each is linked', async () => {
    const r = await g.gw.call('GET', '/v1/prs/acme/api/12', as(t));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      number: 12,
      state: 'merged',
      ci: 'green',
      sessions: 3,
      artifacts: [],
      results: [],
    });
    expect(r.body.data.sessionList).toEqual([
      expect.objectContaining({
        sessionId: ids.outcome,
        traceId: listed.get(ids.outcome)!.traceId,
        linkedBy: ['session'],
      }),
      expect.objectContaining({ sessionId: ids.event, linkedBy: ['session'] }),
      expect.objectContaining({ sessionId: ids.branch, linkedBy: ['branch'] }),
    ]);
    // A PR known only from webhooks, with no session.
    const lone = await g.gw.call('GET', '/v1/prs/acme/api/14', as(t));
    expect(lone.body.data).toMatchObject({ state: 'open', sessions: 0, costUsd: 0, sessionList: [] });
    const unknown = await g.gw.call('GET', '/v1/prs/acme/api/999', as(t));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('pull_request_not_found');
    const bad = await g.gw.call('GET', '/v1/prs/acme/api/zero', as(t));
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_path_params');
  });

  /** traceId → prOutcomes, as the session list answers them to `tenant`. */
  const listedOutcomes = async (tenant: Tenant) => {
    const r = await g.gw.call('GET', '/v1/sessions?repoScope=all&limit=100', as(tenant));
    expect(r.status).toBe(200);
    return new Map<string, unknown>(
      r.body.data.sessions.map((s: { traceId: string; prOutcomes: unknown }) => [s.traceId, s.prOutcomes]),
    );
  };

  it("the session list gives each session its PRs' outcomes", async () => {
    const traceIds = [ids.outcome, ids.branch, ids.late, ids.url, ids.none].map((s) => listed.get(s)!.traceId);
    const map = await listedOutcomes(t);
    const merged12 = {
      prNumber: 12,
      prUrl: 'https://github.com/acme/api/pull/12',
      ciGreen: { label: 'green', score: 1 },
      merged: { label: 'merged', score: 1 },
      reverted: { label: 'kept', score: 1 },
    };
    expect(map.get(traceIds[0]!)).toEqual([merged12]);
    expect(map.get(traceIds[1]!)).toEqual([merged12]);
    expect(map.get(traceIds[2]!)).toEqual([]);
    const unknown = { label: 'unknown', score: 0.5 };
    expect(map.get(traceIds[3]!)).toEqual([
      {
        prNumber: 5,
        prUrl: 'https://github.com/Acme/Web/pull/5',
        ciGreen: unknown,
        merged: unknown,
        reverted: unknown,
      },
    ]);
    expect(map.get(traceIds[4]!)).toEqual([]);

    // A revert changes the label of every session of the reverted PR.
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(
        pr({
          number: 15,
          title: 'Revert "Fix rate limit"',
          body: 'Reverts acme/api#12',
          state: 'closed',
          merged: true,
          updatedAt: '2026-10-06T10:00:00Z',
        }),
      ),
    );
    const after = await listedOutcomes(t);
    expect((after.get(traceIds[0]!) as { reverted: unknown }[])[0]!.reverted).toEqual({ label: 'reverted', score: 0 });
    expect((await g.gw.call('GET', '/v1/prs/outcomes?state=merged', as(t))).body.data[0].reverted).toBe(true);
    // Another factory's session naming the same PR number is untouched by this factory's PR state, and none
    // of this factory's sessions is listed to it.
    const theirs = await listedOutcomes(other);
    expect(traceIds.filter((id) => theirs.has(id))).toEqual([]);
    expect([...theirs.values()]).toEqual([
      [
        {
          prNumber: 12,
          prUrl: 'https://github.com/acme/api/pull/12',
          ciGreen: unknown,
          merged: unknown,
          reverted: unknown,
        },
      ],
    ]);
  });

  it("the session list's CI outcome counts the checks at the PR's head: runs decide, else suites", async () => {
    const outcomeTrace = listed.get(ids.outcome)!.traceId;
    const ciOf = async () =>
      ((await listedOutcomes(t)).get(outcomeTrace) as { prNumber: number; ciGreen: unknown }[]).find(
        (o) => o.prNumber === 12,
      )!.ciGreen;
    const check = (event: 'check_run' | 'check_suite', id: number, status: CheckSpec['status'], conclusion?: string) =>
      deliver(
        g,
        event,
        checkDelivery(event, {
          repository: 'acme/api',
          id,
          headSha: 'e'.repeat(40),
          status,
          ...(conclusion ? { conclusion } : {}),
          installationId: g.installation.id,
        }),
      );
    // A failed suite beside green runs: the runs decide.
    await check('check_suite', 70, 'completed', 'failure');
    expect(await ciOf()).toEqual({ label: 'green', score: 1 });
    // A second run still going: one of two completed.
    await check('check_run', 71, 'in_progress');
    expect(await ciOf()).toEqual({ label: 'pending', score: 0.5 });
    await check('check_run', 71, 'completed', 'timed_out');
    expect(await ciOf()).toEqual({ label: 'red', score: 0 });
    await check('check_run', 71, 'completed', 'success');
    expect(await ciOf()).toEqual({ label: 'green', score: 1 });
  });

  it('needs prs.read, and keeps factories apart', async () => {
    for (const url of ['/v1/prs/outcomes', '/v1/prs/acme/api/12']) {
      const none = await g.gw.call('GET', url, { appId: t.appId });
      expect(none.status).toBe(401);
      const wrong = await g.gw.call('GET', url, {
        token: 'sk_outerlayer_000000000000000000000000000000000000aaaaaa',
        appId: t.appId,
      });
      expect(wrong.status).toBe(401);
    }
    const ingestKey = (
      await g.gw.call('POST', '/v1/api-keys', {
        token: t.loginToken,
        appId: t.appId,
        body: { name: 'ingest', preset: 'ingest' },
      })
    ).body.data.plaintext_key;
    const denied = await g.gw.call('GET', '/v1/prs/outcomes', { token: ingestKey, appId: t.appId });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'prs.read' });
    expect((await g.gw.call('GET', '/v1/prs/acme/api/12', { token: ingestKey, appId: t.appId })).status).toBe(403);

    // The other factory sees only its own session's reference (no webhook state: it did not connect the repo).
    const theirs = await g.gw.call('GET', '/v1/prs/outcomes', as(other));
    expect(theirs.body.data).toEqual([
      expect.objectContaining({ repository: 'acme/api', number: 12, state: 'unknown', sessions: 1 }),
    ]);
    expect((await g.gw.call('GET', '/v1/prs/acme/api/14', as(other))).status).toBe(404);
    expect((await g.gw.call('GET', '/v1/prs/outcomes', { token: other.factoryKey, appId: t.appId })).status).toBe(401);
  });

  it("a session naming another repository's PR by URL gets its state once known, in the default list", async () => {
    // The list's one read finds PRs by branch and by commit; a PR named in another repository is read after it.
    await connectRepository(g, t, 'acme/web');
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(
        pr({
          repository: 'acme/web',
          number: 5,
          title: 'Web fix',
          head: 'fix/web',
          state: 'closed',
          merged: true,
          updatedAt: '2026-10-04T10:00:00Z',
        }),
      ),
    );
    const r = await g.gw.call('GET', '/v1/sessions', as(t));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ repo: 'acme/api', repoSelection: 'dominant' });
    const byTrace = new Map<string, unknown>(
      r.body.data.sessions.map((s: { traceId: string; prOutcomes: unknown }) => [s.traceId, s.prOutcomes]),
    );
    // The PR's own URL once it is known (the webhook's), no check seen at its head, not reverted.
    expect(byTrace.get(listed.get(ids.url)!.traceId)).toEqual([
      {
        prNumber: 5,
        prUrl: 'https://github.com/acme/web/pull/5',
        ciGreen: { label: 'unknown', score: 0.5 },
        merged: { label: 'merged', score: 1 },
        reverted: { label: 'kept', score: 1 },
      },
    ]);
    expect(byTrace.get(listed.get(ids.none)!.traceId)).toEqual([]);
    // The other factory's list is untouched.
    expect([...(await listedOutcomes(other)).values()].flat()).toEqual([expect.objectContaining({ prNumber: 12 })]);
  });
});

describe("a PR's cost status: whether its cost is whole", () => {
  let g: GithubGateway;
  let t: Tenant;
  const as = () => ({ token: t.factoryKey, appId: t.appId });
  const UNKNOWN = 'mystery-model-9';
  const unknownTurn = { model: UNKNOWN, in: 1000, out: 500, cacheRead: 0 };
  const url = (n: number) => `https://github.com/acme/api/pull/${n}`;
  let listed: Map<string, { costUsd: number; costStatus: string }>;

  beforeAll(async () => {
    g = await startWithGithub();
    t = await createTenant(g.gw);
    await ingest(g.gw, as(), [
      sessionDoc({
        id: 'c0000000-0000-4000-8000-000000000001',
        startedAt: '2026-10-01T09:00:00Z',
        repo: 'acme/api',
        branch: 'a',
        prNumber: 21,
        prUrl: url(21),
        turns: [turn],
      }),
      sessionDoc({
        id: 'c0000000-0000-4000-8000-000000000002',
        startedAt: '2026-10-01T10:00:00Z',
        repo: 'acme/api',
        branch: 'b',
        prNumber: 21,
        prUrl: url(21),
        turns: [unknownTurn],
      }),
      sessionDoc({
        id: 'c0000000-0000-4000-8000-000000000003',
        startedAt: '2026-10-01T11:00:00Z',
        repo: 'acme/api',
        branch: 'c',
        prNumber: 21,
        prUrl: url(21),
        turns: [turn, unknownTurn],
      }),
      sessionDoc({
        id: 'c0000000-0000-4000-8000-000000000004',
        startedAt: '2026-10-02T09:00:00Z',
        repo: 'acme/api',
        branch: 'd',
        prNumber: 22,
        prUrl: url(22),
        turns: [unknownTurn, unknownTurn],
      }),
      sessionDoc({
        id: 'c0000000-0000-4000-8000-000000000005',
        startedAt: '2026-10-03T09:00:00Z',
        repo: 'acme/api',
        branch: 'e',
        prNumber: 23,
        prUrl: url(23),
        turns: [turn, turn],
      }),
    ]);
    const list = await g.gw.call('GET', '/v1/sessions?repoScope=all&limit=100', as());
    listed = new Map(
      list.body.data.sessions.map((s: { sessionId: string; costUsd: number; costStatus: string }) => [s.sessionId, s]),
    );
    // The sessions' own statuses, as the pricing gives them: the premise of what follows.
    expect([1, 2, 3, 4, 5].map((n) => listed.get(`c0000000-0000-4000-8000-00000000000${n}`)!.costStatus)).toEqual([
      'complete',
      'unpriced',
      'partial',
      'unpriced',
      'complete',
    ]);
  });
  afterAll(async () => {
    await g?.close();
  });

  it('outcomes: complete if all sessions priced, unpriced if none, else partial; lists unpriced models', async () => {
    const r = await g.gw.call('GET', '/v1/prs/outcomes', as());
    expect(r.status).toBe(200);
    const byNumber = new Map(r.body.data.map((o: { number: number }) => [o.number, o]));
    const cost = (...n: number[]) =>
      n.reduce((sum, i) => sum + listed.get(`c0000000-0000-4000-8000-00000000000${i}`)!.costUsd, 0);
    expect(byNumber.get(21)).toMatchObject({ sessions: 3, costStatus: 'partial', unpricedModels: [UNKNOWN] });
    expect((byNumber.get(21) as { costUsd: number }).costUsd).toBeCloseTo(cost(1, 2, 3), 6);
    expect(byNumber.get(22)).toMatchObject({
      sessions: 1,
      costUsd: 0,
      costStatus: 'unpriced',
      unpricedModels: [UNKNOWN],
    });
    expect(byNumber.get(23)).toMatchObject({ sessions: 1, costStatus: 'complete', unpricedModels: [] });
  });

  it('the PR and its export: the sum and each session say whether their cost is whole', async () => {
    const r = await g.gw.call('GET', '/v1/prs/acme/api/21', as());
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ costStatus: 'partial', unpricedModels: [UNKNOWN] });
    expect(
      r.body.data.sessionList.map((s: { costStatus: string; unpricedModels: string[] }) => [
        s.costStatus,
        s.unpricedModels,
      ]),
    ).toEqual([
      ['complete', []],
      ['unpriced', [UNKNOWN]],
      ['partial', [UNKNOWN]],
    ]);
    const csv = await g.gw.call('GET', '/v1/prs/acme/api/21/export?format=csv', as());
    expect(csv.status).toBe(200);
    const lines = csv.text.split('\r\n');
    expect(lines[0]).toBe('kind,id,at,name,status,costUsd,linkedBy,agentType,sessionId,url,detail');
    // status is the fifth column, after the title (which may hold commas, so read from the line's ends).
    const sessionLines = lines.filter((l) => l.startsWith('session,'));
    expect(
      sessionLines.map((l) => [
        /^session,[^,]+,[^,]+,.*,(complete|partial|unpriced),[\d.]+,session,/.exec(l)?.[1],
        l.slice(l.lastIndexOf(',') + 1),
      ]),
    ).toEqual([
      ['complete', ''],
      ['unpriced', `no price: ${UNKNOWN}`],
      ['partial', `no price: ${UNKNOWN}`],
    ]);
  });
});
