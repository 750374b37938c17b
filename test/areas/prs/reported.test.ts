// Issue 45 §4: POST /v1/prs/reported, PR state the CLI read with `gh pr view` at sync, and which source wins:
// a CLI report fills a PR nobody reported, a newer report replaces an older one, and the GitHub App's webhook
// replaces a report however new, which no report replaces again. The PR reads say where their state came from
// (stateSource) and whether the factory has an App to hear from (githubApp).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../helpers/gateway.js';
import { foreignCallers, siblingFactory } from '../../helpers/cross-tenant.js';
import {
  connectRepository,
  deliver,
  pullRequestDelivery,
  startWithGithub,
  type GithubGateway,
} from '../webhooks/github.js';
import { ingest, sessionDoc } from '../metrics/sessions.js';

const turn = { model: 'claude-sonnet-4-5', in: 100, out: 10 };
const SHA = 'ab'.repeat(20);

function report(
  number: number,
  state: 'open' | 'closed' | 'merged',
  updatedAt: string,
  extra: Record<string, unknown> = {},
) {
  return {
    repository: 'acme/api',
    number,
    url: `https://github.com/acme/api/pull/${number}`,
    title: `Report ${number}`,
    state,
    author: 'dev',
    branch: `feat/${number}`,
    baseBranch: 'main',
    headSha: SHA,
    openedAt: '2026-10-01T08:00:00Z',
    updatedAt,
    closedAt: state === 'open' ? null : updatedAt,
    mergedAt: state === 'merged' ? updatedAt : null,
    ...extra,
  };
}

