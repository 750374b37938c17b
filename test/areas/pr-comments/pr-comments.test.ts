// The living PR comment (issue 18) against the GitHub double: one comment per pull request and factory,
// created on the first evidence and edited in place, debounced, durable across restarts, safe with two
// replicas, retried through GitHub failures, inert user text, signed image URLs, and nothing of another
// factory. Jobs run when the test says so (app.attest.jobs.runDueJobs()) on the test clock.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateAppKeys, GitHubDouble, type DoubleInstallation } from '../../github-double/server.js';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { artifactBody } from '../artifacts/helpers.js';
import { ingest, sessionDoc } from '../metrics/sessions.js';
import { deliver, pullRequestDelivery } from '../webhooks/github.js';
import * as jobs from '../../../src/areas/pr-comments/store.js';
import { LEASE_MS } from '../../../src/jobs/pr-comments/worker.js';
import {
  GITHUB_COMMENT_LIMIT,
  renderComment,
  type CommentData,
  type CommentSession,
} from '../../../src/jobs/pr-comments/render.js';
import { bindInstallation } from '../../github-double/setup.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const COMMENTS = '/repos/{owner}/{repo}/issues/{issue_number}/comments';
const COMMENT = '/repos/{owner}/{repo}/issues/comments/{comment_id}';

interface Env {
  gw: TestGateway;
  github: GitHubDouble;
  env: Record<string, string>;
  secret: string;
  installation: DoubleInstallation;
  close(): Promise<void>;
}

async function start(): Promise<Env> {
  const keys = generateAppKeys();
  const github = new GitHubDouble(keys.publicKey);
  await github.start();
  const secret = crypto.randomBytes(16).toString('hex');
  const env = {
    GITHUB_API_URL: github.url,
    GITHUB_APP_ID: String(github.appId),
    GITHUB_APP_PRIVATE_KEY: keys.privateKeyPem,
    GITHUB_WEBHOOK_SECRET: secret,
  };
  const gw = await startGateway({ env });
  const installation = github.addInstallation('acme');
  github.addRepository('acme/api', { installation });
  return {
    gw,
    github,
    env,
    secret,
    installation,
    close: async () => {
      await gw.close();
      await github.close();
    },
  };
}

const as = (t: Tenant) => ({ token: t.factoryKey, appId: t.appId });

async function commentingTenant(e: Env, gw: TestGateway = e.gw): Promise<Tenant> {
  const t = await createTenant(gw);
  await bindInstallation(gw, t.appId, e.installation.id);
  const c = await gw.call('POST', '/v1/repositories', {
    ...as(t),
    body: { repository: 'acme/api', installationId: e.installation.id },
  });
  expect(c.status).toBe(201);
  expect(
    (await gw.call('PATCH', `/v1/apps/${t.appId}`, { ...as(t), body: { pr_comment: 'on' } })).body.data.pr_comment,
  ).toBe('on');
  return t;
}

let branchCounter = 0;
function openPull(e: Env, title = 'Add login'): number {
  const branch = `feature/${++branchCounter}`;
  e.github.pushBranch('acme/api', branch, 1);
  return e.github.openPullAs('alice', 'acme/api', branch, title).number;
}

