// PUT /v1/work-items/{workItemId}/pull-request through the real gateway, GITHUB_API_URL pointing at the
// GitHub double: every row of the spec's status table (part 4) and both transitions of part 3.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordLegacyClaim } from '../../../src/areas/work-items/claims.js';
import type { FactoryContext } from '../../../src/server/context.js';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { startGatewayWithGitHub, type GatewayWithGitHub } from '../../github-double/setup.js';
import type { DoubleInstallation, GitHubDouble } from '../../github-double/server.js';
import { bindInstallation } from '../../github-double/setup.js';

const PR = (title = 'Add the widget', body = 'Closes #1.\n\nEvidence attached.') => ({ title, body });

interface ClaimedItem {
  id: string;
  number: number;
  itemKey: string;
}

let counter = 0;

async function claimedItem(
  gw: TestGateway,
  t: Tenant,
  opts: { repository?: string | null; branch?: string; ttlSeconds?: number } = {},
): Promise<ClaimedItem> {
  const as = { token: t.factoryKey, appId: t.appId };
  const n = ++counter;
  const body: Record<string, unknown> = { tracker: 'github', trackerKey: `acme/api#${n}`, title: `Item ${n}` };
  if (opts.repository !== undefined) body.repository = opts.repository;
  else body.repository = 'acme/api';
  const item = await gw.call('POST', '/v1/work-items', { ...as, body });
  if (item.status !== 201) throw new Error(`create item: ${item.status} ${item.text}`);
  const claim = await gw.call('POST', `/v1/work-items/${item.body.data.id}/claims`, {
    ...as,
    body: { source: 'runner-1', branch: opts.branch ?? `attest/item-${n}`, ttlSeconds: opts.ttlSeconds ?? 86_400 },
  });
  if (claim.status !== 201) throw new Error(`claim: ${claim.status} ${claim.text}`);
  return { id: item.body.data.id, number: item.body.data.number, itemKey: claim.body.data.itemKey };
}

function put(
  gw: TestGateway,
  item: ClaimedItem,
  body: unknown = PR(),
  opts: { token?: string; appId?: string; path?: string } = {},
) {
  return gw.call('PUT', `/v1/work-items/${opts.path ?? item.id}/pull-request`, {
    token: opts.token ?? item.itemKey,
    ...(opts.appId ? { appId: opts.appId } : {}),
    body,
  });
}

async function linked(gw: TestGateway, t: Tenant, item: ClaimedItem) {
  const r = await gw.call('GET', `/v1/work-items/${item.id}/pull-requests`, { token: t.factoryKey, appId: t.appId });
  expect(r.status).toBe(200);
  return r.body.data as Array<{ repository: string; number: number; url: string }>;
}

function expectError(r: { status: number; body: { error?: { code?: string } } }, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.error?.code).toBe(code);
}