describe('POST /v1/prs/reported', () => {
  let g: GithubGateway;
  let bound: Tenant; // an installation bound: the App speaks for its PRs
  let unbound: Tenant; // the App is configured on the gateway, not bound to this factory
  let other: Tenant;
  const as = (t: Tenant, token = t.factoryKey) => ({ token, appId: t.appId });
  const send = (t: Tenant, pullRequests: unknown[], token = t.factoryKey) =>
    g.gw.call('POST', '/v1/prs/reported', { ...as(t, token), body: { pullRequests } });
  const outcome = async (t: Tenant, number: number) => {
    const r = await g.gw.call('GET', '/v1/prs/outcomes?limit=100', as(t));
    expect(r.status).toBe(200);
    return { githubApp: r.body.githubApp, pr: r.body.data.find((p: { number: number }) => p.number === number) };
  };

  beforeAll(async () => {
    g = await startWithGithub();
    bound = await createTenant(g.gw);
    unbound = await createTenant(g.gw);
    other = await createTenant(g.gw);
    await connectRepository(g, bound, 'acme/api');
    for (const t of [bound, unbound]) {
      await ingest(
        g.gw,
        as(t),
        [21, 22].map((n) =>
          sessionDoc({
            startedAt: '2026-10-01T09:00:00Z',
            repo: 'acme/api',
            branch: `feat/${n}`,
            prNumber: n,
            turns: [turn],
          }),
        ),
      );
    }
  });
  afterAll(async () => {
    await g?.close();
  });

  it('stores a report as the PR state, from the CLI, where no App speaks for the PR', async () => {
    const before = await outcome(unbound, 21);
    expect(before).toMatchObject({ githubApp: 'not_bound', pr: { state: 'unknown', merged: null, stateSource: null } });
    const r = await send(unbound, [
      report(21, 'merged', '2026-10-05T10:00:00Z'),
      report(22, 'open', '2026-10-02T10:00:00Z'),
    ]);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ stored: 2, ignored: 0 });
    expect((await outcome(unbound, 21)).pr).toMatchObject({
      state: 'merged',
      merged: true,
      reverted: false,
      title: 'Report 21',
      mergedAt: '2026-10-05T10:00:00.000Z',
      stateSource: 'cli',
    });
    const detail = await g.gw.call('GET', '/v1/prs/acme/api/21', as(unbound));
    expect(detail.body.data).toMatchObject({
      headSha: SHA,
      branch: 'feat/21',
      stateSource: 'cli',
      githubApp: 'not_bound',
    });
  });

  it('a newer report replaces an older one; an older one is ignored', async () => {
    expect((await send(unbound, [report(21, 'open', '2026-10-04T10:00:00Z')])).body.data).toEqual({
      stored: 0,
      ignored: 1,
    });
    expect((await outcome(unbound, 21)).pr.state).toBe('merged');
    expect((await send(unbound, [report(22, 'closed', '2026-10-06T10:00:00Z')])).body.data).toEqual({
      stored: 1,
      ignored: 0,
    });
    expect((await outcome(unbound, 22)).pr).toMatchObject({ state: 'closed', merged: false, stateSource: 'cli' });
  });

  it("the App's webhook replaces a report however new, and no report replaces the webhook's state", async () => {
    expect((await send(bound, [report(21, 'merged', '2026-10-09T10:00:00Z')])).body.data).toEqual({
      stored: 1,
      ignored: 0,
    });
    expect(await outcome(bound, 21)).toMatchObject({
      githubApp: 'connected',
      pr: { state: 'merged', stateSource: 'cli' },
    });
    // An event older than the report: the App still wins, it is the source of record.
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery({
        repository: 'acme/api',
        number: 21,
        title: 'From the App',
        head: 'feat/21',
        updatedAt: '2026-10-03T10:00:00Z',
        installationId: g.installation.id,
      }),
    );
    expect((await outcome(bound, 21)).pr).toMatchObject({
      state: 'open',
      merged: false,
      title: 'From the App',
      stateSource: 'github_app',
    });
    expect((await send(bound, [report(21, 'merged', '2026-10-10T10:00:00Z')])).body.data).toEqual({
      stored: 0,
      ignored: 1,
    });
    expect((await outcome(bound, 21)).pr).toMatchObject({ state: 'open', stateSource: 'github_app' });
  });

  it('refuses a malformed report with 400, and changes nothing', async () => {
    for (const bad of [
      report(22, 'merged', '2026-10-20T10:00:00Z', { headSha: 'nope' }),
      report(22, 'merged', '2026-10-20T10:00:00Z', { url: 'javascript:alert(1)' }),
      report(22, 'merged', '2026-10-20T10:00:00Z', { repository: 'acme' }),
      report(22, 'MERGED' as 'merged', '2026-10-20T10:00:00Z'),
      report(0, 'merged', '2026-10-20T10:00:00Z'),
      { ...report(22, 'merged', '2026-10-20T10:00:00Z'), extra: 1 },
    ]) {
      const r = await send(unbound, [bad]);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error.code).toBe('invalid_request_body');
    }
    expect((await send(unbound, [])).status).toBe(400);
    expect((await outcome(unbound, 22)).pr.state).toBe('closed');
  });

  it('needs a credential that may write sessions', async () => {
    expect(
      (
        await g.gw.call('POST', '/v1/prs/reported', {
          appId: unbound.appId,
          body: { pullRequests: [report(22, 'open', '2026-10-30T10:00:00Z')] },
        })
      ).status,
    ).toBe(401);
    const minted = await g.gw.call('POST', '/v1/api-keys', {
      token: unbound.loginToken,
      appId: unbound.appId,
      body: { name: 'reader', preset: 'read-only' },
    });
    const r = await send(unbound, [report(22, 'open', '2026-10-30T10:00:00Z')], minted.body.data.plaintext_key);
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('forbidden');
    expect((await outcome(unbound, 22)).pr.state).toBe('closed');
  });

  it("another factory's report lands in that factory only", async () => {
    const sibling = await siblingFactory(g.gw, unbound);
    for (const [who, caller] of foreignCallers(other, sibling)) {
      const r = await g.gw.call('POST', '/v1/prs/reported', {
        ...caller,
        body: { pullRequests: [report(22, 'merged', '2026-11-01T10:00:00Z')] },
      });
      expect(r.status, who).toBe(200);
    }
    expect((await outcome(unbound, 22)).pr).toMatchObject({ state: 'closed', stateSource: 'cli' });
  });
});
