import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, type Tenant } from '../../helpers/gateway.js';
import {
  checkDelivery,
  connectRepository,
  deliver,
  exampleDelivery,
  pullRequestDelivery,
  sign,
  startWithGithub,
  type GithubGateway,
  type PullSpec,
} from './github.js';

describe('POST /v1/webhooks/github', () => {
  let g: GithubGateway;
  let t: Tenant;
  let other: Tenant;
  let twin: Tenant;
  const pr = (spec: Partial<PullSpec> & Pick<PullSpec, 'number' | 'updatedAt'>): PullSpec => ({
    repository: 'acme/api',
    title: `PR ${spec.number}`,
    head: `feature/${spec.number}`,
    installationId: g.installation.id,
    ...spec,
  });
  const read = (tenant: Tenant, number: number, repo = 'acme/api') =>
    g.gw.call('GET', `/v1/prs/${repo}/${number}`, { token: tenant.factoryKey, appId: tenant.appId });

  beforeAll(async () => {
    g = await startWithGithub();
    t = await createTenant(g.gw);
    other = await createTenant(g.gw);
    twin = await createTenant(g.gw);
    await connectRepository(g, t, 'acme/api');
    // A second factory connecting the same repository gets its own copy of the PR state.
    await connectRepository(g, twin, 'acme/api');
  });
  afterAll(async () => {
    await g?.close();
  });

  it('refuses deliveries whose signature does not verify', async () => {
    const payload = pullRequestDelivery(pr({ number: 1, updatedAt: '2026-10-01T10:00:00Z' }));
    const raw = JSON.stringify(payload);
    const cases: Record<string, string>[] = [
      {},
      { 'x-hub-signature-256': sign('not-the-secret', raw) },
      { 'x-hub-signature-256': sign(g.secret, `${raw} `) },
      { 'x-hub-signature-256': sign(g.secret, raw).replace('sha256=', 'sha1=') },
      { 'x-hub-signature-256': 'sha256=zz' },
    ];
    for (const headers of cases) {
      const r = await g.gw.call('POST', '/v1/webhooks/github', {
        raw,
        headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', ...headers },
      });
      expect(r.status, JSON.stringify(headers)).toBe(401);
      expect(r.body.error.code).toBe('invalid_signature');
    }
    expect((await read(t, 1)).status).toBe(404);
  });

  it('refuses every delivery when no webhook secret is configured', async () => {
    const bare = await startGateway();
    try {
      const raw = JSON.stringify(exampleDelivery('check_suite', 'completed'));
      const r = await bare.call('POST', '/v1/webhooks/github', {
        raw,
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'check_suite',
          'x-hub-signature-256': sign('', raw),
        },
      });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('invalid_signature');
    } finally {
      await bare.close();
    }
  });

  it('acknowledges other events, and answers 400 for a signed but malformed delivery', async () => {
    const ping = await deliver(g, 'ping', { zen: 'Keep it logically awesome.', hook_id: 1 });
    expect(ping.status).toBe(200);
    expect(ping.body.data).toEqual({ event: 'ping', action: null, handled: false, repository: null, factories: 0 });

    const raw = '{"action":';
    const broken = await g.gw.call('POST', '/v1/webhooks/github', {
      raw,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'pull_request',
        'x-hub-signature-256': sign(g.secret, raw),
      },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_json');

    const huge = 'x'.repeat(5 * 1024 * 1024 + 1);
    const tooLarge = await g.gw.call('POST', '/v1/webhooks/github', {
      raw: huge,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'pull_request',
        'x-hub-signature-256': sign(g.secret, huge),
      },
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error).toMatchObject({ code: 'payload_too_large', limit: 5 * 1024 * 1024 });

    const noEvent = await g.gw.call('POST', '/v1/webhooks/github', {
      raw: '{}',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(g.secret, '{}') },
    });
    expect(noEvent.status).toBe(400);
    expect(noEvent.body.error.code).toBe('invalid_request_body');

    const payload = pullRequestDelivery(pr({ number: 2, updatedAt: '2026-10-01T10:00:00Z' }));
    delete (payload.pull_request as Record<string, unknown>).head;
    const partial = await deliver(g, 'pull_request', payload);
    expect(partial.status).toBe(400);
    expect(partial.body.error.code).toBe('invalid_request_body');
  });

  it('tracks a pull request through opened, edited, closed+merged and ignores stale redeliveries', async () => {
    const opened = await deliver(
      g,
      'pull_request',
      pullRequestDelivery(pr({ number: 12, title: 'Fix rate limit', updatedAt: '2026-10-01T10:00:00Z' })),
    );
    expect(opened.status).toBe(200);
    expect(opened.body.data).toEqual({
      event: 'pull_request',
      action: 'opened',
      handled: true,
      repository: 'acme/api',
      factories: 2,
    });
    let state = await read(t, 12);
    expect(state.status).toBe(200);
    expect(state.body.data).toMatchObject({
      repository: 'acme/api',
      number: 12,
      url: 'https://github.com/acme/api/pull/12',
      title: 'Fix rate limit',
      branch: 'feature/12',
      baseBranch: 'main',
      state: 'open',
      merged: false,
      reverted: false,
      ciGreen: null,
      ci: 'unknown',
      sessions: 0,
      costUsd: 0,
      sessionList: [],
      mergedAt: null,
    });

    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(
        pr({ number: 12, title: 'Fix rate limit window', action: 'edited', updatedAt: '2026-10-01T11:00:00Z' }),
      ),
    );
    expect((await read(t, 12)).body.data.title).toBe('Fix rate limit window');

    const merged = await deliver(
      g,
      'pull_request',
      pullRequestDelivery(
        pr({
          number: 12,
          title: 'Fix rate limit window',
          state: 'closed',
          merged: true,
          updatedAt: '2026-10-02T09:00:00Z',
        }),
      ),
    );
    expect(merged.body.data.action).toBe('closed');
    state = await read(t, 12);
    expect(state.body.data).toMatchObject({
      state: 'merged',
      merged: true,
      mergedAt: '2026-10-02T09:00:00.000Z',
      closedAt: '2026-10-02T09:00:00.000Z',
    });

    // GitHub redelivers the older "edited" delivery: it must not reopen or rename the merged PR.
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(pr({ number: 12, title: 'Old title', action: 'edited', updatedAt: '2026-10-01T11:00:00Z' })),
    );
    expect((await read(t, 12)).body.data).toMatchObject({ state: 'merged', title: 'Fix rate limit window' });
    // The twin factory has the same state; the factory that did not connect the repository has none.
    expect((await read(twin, 12)).body.data.state).toBe('merged');
    expect((await read(other, 12)).status).toBe(404);
  });

  it('closes without merging and reopens', async () => {
    await deliver(g, 'pull_request', pullRequestDelivery(pr({ number: 20, updatedAt: '2026-10-03T10:00:00Z' })));
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(pr({ number: 20, state: 'closed', updatedAt: '2026-10-03T11:00:00Z' })),
    );
    expect((await read(t, 20)).body.data).toMatchObject({
      state: 'closed',
      merged: false,
      closedAt: '2026-10-03T11:00:00.000Z',
    });
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(pr({ number: 20, action: 'reopened', updatedAt: '2026-10-03T12:00:00Z' })),
    );
    expect((await read(t, 20)).body.data).toMatchObject({ state: 'open', merged: false });
  });

  it('detects reverts by number and by title, in either delivery order', async () => {
    // "Reverts acme/api#12", as GitHub's revert button writes it.
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(
        pr({
          number: 13,
          title: 'Revert "Fix rate limit window"',
          body: 'Reverts acme/api#12',
          state: 'closed',
          merged: true,
          updatedAt: '2026-10-04T10:00:00Z',
        }),
      ),
    );
    expect((await read(t, 12)).body.data).toMatchObject({ reverted: true, revertedBy: 13 });
    expect((await read(t, 13)).body.data).toMatchObject({ merged: true, reverted: false });

    // By title only, with the revert merged before the reverted PR's own delivery arrives.
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(
        pr({
          number: 31,
          title: 'Revert "Add cache layer"',
          state: 'closed',
          merged: true,
          updatedAt: '2026-10-06T10:00:00Z',
        }),
      ),
    );
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(
        pr({ number: 30, title: 'Add cache layer', state: 'closed', merged: true, updatedAt: '2026-10-05T10:00:00Z' }),
      ),
    );
    expect((await read(t, 30)).body.data).toMatchObject({ reverted: true, revertedBy: 31 });

    // An open (unmerged) revert PR reverts nothing yet; a revert naming another repository neither.
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(
        pr({ number: 40, title: 'Add metrics', state: 'closed', merged: true, updatedAt: '2026-10-07T10:00:00Z' }),
      ),
    );
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(
        pr({
          number: 41,
          title: 'Revert "Add metrics"',
          body: 'Reverts acme/api#40',
          updatedAt: '2026-10-07T11:00:00Z',
        }),
      ),
    );
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(
        pr({
          number: 42,
          title: 'cleanup',
          body: 'This reverts acme/web#40',
          state: 'closed',
          merged: true,
          updatedAt: '2026-10-07T12:00:00Z',
        }),
      ),
    );
    expect((await read(t, 40)).body.data).toMatchObject({ reverted: false, revertedBy: null });
    // An unmerged PR is never "reverted".
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(
        pr({ number: 43, title: 'Revert #20', state: 'closed', merged: true, updatedAt: '2026-10-07T13:00:00Z' }),
      ),
    );
    expect((await read(t, 20)).body.data.reverted).toBe(false);
  });

  it('derives ciGreen from check suites and check runs of the head commit', async () => {
    const headSha = 'c'.repeat(40);
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(pr({ number: 50, headSha, updatedAt: '2026-10-08T10:00:00Z' })),
    );
    const suite = { repository: 'acme/api', headSha, installationId: g.installation.id };
    await deliver(g, 'check_suite', checkDelivery('check_suite', { ...suite, id: 9001, status: 'queued' }));
    expect((await read(t, 50)).body.data).toMatchObject({ ci: 'pending', ciGreen: null });
    const done = await deliver(
      g,
      'check_suite',
      checkDelivery('check_suite', { ...suite, id: 9001, status: 'completed', conclusion: 'success' }),
    );
    expect(done.body.data).toMatchObject({ event: 'check_suite', action: 'completed', handled: true, factories: 2 });
    expect((await read(t, 50)).body.data).toMatchObject({ ci: 'green', ciGreen: true });

    // Once check runs exist they decide: one failed run makes it red, a re-run that passes makes it green.
    await deliver(
      g,
      'check_run',
      checkDelivery('check_run', { ...suite, id: 7001, status: 'completed', conclusion: 'success' }),
    );
    await deliver(
      g,
      'check_run',
      checkDelivery('check_run', { ...suite, id: 7002, status: 'completed', conclusion: 'failure' }),
    );
    expect((await read(t, 50)).body.data).toMatchObject({ ci: 'red', ciGreen: false });
    await deliver(
      g,
      'check_run',
      checkDelivery('check_run', { ...suite, id: 7002, status: 'completed', conclusion: 'success' }),
    );
    await deliver(g, 'check_run', checkDelivery('check_run', { ...suite, id: 7003, status: 'in_progress' }));
    expect((await read(t, 50)).body.data).toMatchObject({ ci: 'pending', ciGreen: null });
    await deliver(
      g,
      'check_run',
      checkDelivery('check_run', { ...suite, id: 7003, status: 'completed', conclusion: 'skipped' }),
    );
    expect((await read(t, 50)).body.data).toMatchObject({ ci: 'green', ciGreen: true });

    // A new head commit starts over.
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(
        pr({ number: 50, headSha: 'd'.repeat(40), action: 'synchronize', updatedAt: '2026-10-08T11:00:00Z' }),
      ),
    );
    expect((await read(t, 50)).body.data).toMatchObject({ headSha: 'd'.repeat(40), ci: 'unknown', ciGreen: null });
  });

  it('applies nothing for repositories no factory connected, or another installation', async () => {
    const stranger = await deliver(
      g,
      'pull_request',
      pullRequestDelivery(pr({ repository: 'someone/else', number: 1, updatedAt: '2026-10-01T10:00:00Z' })),
    );
    expect(stranger.status).toBe(200);
    expect(stranger.body.data).toMatchObject({ handled: true, factories: 0 });
    const otherInstallation = await deliver(
      g,
      'pull_request',
      pullRequestDelivery(
        pr({ number: 60, installationId: g.installation.id + 999, updatedAt: '2026-10-01T10:00:00Z' }),
      ),
    );
    expect(otherInstallation.body.data.factories).toBe(0);
    expect((await read(t, 60)).status).toBe(404);
    expect((await read(t, 1, 'someone/else')).status).toBe(404);
  });

  it('accepts the form-encoded delivery format', async () => {
    const payload = JSON.stringify(pullRequestDelivery(pr({ number: 70, updatedAt: '2026-10-09T10:00:00Z' })));
    const raw = new URLSearchParams({ payload }).toString();
    const r = await g.gw.call('POST', '/v1/webhooks/github', {
      raw,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-github-event': 'pull_request',
        'x-hub-signature-256': sign(g.secret, raw),
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.factories).toBe(2);
    expect((await read(t, 70)).body.data.state).toBe('open');
  });
});