describe('PUT /v1/work-items/{workItemId}/pull-request', () => {
  let env: GatewayWithGitHub;
  let gw: TestGateway;
  let github: GitHubDouble;
  let a: Tenant;
  let b: Tenant;
  let installation: DoubleInstallation;

  beforeAll(async () => {
    env = await startGatewayWithGitHub();
    gw = env.gw;
    github = env.github;
    a = await createTenant(gw);
    b = await createTenant(gw);
    installation = github.addInstallation('acme');
    github.addRepository('acme/api', { installation });
    github.addRepository('acme/other', { installation });
    await bindInstallation(gw, a.appId, installation.id);
    const connected = await gw.call('POST', '/v1/repositories', {
      token: a.factoryKey,
      appId: a.appId,
      body: { repository: 'acme/api', installationId: installation.id },
    });
    expect(connected.status).toBe(201);
  });
  afterAll(async () => {
    await env?.close();
  });

  describe('transitions (spec part 3)', () => {
    it('no open PR on the branch → opens one from the claim branch to the default: 201 created=true', async () => {
      const item = await claimedItem(gw, a, { branch: 'feature/widget' });
      github.pushBranch('acme/api', 'feature/widget', 2);
      const r = await put(gw, item);
      expect(r.status).toBe(201);
      const open = github.openPulls('acme/api', 'feature/widget');
      expect(open).toHaveLength(1);
      const pr = open[0]!;
      expect(r.body).toEqual({
        data: {
          repository: 'acme/api',
          number: pr.number,
          url: `${github.url.replace('127.0.0.1', 'localhost')}/acme/api/pull/${pr.number}`,
          created: true,
        },
      });
      expect(pr).toMatchObject({
        head: 'feature/widget',
        base: 'main',
        title: 'Add the widget',
        body: 'Closes #1.\n\nEvidence attached.',
        user: 'attest-test-app[bot]',
      });
      expect(await linked(gw, a, item)).toEqual([
        expect.objectContaining({ repository: 'acme/api', number: pr.number, url: r.body.data.url }),
      ]);

      // The second transition: the open pull request gets the new title and body, 200 created=false.
      const again = await put(gw, item, PR('Add the widget, v2', 'Now with tests.'));
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual({ ...r.body.data, created: false });
      expect(github.openPulls('acme/api', 'feature/widget')).toHaveLength(1);
      expect(github.openPulls('acme/api', 'feature/widget')[0]).toMatchObject({
        title: 'Add the widget, v2',
        body: 'Now with tests.',
        base: 'main',
      });
      expect(await linked(gw, a, item)).toHaveLength(1);

      // PR attribution knows it at once (before any webhook), with the edited title.
      const attributed = await gw.call('GET', `/v1/prs/acme/api/${pr.number}`, { token: a.factoryKey, appId: a.appId });
      expect(attributed.status).toBe(200);
      expect(attributed.body.data).toMatchObject({
        repository: 'acme/api',
        number: pr.number,
        url: r.body.data.url,
        title: 'Add the widget, v2',
        branch: 'feature/widget',
        state: 'open',
        baseBranch: 'main',
        headSha: pr.headSha,
        author: 'attest-test-app[bot]',
      });
      expect(
        (await gw.call('GET', `/v1/prs/acme/api/${pr.number}`, { token: b.factoryKey, appId: b.appId })).status,
      ).toBe(404);
    });

    it('open PR on the branch by someone else → edits only title and body: 200 created=false, linked', async () => {
      const item = await claimedItem(gw, a, { branch: 'human/started' });
      github.pushBranch('acme/api', 'human/started', 1);
      const theirs = github.openPullAs('octocat', 'acme/api', 'human/started', 'WIP by a person');
      const r = await put(gw, item, PR('Finished by the build', 'Done.'));
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ repository: 'acme/api', number: theirs.number, created: false });
      expect(theirs).toMatchObject({ title: 'Finished by the build', body: 'Done.', user: 'octocat', state: 'open' });
      expect(github.openPulls('acme/api', 'human/started')).toHaveLength(1);
      expect((await linked(gw, a, item)).map((p) => p.number)).toEqual([theirs.number]);
    });

    it('addresses the item by its number too', async () => {
      const item = await claimedItem(gw, a);
      github.pushBranch('acme/api', `attest/item-${counter}`, 1);
      const r = await put(gw, item, PR(), { path: String(item.number) });
      expect(r.status).toBe(201);
    });
  });

  describe('retries never open two pull requests', () => {
    it('concurrent PUTs: one opens (201), the others edit it (200)', async () => {
      const item = await claimedItem(gw, a, { branch: 'race/one' });
      github.pushBranch('acme/api', 'race/one', 1);
      const results = await Promise.all([put(gw, item), put(gw, item), put(gw, item)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 200, 201]);
      expect(github.openPulls('acme/api', 'race/one')).toHaveLength(1);
      expect(new Set(results.map((r) => r.body.data.number)).size).toBe(1);
      expect(await linked(gw, a, item)).toHaveLength(1);
    });

    it('two gateway replicas on one store, PUTs racing on both: one pull request', async () => {
      const replica = await startGateway({
        replicaOf: gw,
        env: {
          GITHUB_API_URL: github.url,
          GITHUB_APP_ID: String(github.appId),
          GITHUB_APP_PRIVATE_KEY: gw.config.github.privateKey ?? '',
        },
      });
      try {
        const item = await claimedItem(gw, a, { branch: 'race/replicas' });
        github.pushBranch('acme/api', 'race/replicas', 1);
        const results = await Promise.all([put(gw, item), put(replica, item), put(gw, item), put(replica, item)]);
        expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 201]);
        expect(github.openPulls('acme/api', 'race/replicas')).toHaveLength(1);
        expect(await linked(gw, a, item)).toHaveLength(1);
      } finally {
        await replica.close();
      }
    });

    it('a create whose answer was lost: 503, and the retry edits the pull request GitHub did open', async () => {
      const item = await claimedItem(gw, a, { branch: 'race/lost' });
      github.pushBranch('acme/api', 'race/lost', 1);
      github.fail(/^POST \/repos\/acme\/api\/pulls$/, { kind: 'lost-answer' });
      const first = await put(gw, item);
      expectError(first, 503, 'github_unavailable');
      expect(first.headers['retry-after']).toBeDefined();
      expect(github.openPulls('acme/api', 'race/lost')).toHaveLength(1);
      const retry = await put(gw, item);
      expect(retry.status).toBe(200);
      expect(retry.body.data.created).toBe(false);
      expect(github.openPulls('acme/api', 'race/lost')).toHaveLength(1);
    });

    it('a create refused because one already exists (GitHub 422) is read again and edited', async () => {
      const item = await claimedItem(gw, a, { branch: 'race/exists' });
      github.pushBranch('acme/api', 'race/exists', 1);
      // The list the gateway reads first misses the pull request (opened between the list and the create).
      github.fail(/^GET \/repos\/acme\/api\/pulls$/, { kind: 'status', status: 200, body: [] });
      github.openPullAs('someone', 'acme/api', 'race/exists', 'Opened in between');
      const r = await put(gw, item, PR('Mine now'));
      expect(r.status).toBe(200);
      expect(r.body.data.created).toBe(false);
      expect(github.openPulls('acme/api', 'race/exists')).toEqual([
        expect.objectContaining({ title: 'Mine now', user: 'someone' }),
      ]);
      expect(
        github.calls.some((c) => c.method === 'POST' && c.path === '/repos/acme/api/pulls' && c.status === 422),
      ).toBe(true);
    });
  });

  it('renews a cached installation token GitHub no longer accepts, once, and carries on', async () => {
    const item = await claimedItem(gw, a, { branch: 'revoked/token' });
    github.pushBranch('acme/api', 'revoked/token', 1);
    const before = github.tokenRequests();
    github.revokeTokens();
    const r = await put(gw, item);
    expect(r.status).toBe(201);
    expect(github.tokenRequests()).toBe(before + 1);
    expect(github.calls.some((c) => c.status === 401 && c.path === '/repos/acme/api')).toBe(true);
  });

  it('spends five GitHub calls on a PUT with a cached token', async () => {
    const item = await claimedItem(gw, a, { branch: 'count/calls' });
    github.pushBranch('acme/api', 'count/calls', 1);
    await put(gw, item);
    const start = github.calls.length;
    expect((await put(gw, item, PR('again'))).status).toBe(200);
    // repository, branch, compare, list pulls by head, update.
    expect(github.calls.slice(start).map((c) => `${c.method} ${c.route}`)).toEqual([
      'GET /repos/{owner}/{repo}',
      'GET /repos/{owner}/{repo}/branches/{branch}',
      'GET /repos/{owner}/{repo}/compare/{basehead}',
      'GET /repos/{owner}/{repo}/pulls',
      'PATCH /repos/{owner}/{repo}/pulls/{pull_number}',
    ]);
  });

  describe('status table (spec part 4)', () => {
    it('400 for a body that is not an object with string title (1–256) and string body (≤ 65536)', async () => {
      const item = await claimedItem(gw, a);
      const bad: unknown[] = [
        'just a string',
        [],
        null,
        {},
        { title: 'x' },
        { body: 'x' },
        { title: '', body: 'x' },
        { title: 'x'.repeat(257), body: '' },
        { title: 'x', body: 'y'.repeat(65_537) },
        { title: 1, body: 'x' },
        { title: 'x', body: null },
        { title: 'x', body: 'y', branch: 'other' },
      ];
      for (const body of bad) {
        const r = await put(gw, item, body);
        expect(r.status, JSON.stringify(body).slice(0, 60)).toBe(400);
        expect(r.body.error.code).toBe('invalid_request_body');
      }
      const malformed = await gw.call('PUT', `/v1/work-items/${item.id}/pull-request`, {
        token: item.itemKey,
        raw: '{"title":',
        headers: { 'content-type': 'application/json' },
      });
      expect(malformed.status).toBe(400);
      expect(github.openPulls('acme/api', `attest/item-${counter}`)).toHaveLength(0);
      // The limits themselves are accepted.
      github.pushBranch('acme/api', `attest/item-${counter}`, 1);
      const edge = await put(gw, item, { title: 't'.repeat(256), body: 'b'.repeat(65_536) });
      expect(edge.status).toBe(201);
      const empty = await put(gw, item, { title: 't', body: '' });
      expect(empty.status).toBe(200);
    });

    it('401 for a missing, malformed or unknown credential', async () => {
      const item = await claimedItem(gw, a);
      expectError(await gw.call('PUT', `/v1/work-items/${item.id}/pull-request`, { body: PR() }), 401, 'unauthorized');
      expectError(await put(gw, item, PR(), { token: 'oli_nonsense' }), 401, 'unauthorized');
      const forged = item.itemKey.slice(0, 10) + (item.itemKey[10] === 'a' ? 'b' : 'a') + item.itemKey.slice(11);
      expectError(await put(gw, item, PR(), { token: forged }), 401, 'unauthorized');
    });

    it('403 for any credential other than an item key, even full-access, and for the key of another item', async () => {
      const item = await claimedItem(gw, a);
      github.pushBranch('acme/api', `attest/item-${counter}`, 1);
      const factoryKey = await put(gw, item, PR(), { token: a.factoryKey, appId: a.appId });
      expectError(factoryKey, 403, 'forbidden');
      expect(factoryKey.body.error.required_permission).toBe('item_key');
      expectError(await put(gw, item, PR(), { token: a.loginToken, appId: a.appId }), 403, 'forbidden');
      expectError(await put(gw, item, PR(), { token: a.managementKey }), 403, 'forbidden');
      expectError(await put(gw, item, PR(), { token: gw.adminToken }), 403, 'forbidden');
      const other = await claimedItem(gw, a);
      expectError(await put(gw, item, PR(), { token: other.itemKey }), 403, 'forbidden');
      expectError(await put(gw, item, PR(), { token: other.itemKey, path: String(item.number) }), 403, 'forbidden');
      expect(github.openPulls('acme/api', `attest/item-${counter - 1}`)).toHaveLength(0);
    });

    it("another factory's item key sees nothing (404) and changes nothing", async () => {
      const item = await claimedItem(gw, a);
      github.pushBranch('acme/api', `attest/item-${counter}`, 1);
      const foreign = await claimedItem(gw, b);
      expectError(await put(gw, item, PR(), { token: foreign.itemKey }), 404, 'work_item_not_found');
      expectError(await put(gw, item, PR(), { token: foreign.itemKey, appId: a.appId }), 401, 'unauthorized');
      expectError(await put(gw, item, PR(), { token: b.factoryKey, appId: b.appId }), 403, 'forbidden');
      expect(github.openPulls('acme/api', `attest/item-${counter - 1}`)).toHaveLength(0);
      expect(await linked(gw, a, item)).toEqual([]);
    });

    it('404 work_item_not_found for no such work item', async () => {
      const item = await claimedItem(gw, a);
      expectError(
        await put(gw, item, PR(), { path: '00000000-0000-4000-8000-000000000000' }),
        404,
        'work_item_not_found',
      );
      expectError(await put(gw, item, PR(), { path: '999999' }), 404, 'work_item_not_found');
    });

    it('409 work_item_withdrawn when the item is withdrawn', async () => {
      const item = await claimedItem(gw, a);
      github.pushBranch('acme/api', `attest/item-${counter}`, 1);
      expect(
        (await gw.call('POST', `/v1/work-items/${item.id}/withdraw`, { token: a.factoryKey, appId: a.appId })).status,
      ).toBe(200);
      expectError(await put(gw, item), 409, 'work_item_withdrawn');
      expect(github.openPulls('acme/api', `attest/item-${counter}`)).toHaveLength(0);
    });

    it('409 claim_has_no_branch for a lease recorded before claims named a branch', async () => {
      const created = await gw.call('POST', '/v1/work-items', {
        token: a.factoryKey,
        appId: a.appId,
        body: { tracker: 'github', trackerKey: 'acme/api#legacy', title: 'Legacy', repository: 'acme/api' },
      });
      const ctx: FactoryContext = {
        gateway: gw.app.attest,
        db: gw.app.attest.db,
        clock: gw.clock,
        config: gw.config,
        log: gw.app.log,
        requestId: 'test',
        orgId: a.orgId,
        appId: a.appId,
        principal: {
          kind: 'factory_key',
          credentialId: 'test',
          userId: a.ownerId,
          orgId: a.orgId,
          orgName: a.orgName,
          plan: 'enterprise',
          appId: a.appId,
          workItemId: null,
          role: null,
          permissions: new Set(),
          label: 'importer',
        },
      };
      const legacy = await recordLegacyClaim(ctx, created.body.data.id, {
        source: 'old-runner',
        claimedAt: gw.clock.now(),
        ttlSeconds: 3600,
      });
      const r = await gw.call('PUT', `/v1/work-items/${created.body.data.id}/pull-request`, {
        token: legacy.itemKey,
        body: PR(),
      });
      expectError(r, 409, 'claim_has_no_branch');
    });

    it('409 repository_permissions_pending until the installation accepts pull request write, then 201', async () => {
      const lagging = github.addInstallation('lag', { contents: 'read', metadata: 'read', pull_requests: 'read' });
      github.addRepository('lag/app', { installation: lagging });
      await bindInstallation(gw, a.appId, lagging.id);
      expect(
        (
          await gw.call('POST', '/v1/repositories', {
            token: a.factoryKey,
            appId: a.appId,
            body: { repository: 'lag/app', installationId: lagging.id },
          })
        ).status,
      ).toBe(201);
      const item = await claimedItem(gw, a, { repository: 'lag/app', branch: 'feat' });
      github.pushBranch('lag/app', 'feat', 1);
      expectError(await put(gw, item), 409, 'repository_permissions_pending');
      lagging.permissions.pull_requests = 'write';
      const r = await put(gw, item);
      expect(r.status).toBe(201);
      expect(r.body.data.repository).toBe('lag/app');
    });

    it('410 claim_expired when the lease ran out', async () => {
      const item = await claimedItem(gw, a, { ttlSeconds: 60 });
      github.pushBranch('acme/api', `attest/item-${counter}`, 1);
      gw.clock.advance(61_000);
      expectError(await put(gw, item), 410, 'claim_expired');
      expect(github.openPulls('acme/api', `attest/item-${counter}`)).toHaveLength(0);
      // A released claim revokes its key altogether.
      const released = await claimedItem(gw, a);
      expect(
        (await gw.call('DELETE', `/v1/work-items/${released.id}/claims/current`, { token: released.itemKey })).status,
      ).toBeLessThan(300);
      expectError(await put(gw, released), 401, 'unauthorized');
    });

    it('422 work_item_has_no_repository when the item names none', async () => {
      const item = await claimedItem(gw, a, { repository: null });
      expectError(await put(gw, item), 422, 'work_item_has_no_repository');
    });

    it('422 repository_not_connected when the factory has not connected the repository', async () => {
      const item = await claimedItem(gw, a, { repository: 'acme/other' });
      github.pushBranch('acme/other', `attest/item-${counter}`, 1);
      expectError(await put(gw, item), 422, 'repository_not_connected');
      // Another factory's connection does not count.
      const itemB = await claimedItem(gw, b, { repository: 'acme/api' });
      expectError(await put(gw, itemB), 422, 'repository_not_connected');
    });

    it('422 repository_not_in_installation when the installation no longer includes the repository', async () => {
      const inst = github.addInstallation('shrink');
      github.addRepository('shrink/app', { installation: inst });
      await bindInstallation(gw, a.appId, inst.id);
      expect(
        (
          await gw.call('POST', '/v1/repositories', {
            token: a.factoryKey,
            appId: a.appId,
            body: { repository: 'shrink/app', installationId: inst.id },
          })
        ).status,
      ).toBe(201);
      const item = await claimedItem(gw, a, { repository: 'shrink/app' });
      github.pushBranch('shrink/app', `attest/item-${counter}`, 1);
      inst.repositories.delete('shrink/app');
      expectError(await put(gw, item), 422, 'repository_not_in_installation');
      // The installation itself is gone (uninstalled): the same answer.
      github.installations.delete(inst.id);
      gw.clock.advance(60 * 60_000); // the cached token is past its life
      expectError(await put(gw, item), 422, 'repository_not_in_installation');
    });

    it('422 repository_not_in_installation for a public repository the installation dropped', async () => {
      const inst = github.addInstallation('open');
      github.addRepository('open/source', { installation: inst, visibility: 'public' });
      await bindInstallation(gw, a.appId, inst.id);
      expect(
        (
          await gw.call('POST', '/v1/repositories', {
            token: a.factoryKey,
            appId: a.appId,
            body: { repository: 'open/source', installationId: inst.id },
          })
        ).status,
      ).toBe(201);
      const item = await claimedItem(gw, a, { repository: 'open/source' });
      github.pushBranch('open/source', `attest/item-${counter}`, 1);
      inst.repositories.delete('open/source');
      expectError(await put(gw, item), 422, 'repository_not_in_installation');
      expect(github.openPulls('open/source')).toHaveLength(0);
      // An open pull request (a person's) cannot be edited either.
      github.openPullAs('octocat', 'open/source', `attest/item-${counter}`, 'Theirs');
      expectError(await put(gw, item), 422, 'repository_not_in_installation');
      expect(github.openPulls('open/source')[0]!.title).toBe('Theirs');
      const list = await gw.call('GET', '/v1/repositories', { token: a.factoryKey, appId: a.appId });
      expect(list.body.data.find((r: { repository: string }) => r.repository === 'open/source').pullRequestWrite).toBe(
        'missing',
      );
    });

    it('422 branch_not_pushed when the claim branch is not on the remote', async () => {
      const item = await claimedItem(gw, a, { branch: 'never/pushed' });
      const r = await put(gw, item);
      expectError(r, 422, 'branch_not_pushed');
      expect(r.body.error.branch).toBe('never/pushed');
    });

    it('422 branch_has_no_commits when the branch has nothing the default branch lacks', async () => {
      const item = await claimedItem(gw, a, { branch: 'empty/branch' });
      github.pushBranch('acme/api', 'empty/branch', 0);
      expectError(await put(gw, item), 422, 'branch_has_no_commits');
      // Also when the branch is the default branch itself.
      const onMain = await claimedItem(gw, a, { branch: 'main' });
      expectError(await put(gw, onMain), 422, 'branch_has_no_commits');
      expect(github.openPulls('acme/api', 'empty/branch')).toHaveLength(0);
    });

    it('503 github_unavailable with Retry-After when GitHub fails, rate limits or is unreachable', async () => {
      const item = await claimedItem(gw, a, { branch: 'flaky' });
      github.pushBranch('acme/api', 'flaky', 1);
      github.fail(/\/compare\//, { kind: 'status', status: 502, body: { message: 'Server Error' } });
      const failing = await put(gw, item);
      expectError(failing, 503, 'github_unavailable');
      expect(Number(failing.headers['retry-after'])).toBeGreaterThanOrEqual(1);

      github.fail(/^POST \/repos\/acme\/api\/pulls$/, {
        kind: 'status',
        status: 429,
        headers: { 'retry-after': '9' },
        body: { message: 'API rate limit exceeded' },
      });
      const limited = await put(gw, item);
      expectError(limited, 503, 'github_unavailable');
      expect(limited.headers['retry-after']).toBe('9');

      github.fail(/^GET \/repos\/acme\/api\/pulls$/, {
        kind: 'status',
        status: 403,
        headers: { 'retry-after': '60' },
        body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' },
      });
      const secondary = await put(gw, item);
      expectError(secondary, 503, 'github_unavailable');
      expect(secondary.headers['retry-after']).toBe('60');

      // The primary rate limit: 403 with X-RateLimit-Remaining 0; wait until X-RateLimit-Reset.
      github.fail(/^GET \/repos\/acme\/api$/, {
        kind: 'status',
        status: 403,
        headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 120) },
        body: {
          message: 'API rate limit exceeded for installation ID 1.',
          documentation_url: 'https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting',
        },
      });
      const primary = await put(gw, item);
      expectError(primary, 503, 'github_unavailable');
      expect(Number(primary.headers['retry-after'])).toBeGreaterThan(100);
      expect(Number(primary.headers['retry-after'])).toBeLessThanOrEqual(121);

      github.fail(/^GET \/repos\/acme\/api\/branches\//, { kind: 'network' });
      expectError(await put(gw, item), 503, 'github_unavailable');

      expect(github.openPulls('acme/api', 'flaky')).toHaveLength(0);
      expect(github.faults).toEqual([]); // every fault was hit
      const ok = await put(gw, item);
      expect(ok.status).toBe(201);
      expect(github.openPulls('acme/api', 'flaky')).toHaveLength(1);
    });
  });
});

