// Repositories area through the real gateway, with GITHUB_API_URL pointing at the GitHub double.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { bindInstallation, startGatewayWithGitHub, type GatewayWithGitHub } from '../../github-double/setup.js';
import type { DoubleInstallation, GitHubDouble } from '../../github-double/server.js';
import { factoriesConnectedTo } from '../../../src/areas/repositories/service.js';
import type { RequestContext } from '../../../src/server/context.js';

describe('repositories', () => {
  let env: GatewayWithGitHub;
  let gw: TestGateway;
  let github: GitHubDouble;
  let a: Tenant;
  let b: Tenant;
  let installation: DoubleInstallation;
  let readKey: string;

  beforeAll(async () => {
    env = await startGatewayWithGitHub();
    gw = env.gw;
    github = env.github;
    a = await createTenant(gw);
    b = await createTenant(gw);
    installation = github.addInstallation('acme');
    github.addRepository('Acme/Api', { installation });
    github.addRepository('acme/web', { installation, defaultBranch: 'trunk' });
    github.addRepository('acme/secret'); // exists on GitHub, not in the installation
    const key = await gw.call('POST', '/v1/api-keys', {
      token: a.loginToken,
      appId: a.appId,
      body: { name: 'reader', preset: 'read-only' },
    });
    readKey = key.body.data.plaintext_key;
    await bindInstallation(gw, a.appId, installation.id);
  });
  afterAll(async () => {
    await env?.close();
  });

  const as = (t: Tenant) => ({ token: t.factoryKey, appId: t.appId });

  it('connects a listed repository (201), then again (200), and lists it with what builds may do', async () => {
    const created = await gw.call('POST', '/v1/repositories', {
      ...as(a),
      body: { repository: 'acme/api', installationId: installation.id },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      data: {
        repository: 'Acme/Api',
        connected: true,
        installationId: installation.id,
        defaultBranch: 'main',
        pullRequestWrite: 'granted',
        commentWrite: 'granted',
        defaultBranchRequiresPullRequest: false,
      },
    });
    const again = await gw.call('POST', '/v1/repositories', {
      ...as(a),
      body: { repository: 'ACME/API', installationId: installation.id },
    });
    expect(again.status).toBe(200);
    expect(again.body.data.repository).toBe('Acme/Api');

    const web = await gw.call('POST', '/v1/repositories', {
      ...as(a),
      body: { repository: 'acme/web', installationId: installation.id },
    });
    expect(web.status).toBe(201);
    expect(web.body.data.defaultBranch).toBe('trunk');

    const list = await gw.call('GET', '/v1/repositories', { token: readKey, appId: a.appId });
    expect(list.status).toBe(200);
    expect(list.body.data.map((r: { repository: string }) => r.repository)).toEqual(['Acme/Api', 'acme/web']);
    expect(list.body.data[1]).toEqual({
      repository: 'acme/web',
      connected: true,
      installationId: installation.id,
      defaultBranch: 'trunk',
      pullRequestWrite: 'granted',
      commentWrite: 'granted',
      defaultBranchRequiresPullRequest: false,
    });
  });

  it('reports defaultBranchRequiresPullRequest from a pull_request branch rule', async () => {
    github.repo('acme/api').rules.set('main', ['deletion', 'pull_request']);
    const list = await gw.call('GET', '/v1/repositories', as(a));
    expect(
      list.body.data.find((r: { repository: string }) => r.repository === 'Acme/Api').defaultBranchRequiresPullRequest,
    ).toBe(true);
    github.repo('acme/api').rules.set('main', ['deletion']);
    const after = await gw.call('GET', '/v1/repositories', as(a));
    expect(
      after.body.data.find((r: { repository: string }) => r.repository === 'Acme/Api').defaultBranchRequiresPullRequest,
    ).toBe(false);
  });

  it('reports defaultBranchRequiresPullRequest from classic protection when the App may read it', async () => {
    const admin = github.addInstallation('prot', { ...github.appPermissions, administration: 'read' });
    github.addRepository('prot/core', { installation: admin });
    github.repo('prot/core').protection.set('main', { requiredReviews: true });
    github.addRepository('prot/loose', { installation: admin });
    github.repo('prot/loose').protection.set('main', { requiredReviews: false });
    const t = await createTenant(gw);
    await bindInstallation(gw, t.appId, admin.id);
    expect(
      (
        await gw.call('POST', '/v1/repositories', {
          ...as(t),
          body: { repository: 'prot/core', installationId: admin.id },
        })
      ).body.data.defaultBranchRequiresPullRequest,
    ).toBe(true);
    expect(
      (
        await gw.call('POST', '/v1/repositories', {
          ...as(t),
          body: { repository: 'prot/loose', installationId: admin.id },
        })
      ).body.data.defaultBranchRequiresPullRequest,
    ).toBe(false);
    // Without administration permission GitHub refuses the protection read; the rules alone decide.
    const noAdmin = github.addInstallation('prot2');
    github.addRepository('prot2/core', { installation: noAdmin });
    github.repo('prot2/core').protection.set('main', { requiredReviews: true });
    await bindInstallation(gw, t.appId, noAdmin.id);
    expect(
      (
        await gw.call('POST', '/v1/repositories', {
          ...as(t),
          body: { repository: 'prot2/core', installationId: noAdmin.id },
        })
      ).body.data.defaultBranchRequiresPullRequest,
    ).toBe(false);
  });

  it('pullRequestWrite: pending when the App asks and the installation has not accepted, else missing', async () => {
    const lagging = github.addInstallation('lag', { contents: 'read', metadata: 'read', pull_requests: 'read' });
    github.addRepository('lag/app', { installation: lagging });
    const t = await createTenant(gw);
    await bindInstallation(gw, t.appId, lagging.id);
    const pending = await gw.call('POST', '/v1/repositories', {
      ...as(t),
      body: { repository: 'lag/app', installationId: lagging.id },
    });
    expect(pending.status).toBe(201);
    expect(pending.body.data.pullRequestWrite).toBe('pending');
    // The PR comment needs pull requests write or issues write: pending too.
    expect(pending.body.data.commentWrite).toBe('pending');

    const asked = github.appPermissions;
    github.appPermissions = { contents: 'read', metadata: 'read', checks: 'read' };
    try {
      const missing = await gw.call('GET', '/v1/repositories', as(t));
      expect(missing.body.data[0].pullRequestWrite).toBe('missing');
      expect(missing.body.data[0].commentWrite).toBe('missing');
      // Issues write alone lets the App comment, though not open pull requests.
      lagging.permissions.issues = 'write';
      const issues = await gw.call('GET', '/v1/repositories', as(t));
      expect(issues.body.data[0]).toMatchObject({ pullRequestWrite: 'missing', commentWrite: 'granted' });
      delete lagging.permissions.issues;
    } finally {
      github.appPermissions = asked;
    }
    lagging.permissions.pull_requests = 'write';
    const granted = await gw.call('GET', '/v1/repositories', as(t));
    expect(granted.body.data[0].pullRequestWrite).toBe('granted');
    expect(granted.body.data[0].commentWrite).toBe('granted');
  });

  it('reports a repository the installation dropped as missing, keeping the connection', async () => {
    const inst = github.addInstallation('drop');
    github.addRepository('drop/gone', { installation: inst });
    const t = await createTenant(gw);
    await bindInstallation(gw, t.appId, inst.id);
    expect(
      (
        await gw.call('POST', '/v1/repositories', {
          ...as(t),
          body: { repository: 'drop/gone', installationId: inst.id },
        })
      ).status,
    ).toBe(201);
    inst.repositories.delete('drop/gone');
    const list = await gw.call('GET', '/v1/repositories', as(t));
    expect(list.body.data).toEqual([
      {
        repository: 'drop/gone',
        connected: true,
        installationId: inst.id,
        defaultBranch: 'main',
        pullRequestWrite: 'missing',
        commentWrite: 'missing',
        defaultBranchRequiresPullRequest: false,
      },
    ]);
  });

  it('422 repository_not_in_installation for an unlisted repository or an installation GitHub dropped', async () => {
    const secret = await gw.call('POST', '/v1/repositories', {
      ...as(a),
      body: { repository: 'acme/secret', installationId: installation.id },
    });
    expect(secret.status).toBe(422);
    expect(secret.body.error.code).toBe('repository_not_in_installation');
    const nowhere = await gw.call('POST', '/v1/repositories', {
      ...as(a),
      body: { repository: 'acme/nothing', installationId: installation.id },
    });
    expect(nowhere.body.error.code).toBe('repository_not_in_installation');
    const gone = github.addInstallation('gone');
    await bindInstallation(gw, a.appId, gone.id);
    github.installations.delete(gone.id);
    const unknown = await gw.call('POST', '/v1/repositories', {
      ...as(a),
      body: { repository: 'acme/api', installationId: gone.id },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe('repository_not_in_installation');
    github.installations.set(gone.id, gone); // the double numbers installations by count: keep ids unique
    // An installation never bound to the factory is refused before GitHub is asked anything.
    const unbound = await gw.call('POST', '/v1/repositories', {
      ...as(a),
      body: { repository: 'acme/api', installationId: 999_999 },
    });
    expect({ status: unbound.status, code: unbound.body.error.code }).toEqual({
      status: 422,
      code: 'installation_not_bound',
    });
    const list = await gw.call('GET', '/v1/repositories', as(a));
    expect(list.body.data.map((r: { repository: string }) => r.repository)).toEqual(['Acme/Api', 'acme/web']);
  });

  it('validates the body (400)', async () => {
    for (const body of [
      { repository: 'not a repo', installationId: installation.id },
      { repository: 'acme/api' },
      { repository: 'acme/api', installationId: 'one' },
      { repository: 'acme/api', installationId: installation.id, extra: true },
    ]) {
      const r = await gw.call('POST', '/v1/repositories', { ...as(a), body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('invalid_request_body');
    }
  });

  it('needs a credential (401) and the permissions repositories.read / repositories.write (403)', async () => {
    expect((await gw.call('GET', '/v1/repositories', { appId: a.appId })).status).toBe(401);
    const wrong = await gw.call('GET', '/v1/repositories', {
      token: `sk_outerlayer_${'x'.repeat(42)}`,
      appId: a.appId,
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('unauthorized');
    const denied = await gw.call('POST', '/v1/repositories', {
      token: readKey,
      appId: a.appId,
      body: { repository: 'acme/api', installationId: installation.id },
    });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'repositories.write' });
    const deniedDelete = await gw.call('DELETE', '/v1/repositories/acme/web', { token: readKey, appId: a.appId });
    expect(deniedDelete.status).toBe(403);
    const ingest = (
      await gw.call('POST', '/v1/api-keys', {
        token: a.loginToken,
        appId: a.appId,
        body: { name: 'ingest', preset: 'ingest' },
      })
    ).body.data.plaintext_key;
    const noRead = await gw.call('GET', '/v1/repositories', { token: ingest, appId: a.appId });
    expect(noRead.status).toBe(403);
    expect(noRead.body.error.required_permission).toBe('repositories.read');
  });

  it('keeps factories apart: another factory sees none of them and cannot disconnect them', async () => {
    const list = await gw.call('GET', '/v1/repositories', as(b));
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    const del = await gw.call('DELETE', '/v1/repositories/acme/web', as(b));
    expect(del.status).toBe(404);
    expect(del.body.error.code).toBe('repository_not_found');
    // Another factory's key with this factory's header is refused outright.
    expect((await gw.call('GET', '/v1/repositories', { token: b.factoryKey, appId: a.appId })).status).toBe(401);
    expect((await gw.call('GET', '/v1/repositories', as(a))).body.data).toHaveLength(2);
  });

  it('tells which factories connected a repository through an installation (for webhooks)', async () => {
    const c = await createTenant(gw);
    await bindInstallation(gw, c.appId, installation.id);
    expect(
      (
        await gw.call('POST', '/v1/repositories', {
          ...as(c),
          body: { repository: 'acme/API', installationId: installation.id },
        })
      ).status,
    ).toBe(201);
    const ctx: RequestContext = {
      gateway: gw.app.attest,
      db: gw.app.attest.db,
      clock: gw.clock,
      config: gw.config,
      log: gw.app.log,
      requestId: 't',
      principal: null,
    };
    const found = await factoriesConnectedTo(ctx, 'ACME/api', installation.id);
    expect(found.map((f) => f.appId).sort()).toEqual([a.appId, c.appId].sort());
    expect(found.find((f) => f.appId === c.appId)?.orgId).toBe(c.orgId);
    expect(await factoriesConnectedTo(ctx, 'acme/api', installation.id + 12345)).toEqual([]);
    expect(await factoriesConnectedTo(ctx, 'acme/nope', null)).toEqual([]);
    expect((await gw.call('DELETE', '/v1/repositories/acme/api', as(c))).status).toBe(204);
    expect((await factoriesConnectedTo(ctx, 'acme/api', null)).map((f) => f.appId)).toEqual([a.appId]);
  });

  it('disconnects (204), then 404 repository_not_found', async () => {
    const del = await gw.call('DELETE', '/v1/repositories/ACME/web', as(a));
    expect(del.status).toBe(204);
    const again = await gw.call('DELETE', '/v1/repositories/acme/web', as(a));
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('repository_not_found');
    const list = await gw.call('GET', '/v1/repositories', as(a));
    expect(list.body.data.map((r: { repository: string }) => r.repository)).toEqual(['Acme/Api']);
    const audit = await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log?targetType=repository`, {
      token: a.managementKey,
    });
    expect(audit.status).toBe(200);
    expect(audit.body.data.map((e: { action_type: string }) => e.action_type)).toEqual(
      expect.arrayContaining(['repository.connected', 'repository.disconnected']),
    );
  });

  it('turns GitHub 5xx, 429, secondary limits and network failures into 503 github_unavailable', async () => {
    github.fail(/^GET \/installation\/repositories$/, {
      kind: 'status',
      status: 502,
      body: { message: 'Server Error' },
    });
    const bad = await gw.call('GET', '/v1/repositories', as(a));
    expect(bad.status).toBe(503);
    expect(bad.body.error.code).toBe('github_unavailable');
    expect(Number(bad.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    github.fail(/^GET \/repos\/Acme\/Api\/rules\/branches\/main$/i, {
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '7' },
      body: { message: 'Too Many Requests' },
    });
    const limited = await gw.call('GET', '/v1/repositories', as(a));
    expect(limited.status).toBe(503);
    expect(limited.body.error.code).toBe('github_unavailable');
    expect(limited.headers['retry-after']).toBe('7');

    github.fail(/^GET \/installation\/repositories$/, {
      kind: 'status',
      status: 403,
      headers: { 'retry-after': '61' },
      body: {
        message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
        documentation_url:
          'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
      },
    });
    const secondary = await gw.call('POST', '/v1/repositories', {
      ...as(a),
      body: { repository: 'acme/api', installationId: installation.id },
    });
    expect(secondary.status).toBe(503);
    expect(secondary.body.error.code).toBe('github_unavailable');
    expect(secondary.headers['retry-after']).toBe('61');

    github.fail(/^GET \/app\/installations\/\d+$/, { kind: 'network' });
    const dropped = await gw.call('GET', '/v1/repositories', as(a));
    expect(dropped.status).toBe(503);
    expect(dropped.body.error.code).toBe('github_unavailable');
    expect(dropped.headers['retry-after']).toBeDefined();

    expect((await gw.call('GET', '/v1/repositories', as(a))).status).toBe(200);
    expect(github.faults).toEqual([]); // every fault was hit
  });

  it('caches the installation token until shortly before it expires', async () => {
    const t = await createTenant(gw);
    const inst = github.addInstallation('cache');
    github.addRepository('cache/one', { installation: inst });
    await bindInstallation(gw, t.appId, inst.id);
    expect(
      (
        await gw.call('POST', '/v1/repositories', {
          ...as(t),
          body: { repository: 'cache/one', installationId: inst.id },
        })
      ).status,
    ).toBe(201);
    const minted = () =>
      github.calls.filter((c) => c.path === `/app/installations/${inst.id}/access_tokens` && c.status === 201).length;
    expect(minted()).toBe(1);
    await gw.call('GET', '/v1/repositories', as(t));
    await gw.call('GET', '/v1/repositories', as(t));
    expect(minted()).toBe(1);
    gw.clock.advance(50 * 60_000); // the token lives an hour; 10 minutes left
    await gw.call('GET', '/v1/repositories', as(t));
    expect(minted()).toBe(1);
    gw.clock.advance(6 * 60_000); // inside the 5-minute refresh margin
    await gw.call('GET', '/v1/repositories', as(t));
    expect(minted()).toBe(2);
    // Every repository call carried an installation token, every app call the App JWT.
    for (const c of github.calls.filter(
      (x) => x.route?.startsWith('/repos/') || x.route === '/installation/repositories',
    ))
      expect(c.auth).toBe('token');
    for (const c of github.calls.filter((x) => x.route?.startsWith('/app'))) expect(c.auth).toBe('jwt');
  });
});

describe('repositories without a GitHub App', () => {
  let gw: TestGateway;
  let t: Tenant;
  beforeAll(async () => {
    gw = await startGateway();
    t = await createTenant(gw);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('answers 503 repository_tokens_unavailable when asked to connect, and an empty list', async () => {
    const r = await gw.call('POST', '/v1/repositories', {
      token: t.factoryKey,
      appId: t.appId,
      body: { repository: 'acme/api', installationId: 1 },
    });
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('repository_tokens_unavailable');
    const list = await gw.call('GET', '/v1/repositories', { token: t.factoryKey, appId: t.appId });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
  });

  it('install links, operator binding answer 503 repository_tokens_unavailable; read, unbind need no App', async () => {
    const link = await gw.call('POST', '/v1/github/install-links', { token: t.loginToken, appId: t.appId });
    expect(link.status).toBe(503);
    expect(link.body.error.code).toBe('repository_tokens_unavailable');
    const bind = await gw.call('POST', `/v1/admin/apps/${t.appId}/installations`, {
      token: gw.adminToken,
      body: { installationId: 5 },
    });
    expect(bind.status).toBe(503);
    expect(bind.body.error.code).toBe('repository_tokens_unavailable');
    const bindings = await gw.call('GET', '/v1/github/installations', { token: t.factoryKey, appId: t.appId });
    expect(bindings.status).toBe(200);
    expect(bindings.body.data).toEqual([]);
    const unbind = await gw.call('DELETE', '/v1/github/installations/5', { token: t.factoryKey, appId: t.appId });
    expect(unbind.status).toBe(404);
    expect(unbind.body.error.code).toBe('installation_binding_not_found');
  });
});

describe('repositories with a wrong App key', () => {
  let env: GatewayWithGitHub;
  beforeAll(async () => {
    env = await startGatewayWithGitHub();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('answers 503 repository_tokens_unavailable when the configured private key cannot sign', async () => {
    const gw2 = await startGateway({
      env: {
        GITHUB_API_URL: env.github.url,
        GITHUB_APP_ID: String(env.github.appId),
        GITHUB_APP_PRIVATE_KEY: '-----BEGIN RSA PRIVATE KEY-----\\nnot a key\\n-----END RSA PRIVATE KEY-----',
      },
    });
    try {
      const inst = env.github.addInstallation('bad');
      env.github.addRepository('bad/key', { installation: inst });
      const t = await createTenant(gw2);
      // The first GitHub call is now the binding (connecting an unbound installation makes none).
      const r = await gw2.call('POST', `/v1/admin/apps/${t.appId}/installations`, {
        token: gw2.adminToken,
        body: { installationId: inst.id },
      });
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe('repository_tokens_unavailable');
      expect(r.body.error.message).toMatch(/private key/);
    } finally {
      await gw2.close();
    }
  });

  it('answers 503 repository_tokens_unavailable when GitHub refuses the App JWT', async () => {
    const other = await startGatewayWithGitHub();
    try {
      // Point a gateway at a double that knows another App key.
      const gw2 = await startGateway({
        env: {
          GITHUB_API_URL: env.github.url,
          GITHUB_APP_ID: String(env.github.appId),
          GITHUB_APP_PRIVATE_KEY: other.gw.config.github.privateKey ?? '',
        },
      });
      try {
        const inst = env.github.addInstallation('k');
        env.github.addRepository('k/r', { installation: inst });
        const t = await createTenant(gw2);
        // The first GitHub call is now the binding (connecting an unbound installation makes none).
        const r = await gw2.call('POST', `/v1/admin/apps/${t.appId}/installations`, {
          token: gw2.adminToken,
          body: { installationId: inst.id },
        });
        expect(r.status).toBe(503);
        expect(r.body.error.code).toBe('repository_tokens_unavailable');
      } finally {
        await gw2.close();
      }
    } finally {
      await other.close();
    }
  });
});