async function upload(gw: TestGateway, t: Tenant, number: number, fields: Record<string, unknown> = {}) {
  const res = await gw.call('POST', '/v1/artifacts', {
    ...as(t),
    body: artifactBody(PNG, { prNumber: number, ...fields }),
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; url: string };
}

/** Let the debounce pass, then run the due jobs as the server's loop would. */
async function settle(gw: TestGateway, ms = 60_000) {
  gw.clock.advance(ms);
  return gw.app.attest.jobs.runDueJobs();
}

const creates = (github: GitHubDouble, n: number) =>
  github.calls.filter(
    (c) => c.method === 'POST' && c.route === COMMENTS && c.path.endsWith(`/issues/${n}/comments`) && c.status === 201,
  ).length;
const edits = (github: GitHubDouble, ids: readonly number[]) =>
  github.calls.filter(
    (c) =>
      c.method === 'PATCH' &&
      c.route === COMMENT &&
      ids.some((id) => c.path.endsWith(`/comments/${id}`)) &&
      c.status === 200,
  ).length;
const marked = (github: GitHubDouble, n: number, appId: string, repo = 'acme/api') =>
  github.commentsOn(repo, n).filter((c) => c.body.includes(`<!-- attest:pr-comment factory=${appId} -->`));

describe('the living PR comment', () => {
  let e: Env;
  let t: Tenant;

  beforeAll(async () => {
    e = await start();
    t = await commentingTenant(e);
  });
  afterAll(async () => {
    await e?.close();
  });

  it('is created once on the first evidence, then edited in place; a person’s comment is left alone', async () => {
    const n = openPull(e);
    e.github.commentAs('alice', 'acme/api', n, 'LGTM once the screenshots are in');
    const first = await upload(e.gw, t, n, { caption: 'login page after the fix', criterionId: 'login-works' });
    expect((await settle(e.gw)).posted).toBe(1);
    let ours = marked(e.github, n, t.appId);
    expect(ours).toHaveLength(1);
    expect(creates(e.github, n)).toBe(1);
    expect(ours[0]!.user).toBe('attest-test-app[bot]');
    expect(ours[0]!.body).toContain('login page after the fix');
    expect(ours[0]!.body).toContain(`(${first.url})`);
    expect(ours[0]!.body).toContain(`http://attest.test/f/${t.appId}/prs/acme/api/${n}`);
    const id = ours[0]!.id;

    const emit = await e.gw.call('POST', '/v1/emitted-results', {
      ...as(t),
      body: {
        schemaVersion: 1,
        emit: {
          clientEmitId: crypto.randomUUID(),
          name: 'e2e-login',
          result: 'fail',
          link: 'https://ci.example/run/9',
          emittedAt: '2026-11-01T12:01:00Z',
          prNumber: n,
          repository: 'acme/api',
        },
      },
    });
    expect(emit.status, emit.text).toBe(201);
    expect((await settle(e.gw)).posted).toBe(1);
    ours = marked(e.github, n, t.appId);
    expect(ours.map((c) => c.id)).toEqual([id]);
    expect(creates(e.github, n)).toBe(1);
    expect(edits(e.github, [id])).toBe(1);
    expect(ours[0]!.body).toContain('**Checks passing: 0 of 1**');
    expect(ours[0]!.body).toContain('e2e\\-login');
    expect(e.github.commentsOn('acme/api', n).find((c) => c.user === 'alice')!.body).toBe(
      'LGTM once the screenshots are in',
    );

    // Nothing changed: a run renders the same body and leaves GitHub alone.
    await e.gw.call('PATCH', `/v1/apps/${t.appId}`, { ...as(t), body: { display_name: 'renamed' } });
    await deliver(
      { gw: e.gw, github: e.github, installation: e.installation, secret: e.secret, close: async () => undefined },
      'pull_request',
      pullRequestDelivery({
        repository: 'acme/api',
        number: n,
        title: 'Add login',
        head: `feature/${branchCounter}`,
        updatedAt: '2026-11-01T12:02:00Z',
        installationId: e.installation.id,
      }),
    );
    const before = e.github.calls.length;
    expect((await settle(e.gw)).claimed).toBe(1);
    expect(e.github.calls.slice(before).filter((c) => c.route === COMMENT || c.route === COMMENTS)).toEqual([]);
    expect(edits(e.github, [id])).toBe(1);
  });

  it('edits at most twice for a burst of 50 artifacts, even with the worker polling through the burst', async () => {
    const n = openPull(e);
    await upload(e.gw, t, n, { caption: 'first' });
    await settle(e.gw);
    const [comment] = marked(e.github, n, t.appId);
    expect(comment).toBeDefined();
    for (let i = 1; i <= 50; i++) {
      await upload(e.gw, t, n, { caption: `burst shot ${i}`, filename: `shot-${i}.png` });
      // The server's loop polls every 2 s; the burst sends one artifact every 500 ms.
      e.gw.clock.advance(500);
      if (i % 4 === 0) await e.gw.app.attest.jobs.runDueJobs();
    }
    await settle(e.gw);
    await settle(e.gw);
    const count = edits(e.github, [comment!.id]);
    expect(count).toBeGreaterThanOrEqual(1);
    expect(count).toBeLessThanOrEqual(2);
    expect(creates(e.github, n)).toBe(1);
    const body = marked(e.github, n, t.appId)[0]!.body;
    expect(body).toContain('burst shot 50');
    expect(body).toContain('#### Artifacts (51)');
  });

  it('makes one comment when two replicas on one store race for the same pull request', async () => {
    const replica = await startGateway({ replicaOf: e.gw, env: e.env });
    try {
      for (let round = 0; round < 3; round++) {
        const n = openPull(e);
        await upload(e.gw, t, n, { caption: `race ${round}` });
        e.gw.clock.advance(60_000);
        const [a, b] = await Promise.all([e.gw.app.attest.jobs.runDueJobs(), replica.app.attest.jobs.runDueJobs()]);
        expect(a.claimed + b.claimed).toBe(1);
        expect(marked(e.github, n, t.appId)).toHaveLength(1);
        expect(creates(e.github, n)).toBe(1);
      }
      // A duplicate of ours (a replica that lost its lease mid-create) is removed; the oldest stays.
      const n = openPull(e);
      await upload(e.gw, t, n, { caption: 'dup' });
      await settle(e.gw);
      const [kept] = marked(e.github, n, t.appId);
      e.github.commentAs(
        'attest-test-app[bot]',
        'acme/api',
        n,
        `<!-- attest:pr-comment factory=${t.appId} -->\nstale copy`,
      );
      await jobs.forgetComment(e.gw.app.attest.db, (await jobRow(e.gw, t.appId, n)).id);
      await upload(e.gw, t, n, { caption: 'dup 2' });
      await settle(replica);
      expect(marked(e.github, n, t.appId).map((c) => c.id)).toEqual([kept!.id]);
      expect(marked(e.github, n, t.appId)[0]!.body).toContain('dup 2');
    } finally {
      await replica.app.close();
    }
  });

  it('keeps user text inert: captions, checks, criteria, findings cannot link, embed, mention or inject', async () => {
    const n = openPull(e);
    const hostile =
      '[click](https://evil.example/x) ![i](https://evil.example/p.png) <img src=x onerror=alert(1)> ' +
      '<script>alert(1)</script> @octocat #1 acme/api#2 https://evil.example/y www.evil.example **bold** | cell\n# ' +
      'heading';
    await upload(e.gw, t, n, { caption: hostile, criterionId: 'c-1' });
    const item = await e.gw.call('POST', '/v1/work-items', {
      ...as(t),
      body: { tracker: 'github', trackerKey: `acme/api#${1000 + n}`, title: 'hostile', repository: 'acme/api' },
    });
    const itemId = item.body.data.id as string;
    expect(
      (
        await e.gw.call('POST', `/v1/work-items/${itemId}/pull-requests`, {
          ...as(t),
          body: { repository: 'acme/api', number: n },
        })
      ).status,
    ).toBeLessThan(300);
    expect(
      (
        await e.gw.call('PUT', `/v1/work-items/${itemId}/criteria`, {
          ...as(t),
          body: {
            criteria: [
              { id: 'c-1', text: hostile },
              { id: 'c-2', text: 'unproven' },
            ],
          },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await e.gw.call('POST', `/v1/work-items/${itemId}/findings`, {
          ...as(t),
          body: { source: hostile.slice(0, 100), about: 'change', severity: 'high', title: hostile.slice(0, 400) },
        })
      ).status,
    ).toBe(201);
    await settle(e.gw);
    const body = marked(e.github, n, t.appId)[0]!.body;
    for (const bad of [
      '<img',
      '<script',
      '](https://evil',
      'https://evil',
      'www.evil',
      '@octocat',
      '#1 ',
      'api#2',
      '**bold**',
      '\n# heading',
    ]) {
      expect(body, bad).not.toContain(bad);
    }
    // Still readable: the words are there, escaped.
    expect(body).toContain('\\[click\\]');
    expect(body).toContain('&lt;script&gt;');
    // The criterion proven by the artifact is ticked, the other not; the high finding counts.
    expect(body).toContain('**Criteria proven: 1 of 2**');
    expect(body).toMatch(/- \[x\] .*item \d+, c\\-1/);
    expect(body).toMatch(/- \[ \] unproven/);
    expect(body).toContain('**Open high or critical findings: 1**');
  });

  it('posts nothing while the setting is off, and stops when it is turned off', async () => {
    const off = await createTenant(e.gw);
    await bindInstallation(e.gw, off.appId, e.installation.id);
    expect(
      (
        await e.gw.call('POST', '/v1/repositories', {
          ...as(off),
          body: { repository: 'acme/api', installationId: e.installation.id },
        })
      ).status,
    ).toBe(201);
    expect((await e.gw.call('GET', `/v1/apps/${off.appId}`, as(off))).body.data.pr_comment).toBe('off');
    const n = openPull(e);
    await upload(e.gw, off, n, { caption: 'never posted' });
    expect((await settle(e.gw)).claimed).toBe(0);
    expect(e.github.commentsOn('acme/api', n)).toEqual([]);

    // On, evidence arrives, then off before the run: the run posts nothing.
    await e.gw.call('PATCH', `/v1/apps/${off.appId}`, { ...as(off), body: { pr_comment: 'on' } });
    await upload(e.gw, off, n, { caption: 'still never' });
    await e.gw.call('PATCH', `/v1/apps/${off.appId}`, { ...as(off), body: { pr_comment: 'off' } });
    expect((await settle(e.gw)).skipped).toBe(1);
    expect(e.github.commentsOn('acme/api', n)).toEqual([]);
  });

  it('retries GitHub 5xx, 429 and secondary rate limits with backoff, then posts', async () => {
    const n = openPull(e);
    e.github.fail(new RegExp(`^GET /repos/acme/api/issues/${n}/comments$`), { kind: 'status', status: 502 });
    e.github.fail(new RegExp(`^GET /repos/acme/api/issues/${n}/comments$`), {
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '120' },
    });
    e.github.fail(new RegExp(`^POST /repos/acme/api/issues/${n}/comments$`), {
      kind: 'status',
      status: 403,
      headers: { 'retry-after': '30' },
      body: { message: 'You have exceeded a secondary rate limit.', documentation_url: 'https://docs.github.com' },
    });
    await upload(e.gw, t, n, { caption: 'eventually' });
    expect((await settle(e.gw)).retried).toBe(1); // 502: backoff 10 s
    const app = await e.gw.call('GET', `/v1/apps/${t.appId}`, as(t));
    expect(app.body.data.pr_comment_problem).toMatchObject({
      code: 'github_unavailable',
      repository: 'acme/api',
      number: n,
    });
    expect((await settle(e.gw, 9_000)).claimed).toBe(0);
    expect((await settle(e.gw, 2_000)).retried).toBe(1); // 429 Retry-After 120 s beats the 20 s backoff
    expect((await settle(e.gw, 110_000)).claimed).toBe(0);
    expect((await settle(e.gw, 11_000)).retried).toBe(1); // secondary limit on create: Retry-After 30 s < 40 s backoff
    expect((await settle(e.gw, 39_000)).claimed).toBe(0);
    expect((await settle(e.gw, 2_000)).posted).toBe(1);
    expect(marked(e.github, n, t.appId)).toHaveLength(1);
    expect(creates(e.github, n)).toBe(1);
    // Posted: the problem is gone from the factory's read.
    expect((await e.gw.call('GET', `/v1/apps/${t.appId}`, as(t))).body.data.pr_comment_problem).toBeNull();
  });

  it('never shows another factory’s evidence: each factory keeps its own comment', async () => {
    const other = await commentingTenant(e);
    const n = openPull(e);
    await upload(e.gw, t, n, { caption: 'OURS-ONLY' });
    await upload(e.gw, other, n, { caption: 'THEIRS-ONLY' });
    const theirEmit = await e.gw.call('POST', '/v1/emitted-results', {
      ...as(other),
      body: {
        schemaVersion: 1,
        emit: {
          clientEmitId: crypto.randomUUID(),
          name: 'their-check',
          result: 'pass',
          link: 'https://ci.example/theirs',
          emittedAt: '2026-11-01T12:01:00Z',
          prNumber: n,
          repository: 'acme/api',
        },
      },
    });
    expect(theirEmit.status, theirEmit.text).toBe(201);
    await settle(e.gw);
    const ours = marked(e.github, n, t.appId);
    const theirs = marked(e.github, n, other.appId);
    expect(ours).toHaveLength(1);
    expect(theirs).toHaveLength(1);
    expect(ours[0]!.body).toContain('OURS\\-ONLY');
    for (const leak of ['THEIRS', 'their\\-check', other.appId]) expect(ours[0]!.body).not.toContain(leak);
    expect(theirs[0]!.body).toContain('THEIRS\\-ONLY');
    for (const leak of ['OURS', t.appId]) expect(theirs[0]!.body).not.toContain(leak);
  });

  it('serves screenshots through signed URLs: only that artifact, only until they expire, logged', async () => {
    const n = openPull(e);
    const shot = await upload(e.gw, t, n, { caption: 'signed' });
    const other = await upload(e.gw, t, n, { caption: 'other', mediaType: 'text/plain', filename: 'log.txt' });
    await settle(e.gw);
    const body = marked(e.github, n, t.appId)[0]!.body;
    const match = /\]\((http:\/\/attest\.test(\/v1\/artifacts\/[0-9a-f-]+\/content\?[^)]+))\)/.exec(body);
    expect(match).not.toBeNull();
    const path = match![2]!;
    expect(path).toContain(`/v1/artifacts/${shot.id}/content?appId=${t.appId}&exp=`);
    expect(body).not.toContain(`/v1/artifacts/${other.id}/content`); // a log is linked, not embedded
    const ok = await e.gw.call('GET', path);
    expect(ok.status).toBe(200);
    expect(Buffer.from(ok.text, 'latin1').length).toBe(PNG.length);
    const query = new URL(path, 'http://x').searchParams;
    const exp = Number(query.get('exp'));
    // Valid 7 to 8 days from now (the test clock), rounded to a whole day.
    const nowS = e.gw.clock.now() / 1000;
    expect(exp - nowS).toBeGreaterThan(7 * 86400);
    expect(exp - nowS).toBeLessThanOrEqual(8 * 86400);
    expect(exp % 86400).toBe(0);

    const refuse = async (p: string) => {
      const r = await e.gw.call('GET', p);
      expect(r.status, p).toBe(401);
      expect(r.body.error.code).toBe('unauthorized');
    };
    await refuse(path.replace(shot.id, other.id)); // the signature opens only its artifact
    await refuse(path.replace(/sig=([A-Za-z0-9_-])/, (_m, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`));
    await refuse(path.replace(/exp=\d+/, `exp=${exp + 86400}`));
    const stranger = await createTenant(e.gw);
    await refuse(path.replace(t.appId, stranger.appId));
    // Without a signature the route is as before: a credential is needed.
    await refuse(`/v1/artifacts/${shot.id}/content`);
    expect((await e.gw.call('GET', `/v1/artifacts/${shot.id}/content`, as(t))).status).toBe(200);
    e.gw.clock.advance((exp - nowS + 1) * 1000);
    await refuse(path);
  });

  it('reports a missing permission on the factory read and the repository list, never silently', async () => {
    const lagging = e.github.addInstallation('lag', { contents: 'read', metadata: 'read', pull_requests: 'read' });
    e.github.addRepository('lag/app', { installation: lagging });
    const l = await createTenant(e.gw);
    await bindInstallation(e.gw, l.appId, lagging.id);
    expect(
      (
        await e.gw.call('POST', '/v1/repositories', {
          ...as(l),
          body: { repository: 'lag/app', installationId: lagging.id },
        })
      ).status,
    ).toBe(201);
    await e.gw.call('PATCH', `/v1/apps/${l.appId}`, { ...as(l), body: { pr_comment: 'on' } });
    e.github.pushBranch('lag/app', 'feat', 1);
    const n = e.github.openPullAs('bob', 'lag/app', 'feat', 'x').number;
    await upload(e.gw, l, n, { repository: 'lag/app', caption: 'cannot post' });
    expect((await settle(e.gw)).failed).toBe(1);
    expect(e.github.commentsOn('lag/app', n)).toEqual([]);
    const app = await e.gw.call('GET', `/v1/apps/${l.appId}`, as(l));
    expect(app.body.data.pr_comment_problem).toMatchObject({
      code: 'missing_permission',
      repository: 'lag/app',
      number: n,
    });
    expect(app.body.data.pr_comment_problem.message).toContain('pull requests write');
    const repos = await e.gw.call('GET', '/v1/repositories', as(l));
    expect(repos.body.data[0]).toMatchObject({ repository: 'lag/app', commentWrite: 'pending' });
    // A pull request of a repository the factory never connected is a problem too.
    await upload(e.gw, l, 3, { repository: 'acme/unconnected', caption: 'x' });
    await settle(e.gw);
    expect((await e.gw.call('GET', `/v1/apps/${l.appId}`, as(l))).body.data.pr_comment_problem.code).toBe(
      'repository_not_connected',
    );
    // Accepting the permission and new evidence: it posts, and the problem clears for that pull request.
    lagging.permissions.pull_requests = 'write';
    e.github.revokeTokens();
    await upload(e.gw, l, n, { repository: 'lag/app', caption: 'now it posts' });
    expect((await settle(e.gw)).posted).toBe(1);
    expect(marked(e.github, n, l.appId, 'lag/app')).toHaveLength(1);
  });

  it('follows synced sessions linked to the pull request (cost and agent types) and PR webhooks', async () => {
    const n = openPull(e);
    const turn = { model: 'claude-sonnet-4-5', in: 1000, out: 500, cacheRead: 0 };
    await ingest(e.gw, as(t), [
      sessionDoc({ startedAt: '2026-11-01T09:00:00Z', repo: 'acme/api', branch: 'x', prNumber: n, turns: [turn] }),
      sessionDoc({ startedAt: '2026-11-01T10:00:00Z', repo: 'acme/api', branch: 'y', prLinked: [n], turns: [turn] }),
    ]);
    expect((await settle(e.gw)).posted).toBe(1);
    const detail = await e.gw.call('GET', `/v1/prs/acme/api/${n}`, as(t));
    const body = marked(e.github, n, t.appId)[0]!.body;
    expect(body).toContain(`**Sessions:** 2 (`);
    expect(body).toContain(`total cost $${detail.body.data.costUsd.toFixed(2)} · `);

    // A session with a model the price list does not know: the sum is no longer the PR's whole cost.
    await ingest(e.gw, as(t), [
      sessionDoc({
        startedAt: '2026-11-01T11:00:00Z',
        repo: 'acme/api',
        branch: 'z',
        prNumber: n,
        turns: [{ ...turn, model: 'mystery-model-9' }],
      }),
    ]);
    expect((await settle(e.gw)).posted).toBe(1);
    const after = await e.gw.call('GET', `/v1/prs/acme/api/${n}`, as(t));
    expect(after.body.data.costStatus).toBe('partial');
    const updated = marked(e.github, n, t.appId)[0]!.body;
    expect(updated).toContain(`**Sessions:** 3 (`);
    expect(updated).toContain(
      `total cost $${after.body.data.costUsd.toFixed(2)} (partial: no price for mystery\\-model\\-9) · `,
    ); // names escaped as every inline text
  });

  it('lists the sessions by title, each linked to its page with its own cost, and never by id', async () => {
    const n = openPull(e);
    // claude-sonnet-4-5 at $3 in and $15 out per million tokens: 100,000 × 3 + 20,000 × 15 = 600,000 µ$ a turn.
    const turn = { model: 'claude-sonnet-4-5', in: 100_000, out: 20_000, cacheRead: 0 };
    const untitled = sessionDoc({
      startedAt: '2026-11-02T09:00:00Z',
      repo: 'acme/api',
      branch: 'fix/parser',
      prNumber: n,
      turns: [turn, turn],
    });
    const titled = sessionDoc({
      startedAt: '2026-11-02T10:00:00Z',
      repo: 'acme/api',
      branch: 'fix/parser',
      prNumber: n,
      title: 'Fix the parser [see](https://evil.example/x) @octocat',
      turns: [turn],
    });
    const unpriced = sessionDoc({
      startedAt: '2026-11-02T11:00:00Z',
      repo: 'acme/api',
      branch: 'fix/parser',
      prNumber: n,
      title: 'Try the new model',
      turns: [{ ...turn, model: 'mystery-model-9' }],
    });
    await ingest(e.gw, as(t), [untitled, titled, unpriced]);
    expect((await settle(e.gw)).posted).toBe(1);
    const body = marked(e.github, n, t.appId)[0]!.body;
    // The page is the gateway's trace id (the PR read's traceId), not the id the session was sent with.
    const read = await e.gw.call('GET', `/v1/prs/acme/api/${n}`, as(t));
    const traces = read.body.data.sessionList as { traceId: string; sessionId: string }[];
    const traceOf = (doc: Record<string, unknown>) => traces.find((s) => s.sessionId === doc.id)!.traceId;
    const page = (doc: Record<string, unknown>) => `http://attest.test/f/${t.appId}/sessions/${traceOf(doc)}`;
    // One human turn and two assistant turns, no title sent: the title derived at ingest, oldest first.
    const lines = body.split('\n').filter((l) => l.startsWith('- ') && l.includes('/sessions/'));
    expect(lines).toEqual([
      `- [claude\\-code on fix/parser · 3 turns](${page(untitled)}) · $1.20`,
      `- [Fix the parser \\[see\\]\\(https\\:\u200b//evil\\.example/x\\) @\u200boctocat](${page(titled)}) · $0.60`,
      `- [Try the new model](${page(unpriced)}) · unpriced`,
    ]);
    // The ids are only in the link destinations, never in the text a reader sees.
    const visible = lines.map((l) => l.replace(/\]\([^)]*\)/g, ']')).join('\n');
    expect(visible).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i);
    for (const doc of [untitled, titled, unpriced]) {
      expect(visible).not.toContain(doc.id as string);
      expect(visible).not.toContain(traceOf(doc));
    }
    expect(body).not.toContain('](https://evil');
    expect(body).not.toContain('@octocat');
  });
});

async function jobRow(gw: TestGateway, appId: string, number: number): Promise<jobs.JobRow> {
  const rows = await jobs.listJobs(gw.app.attest.db, appId, 1000);
  const row = rows.find((r) => Number(r.number) === number);
  if (!row) throw new Error(`no job for #${number}`);
  return row;
}

describe('a restart in the middle of a pending update', () => {
  it('still posts: the job is a row, and a dead replica’s lease runs out', async () => {
    const e = await start();
    const t = await commentingTenant(e);
    const n = openPull(e);
    await upload(e.gw, t, n, { caption: 'survives restarts' });
    // The replica took the job and died mid-run.
    e.gw.clock.advance(60_000);
    const row = await jobRow(e.gw, t.appId, n);
    expect(await jobs.claim(e.gw.app.attest.db, row.id, 'dead-replica', e.gw.clock.now(), LEASE_MS)).not.toBeNull();
    await e.gw.app.close();
    const restarted = await startGateway({ replicaOf: e.gw, env: e.env });
    try {
      expect((await restarted.app.attest.jobs.runDueJobs()).claimed).toBe(0); // the lease still holds
      restarted.clock.advance(LEASE_MS);
      expect((await restarted.app.attest.jobs.runDueJobs()).posted).toBe(1);
      expect(marked(e.github, n, t.appId)).toHaveLength(1);
      expect(marked(e.github, n, t.appId)[0]!.body).toContain('survives restarts');
      // Pending and never claimed, then a restart: posted by the new process too.
      const m = openPull(e);
      await upload(restarted, t, m, { caption: 'pending at shutdown' });
      await restarted.app.close();
      const again = await startGateway({ replicaOf: e.gw, env: e.env });
      try {
        expect((await settle(again)).posted).toBe(1);
        expect(marked(e.github, m, t.appId)[0]!.body).toContain('pending at shutdown');
      } finally {
        await again.app.close();
      }
    } finally {
      await restarted.app.close();
      await e.close();
    }
  });
});

describe('the comment body', () => {
  const base: CommentData = {
    appId: '00000000-0000-4000-8000-000000000001',
    dashboardUrl: 'http://attest.test/f/x/prs/acme/api/1',
    sessions: { count: 0, agentTypes: [], costUsd: 0, costStatus: 'complete', unpricedModels: [], list: [] },
    artifacts: [],
    checks: [],
    criteria: [],
    findings: [],
  };

  it('is cut at 65,536 characters with a line that points to the dashboard', () => {
    const artifacts = Array.from({ length: 2000 }, (_, i) => ({
      id: `a${i}`,
      kind: 'log',
      caption: `caption ${i} ${'x'.repeat(400)}`,
      filename: 'f',
      criterionId: null,
      pageUrl: `http://attest.test/artifacts/a${i}`,
      imageUrl: null,
    }));
    const body = renderComment({ ...base, artifacts });
    expect(body.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(body.length).toBeGreaterThan(GITHUB_COMMENT_LIMIT - 1000);
    expect(body.startsWith(`<!-- attest:pr-comment factory=${base.appId} -->`)).toBe(true);
    expect(body).toContain('cut here');
    expect(body).toContain('[See the dashboard](http://attest.test/f/x/prs/acme/api/1) for the rest.');
    expect(body).toContain('caption 0 ');
    expect(body).not.toContain('caption 1999 ');
    // A short body is not cut.
    expect(renderComment({ ...base, artifacts: artifacts.slice(0, 3) })).not.toContain('cut here');
  });

  it('says when the total cost is not whole, and which models had no price', () => {
    const sessions = { count: 2, agentTypes: [], costUsd: 1.5, list: [] };
    expect(renderComment({ ...base, sessions: { ...sessions, costStatus: 'complete', unpricedModels: [] } })).toContain(
      'total cost $1.50 · ',
    );
    expect(
      renderComment({ ...base, sessions: { ...sessions, costStatus: 'partial', unpricedModels: ['m-1', 'm-2'] } }),
    ).toContain('total cost $1.50 (partial: no price for m\\-1, m\\-2) · ');
    expect(
      renderComment({
        ...base,
        sessions: { ...sessions, costUsd: 0, costStatus: 'unpriced', unpricedModels: ['<m>'] },
      }),
    ).toContain('total cost unknown (no price for &lt;m&gt;) · ');
    const many = Array.from({ length: 7 }, (_, i) => `m${i}`);
    expect(
      renderComment({ ...base, sessions: { ...sessions, costStatus: 'partial', unpricedModels: many } }),
    ).toContain('(partial: no price for m0, m1, m2, m3, m4, …) · ');
  });

  const session = (i: number, over: Partial<CommentSession> = {}): CommentSession => ({
    title: `session ${i}`,
    pageUrl: `http://attest.test/f/x/sessions/s${i}`,
    costUsd: 0.25,
    costStatus: 'complete',
    ...over,
  });
  const withSessions = (list: CommentSession[]): CommentData => ({
    ...base,
    sessions: { count: list.length, agentTypes: [], costUsd: 0, costStatus: 'complete', unpricedModels: [], list },
  });

  it('lists each session by its escaped title with its own cost; a hostile title stays text', () => {
    const hostile = '[x](https://evil.example/y) <img src=x onerror=alert(1)> @octocat #1 **b** | c';
    const body = renderComment(
      withSessions([
        session(1, { title: hostile, costStatus: 'partial', costUsd: 1.5 }),
        session(2, { title: null, costStatus: 'unpriced', costUsd: 0 }),
      ]),
    );
    const lines = body.split('\n').filter((l) => l.startsWith('- '));
    expect(lines).toEqual([
      '- [\\[x\\]\\(https\\:\u200b//evil\\.example/y\\) ' +
        '&lt;img src\\=x onerror\\=alert\\(1\\)&gt; @\u200boctocat \\#\u200b1 \\*\\*b\\*\\* \\| c]' +
        '(http://attest.test/f/x/sessions/s1) · $1.50 (partial)',
      '- [untitled session](http://attest.test/f/x/sessions/s2) · unpriced',
    ]);
    for (const bad of ['<img', '](https://evil', '@octocat', '**b**']) expect(body, bad).not.toContain(bad);
    expect(lines.join('\n')).not.toContain('$0.00'); // an unpriced session has no dollar figure
    // The same inputs give the same bytes (the worker skips an edit when the body's hash is unchanged).
    expect(renderComment(withSessions([session(1, { title: hostile })]))).toBe(
      renderComment(withSessions([session(1, { title: hostile })])),
    );
  });

  it('lists at most 10 sessions, then counts the rest, and stays within the limit', () => {
    const body = renderComment(withSessions(Array.from({ length: 25 }, (_, i) => session(i + 1))));
    const lines = body.split('\n').filter((l) => l.startsWith('- '));
    expect(lines).toHaveLength(11);
    expect(lines[0]).toBe('- [session 1](http://attest.test/f/x/sessions/s1) · $0.25');
    expect(lines[9]).toBe('- [session 10](http://attest.test/f/x/sessions/s10) · $0.25');
    expect(lines[10]).toBe('- +15 more on the [PR page](http://attest.test/f/x/prs/acme/api/1)');
    expect(body).not.toContain('session 11');
    // Two thousand sessions with long titles full of characters that escaping lengthens: still one comment.
    const long = Array.from({ length: 2000 }, (_, i) => session(i, { title: `<&>[]`.repeat(100) }));
    const big = renderComment(withSessions(long));
    expect(big.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(big).toContain('- +1990 more on the [PR page]');
    expect(big).not.toContain('cut here');
  });
});