describe('PUT pull-request without a GitHub App', () => {
  let env: GatewayWithGitHub;
  let t: Tenant;
  beforeAll(async () => {
    env = await startGatewayWithGitHub();
    t = await createTenant(env.gw);
  });
  afterAll(async () => {
    await env?.close();
  });

  it('503 repository_tokens_unavailable with no App configured, also for a repository connected earlier', async () => {
    const inst = env.github.addInstallation('acme');
    env.github.addRepository('acme/api', { installation: inst });
    await bindInstallation(env.gw, t.appId, inst.id);
    expect(
      (
        await env.gw.call('POST', '/v1/repositories', {
          token: t.factoryKey,
          appId: t.appId,
          body: { repository: 'acme/api', installationId: inst.id },
        })
      ).status,
    ).toBe(201);
    const item = await claimedItem(env.gw, t);
    env.github.pushBranch('acme/api', `attest/item-${counter}`, 1);
    // A replica on the same store whose operator removed the App settings.
    const bare = await startGateway({ replicaOf: env.gw });
    try {
      expect(bare.config.github.appId).toBeNull();
      expectError(await put(bare, item), 503, 'repository_tokens_unavailable');
      const unconnected = await claimedItem(bare, t, { repository: 'acme/elsewhere' });
      expectError(await put(bare, unconnected), 503, 'repository_tokens_unavailable');
    } finally {
      await bare.close();
    }
    expect(env.github.openPulls('acme/api')).toHaveLength(0);
    expect((await put(env.gw, item)).status).toBe(201);
  });
});
