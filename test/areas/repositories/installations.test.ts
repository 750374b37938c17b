// Issue 19 item 11: a factory connects repositories only from an installation bound to it, through its own
// install link (signed, single-use, expiring state returned by GitHub's setup URL) or by the operator.
// GitHub is the double (test/github-double): GET /app gives the App's page, GET /app/installations/{id}
// says whether an installation exists.
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createTenant, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { foreignCallers, siblingFactory, type Sibling } from '../../helpers/cross-tenant.js';
import { holdRows } from '../../helpers/row-lock.js';
import {
  githubUserOf,
  signInWithGitHub,
  startGatewayWithGitHub,
  type GatewayWithGitHub,
} from '../../github-double/setup.js';
import type { DoubleInstallation, DoubleUser, GitHubDouble } from '../../github-double/server.js';
import { githubOpenApi, pointer, toJsonSchema } from '../../github-double/templates.js';

const JSON_SCHEMA = ['content', 'application/json', 'schema'];

const THIRTY_MINUTES_MS = 30 * 60 * 1000;

describe('binding App installations to factories', () => {
  let env: GatewayWithGitHub;
  let gw: TestGateway;
  let github: GitHubDouble;
  let a: Tenant;
  let b: Tenant;
  let sibling: Sibling;
  let n = 0;
  /** The owners of a and b on GitHub, and their dashboard sessions from signing in with GitHub. */
  let aOnGitHub: DoubleUser;
  let bOnGitHub: DoubleUser;
  const sessions = new Map<string, string>();

  beforeAll(async () => {
    env = await startGatewayWithGitHub({}, { signIn: true });
    gw = env.gw;
    github = env.github;
    a = await createTenant(gw);
    b = await createTenant(gw);
    sibling = await siblingFactory(gw, a);
    aOnGitHub = await githubUserOf(env, a, a.ownerId, 'a-owner');
    bOnGitHub = await githubUserOf(env, b, b.ownerId, 'b-owner');
    sessions.set(a.ownerId, await signInWithGitHub(env, 'a-owner'));
    sessions.set(b.ownerId, await signInWithGitHub(env, 'b-owner'));
  });
  afterAll(async () => {
    await env?.close();
  });

  /**
   * A fresh installation on its own account, listing one repository `<account>/app`, which the owners of a
   * and b reach on GitHub (GET /user/installations lists it for them).
   */
  function newInstallation(): { inst: DoubleInstallation; repository: string } {
    const account = `acct${++n}`;
    const inst = github.addInstallation(account);
    github.addRepository(`${account}/app`, { installation: inst });
    aOnGitHub.installations.push(inst.id);
    bOnGitHub.installations.push(inst.id);
    return { inst, repository: `${account}/app` };
  }

  async function linkFor(t: {
    loginToken: string;
    appId: string;
  }): Promise<{ url: URL; state: string; expiresAt: string }> {
    const r = await gw.call('POST', '/v1/github/install-links', { token: t.loginToken, appId: t.appId });
    expect(r.status, r.text).toBe(201);
    const url = new URL(r.body.data.url);
    return { url, state: url.searchParams.get('state')!, expiresAt: r.body.data.expiresAt };
  }

  /** The user a state was issued to (its signed payload's `u`), or null when it does not decode. */
  function userOfState(state: string): string | null {
    try {
      return (JSON.parse(Buffer.from(state.split('.')[0]!, 'base64url').toString('utf8')) as { u: string }).u;
    } catch {
      return null;
    }
  }

  /**
   * What GitHub's redirect to the setup URL sends, from the browser of the person the link was issued to (their
   * dashboard session, from signing in with GitHub; a's owner's for a state that does not decode). `session`
   * null: a browser signed in to nothing; a string: that session instead.
   */
  function setup(installationId: number | null, state: string, session?: string | null, accept?: string) {
    const q = new URLSearchParams({ state, setup_action: 'install' });
    if (installationId !== null) q.set('installation_id', String(installationId));
    const cookie = session === undefined ? sessions.get(userOfState(state) ?? a.ownerId) : session;
    return gw.call('GET', `/v1/github/setup?${q}`, {
      headers: { ...(cookie ? { cookie: `attest_session=${cookie}` } : {}), ...(accept ? { accept } : {}) },
    });
  }

  const connect = (t: { factoryKey: string; appId: string }, repository: string, installationId: number) =>
    gw.call('POST', '/v1/repositories', { token: t.factoryKey, appId: t.appId, body: { repository, installationId } });

  const code = (r: { status: number; body: { error?: { code: string } } }) => ({
    status: r.status,
    code: r.body?.error?.code,
  });

  it("the install link is the App's install page on GitHub with a state, valid 30 minutes", async () => {
    const { url, state, expiresAt } = await linkFor(a);
    expect(`${url.origin}${url.pathname}`).toBe(`${github.webUrl}/apps/${github.slug}/installations/new`);
    expect(state.length).toBeGreaterThan(40);
    expect(Date.parse(expiresAt)).toBe(gw.clock.now() + THIRTY_MINUTES_MS);
    // Each call gives a different state.
    expect((await linkFor(a)).state).not.toBe(state);
  });

  it('success: the setup URL binds the installation to the factory, which can then connect repositories', async () => {
    const { inst, repository } = newInstallation();
    expect(code(await connect(a, repository, inst.id))).toEqual({ status: 422, code: 'installation_not_bound' });
    const { state } = await linkFor(a);
    const r = await setup(inst.id, state);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      data: {
        appId: a.appId,
        created: true,
        installation: {
          installationId: inst.id,
          account: inst.account,
          boundVia: 'install_link',
          boundAt: new Date(gw.clock.now()).toISOString(),
        },
      },
    });
    expect((await connect(a, repository, inst.id)).status).toBe(201);
    const listed = await gw.call('GET', '/v1/github/installations', { token: a.factoryKey, appId: a.appId });
    expect(listed.body.data).toContainEqual({
      installationId: inst.id,
      account: inst.account,
      boundVia: 'install_link',
      boundAt: new Date(gw.clock.now()).toISOString(),
    });
    const audit = await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log?actionType=installation.bound`, {
      token: a.managementKey,
    });
    expect(
      audit.body.data.some(
        (row: { target_identifier: string; actor_id: string }) =>
          row.target_identifier === `installation ${inst.id} (${inst.account})` && row.actor_id === a.ownerId,
      ),
    ).toBe(true);
  });

  it("a browser back from GitHub goes to the factory's settings page (303); an API client gets JSON", async () => {
    const { inst } = newInstallation();
    const q = (state: string) =>
      `/v1/github/setup?${new URLSearchParams({ installation_id: String(inst.id), state, setup_action: 'install' })}`;
    // What a browser sends when it follows a redirect to a page.
    const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
    const asA = (accept: string) => ({ headers: { accept, cookie: `attest_session=${sessions.get(a.ownerId)}` } });
    const page = await gw.call('GET', q((await linkFor(a)).state), asA(browserAccept));
    expect(page.status, page.text).toBe(303);
    expect(page.headers.location).toBe(`/f/${a.appId}/settings?installed=${inst.id}`);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(
      (await gw.call('GET', '/v1/github/installations', { token: a.factoryKey, appId: a.appId })).body.data.map(
        (x: { installationId: number }) => x.installationId,
      ),
    ).toContain(inst.id);
    for (const accept of ['application/json', '*/*', 'text/html, application/json']) {
      const api = await gw.call('GET', q((await linkFor(a)).state), asA(accept));
      expect(api.status, accept).toBe(200);
      expect(api.body.data).toMatchObject({ appId: a.appId, created: false });
    }
    // A refusal stays the error envelope, browser or not: its message says what to do.
    const { state } = await linkFor(a);
    expect((await gw.call('GET', q(state), asA(browserAccept))).status).toBe(303);
    const reused = await gw.call('GET', q(state), asA(browserAccept));
    expect(code(reused)).toEqual({ status: 409, code: 'install_state_used' });
  });

  it('a state with a bad signature, or whose payload was changed to name another factory, is refused', async () => {
    const { inst, repository } = newInstallation();
    const { state } = await linkFor(b);
    const [body, mac] = state.split('.') as [string, string];
    const flipped = mac.slice(0, -1) + (mac.endsWith('A') ? 'B' : 'A');
    expect(code(await setup(inst.id, `${body}.${flipped}`))).toEqual({ status: 400, code: 'invalid_install_state' });
    // b's state edited to name a's factory, keeping b's signature.
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...payload, a: a.appId })).toString('base64url');
    expect(code(await setup(inst.id, `${forged}.${mac}`))).toEqual({ status: 400, code: 'invalid_install_state' });
    expect(code(await setup(inst.id, 'not-a-state'))).toEqual({ status: 400, code: 'invalid_install_state' });
    expect(code(await connect(a, repository, inst.id))).toEqual({ status: 422, code: 'installation_not_bound' });
    expect(code(await connect(b, repository, inst.id))).toEqual({ status: 422, code: 'installation_not_bound' });
  });

  it('an expired state is refused (410), one millisecond before expiry it still works', async () => {
    const { inst } = newInstallation();
    const old = await linkFor(a);
    const fresh = await linkFor(a);
    gw.clock.advance(THIRTY_MINUTES_MS);
    expect(code(await setup(inst.id, old.state))).toEqual({ status: 410, code: 'install_state_expired' });
    gw.clock.advance(-1);
    expect((await setup(inst.id, fresh.state)).status).toBe(200);
    gw.clock.advance(1);
  });

  it('a state works once: reused (even for another installation) it answers 409', async () => {
    const first = newInstallation();
    const second = newInstallation();
    const { state } = await linkFor(a);
    expect((await setup(first.inst.id, state)).status).toBe(200);
    expect(code(await setup(first.inst.id, state))).toEqual({ status: 409, code: 'install_state_used' });
    expect(code(await setup(second.inst.id, state))).toEqual({ status: 409, code: 'install_state_used' });
    expect(code(await connect(a, second.repository, second.inst.id))).toEqual({
      status: 422,
      code: 'installation_not_bound',
    });
  });

  it("another factory's state binds to that factory only", async () => {
    const { inst, repository } = newInstallation();
    const { state } = await linkFor(b);
    const r = await setup(inst.id, state);
    expect(r.body.data.appId).toBe(b.appId);
    expect((await connect(b, repository, inst.id)).status).toBe(201);
    for (const t of [a, { factoryKey: sibling.factoryKey, appId: sibling.appId }]) {
      expect(code(await connect(t, repository, inst.id))).toEqual({ status: 422, code: 'installation_not_bound' });
    }
  });

  it('an installation GitHub does not know is refused (404), and the state is not spent by it', async () => {
    const { inst } = newInstallation();
    const { state } = await linkFor(a);
    const r = await setup(999_999, state);
    expect(code(r)).toEqual({ status: 404, code: 'installation_not_found' });
    expect(r.body.error.installationId).toBe(999_999);
    expect((await setup(inst.id, state)).status).toBe(200);
  });

  it('a state whose user can no longer connect repositories there is refused', async () => {
    const { inst } = newInstallation();
    const member = await addMember(gw, a, 'write');
    const { state } = await linkFor({ loginToken: member.loginToken, appId: a.appId });
    const demoted = await gw.call('PATCH', `/v1/orgs/${a.orgName}/members/${member.userId}`, {
      token: a.managementKey,
      body: { role: 'read' },
    });
    expect(demoted.status).toBe(200);
    expect(code(await setup(inst.id, state))).toEqual({ status: 400, code: 'invalid_install_state' });
  });

  it('binding needs a GitHub sign-in as the person the link was issued to; no refusal spends the state', async () => {
    const { inst, repository } = newInstallation();
    const { state } = await linkFor(a);
    const browserAccept = 'text/html,application/xhtml+xml,*/*;q=0.8';
    // Signed in to nothing: the API answer names the code; a browser is sent to the sign-in page saying why.
    const none = await setup(inst.id, state, null);
    expect(code(none)).toEqual({ status: 403, code: 'github_sign_in_required' });
    expect(none.body.error.message).toContain('Sign in with GitHub');
    const page = await setup(inst.id, state, null, browserAccept);
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe('/sign-in?reason=github-install');
    // Signed in with GitHub, but as another person (b's owner holding a's link).
    expect(code(await setup(inst.id, state, sessions.get(b.ownerId)!))).toEqual({
      status: 403,
      code: 'github_sign_in_required',
    });
    // a's owner signed in with a pasted login token, not with GitHub: there is no GitHub user to ask.
    const pasted = await gw.call('POST', '/v1/dashboard/session', {
      headers: { 'x-attest-dashboard': '1' },
      body: { loginToken: a.loginToken },
    });
    expect(pasted.status).toBe(201);
    const pastedSession = String(pasted.headers['set-cookie']).split('attest_session=')[1]!.split(';')[0]!;
    const stored = await gw.app.attest.db.deleteFrom('github_user_tokens').where('user_id', '=', a.ownerId).execute();
    expect(Number(stored[0]!.numDeletedRows)).toBe(1);
    expect(code(await setup(inst.id, state, pastedSession))).toEqual({ status: 403, code: 'github_sign_in_required' });
    sessions.set(a.ownerId, await signInWithGitHub(env, 'a-owner'));
    // The person revoked the App's authorization on GitHub: GitHub answers 401 to the kept token.
    github.revokeUserTokens('a-owner');
    expect(code(await setup(inst.id, state))).toEqual({ status: 403, code: 'github_sign_in_required' });
    sessions.set(a.ownerId, await signInWithGitHub(env, 'a-owner'));
    expect(code(await connect(a, repository, inst.id))).toEqual({ status: 422, code: 'installation_not_bound' });
    // Signed in again with GitHub: the same link binds.
    expect((await setup(inst.id, state)).status).toBe(200);
    expect((await connect(a, repository, inst.id)).status).toBe(201);
  });

  it("an installation the person's GitHub account cannot reach is refused (403); the state is kept", async () => {
    const { inst, repository } = newInstallation();
    aOnGitHub.installations = aOnGitHub.installations.filter((id) => id !== inst.id);
    const { state } = await linkFor(a);
    const r = await setup(inst.id, state);
    expect(code(r)).toEqual({ status: 403, code: 'installation_not_reachable' });
    expect(r.body.error.installationId).toBe(inst.id);
    const page = await setup(inst.id, state, undefined, 'text/html');
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe('/sign-in?reason=installation-unreachable');
    expect(code(await connect(a, repository, inst.id))).toEqual({ status: 422, code: 'installation_not_bound' });
    // GitHub was asked with the person's own token.
    const asked = github.calls.filter((c) => c.route === '/user/installations');
    expect(asked.at(-1)?.auth).toBe('token');
    aOnGitHub.installations.push(inst.id);
    expect((await setup(inst.id, state)).status).toBe(200);
  });

  it('the GitHub user token is kept sealed for 8 hours at most; then a new GitHub sign-in is needed', async () => {
    const row = await gw.app.attest.db
      .selectFrom('github_user_tokens')
      .selectAll()
      .where('user_id', '=', a.ownerId)
      .executeTakeFirstOrThrow();
    expect(row.subject).toBe(String(aOnGitHub.id));
    expect(row.token_enc.startsWith('v1.')).toBe(true);
    expect(row.token_enc).not.toContain('ghu_');
    // The double's tokens live 28,800 s (8 hours), as GitHub's do.
    expect(Number(row.expires_at) - Number(row.created_at)).toBe(8 * 3600 * 1000);
    const { inst } = newInstallation();
    gw.clock.advance(8 * 3600 * 1000);
    const { state } = await linkFor(a);
    expect(code(await setup(inst.id, state))).toEqual({ status: 403, code: 'github_sign_in_required' });
    expect((await gw.app.attest.housekeeping.run()).githubUserTokens).toBe(2); // a's and b's owners'
    sessions.set(a.ownerId, await signInWithGitHub(env, 'a-owner'));
    sessions.set(b.ownerId, await signInWithGitHub(env, 'b-owner'));
    expect((await setup(inst.id, state)).status).toBe(200);
  });

  it("the double's answers to GET /user/installations match GitHub's OpenAPI schema", async () => {
    const doc = githubOpenApi();
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, validateSchema: false });
    ajv.addSchema(toJsonSchema({ components: doc.components, paths: doc.paths }) as object, 'gh');
    const validate = ajv.compile({
      $ref: `gh#/${pointer('paths', '/user/installations', 'get', 'responses', '200', ...JSON_SCHEMA)}`,
    });
    const answers = github.calls.filter((c) => c.route === '/user/installations' && c.status === 200);
    expect(answers.length).toBeGreaterThan(3);
    for (const call of answers) expect(validate(call.body), ajv.errorsText(validate.errors)).toBe(true);
    // And the one listing installations names them as GitHub does (id, account.login).
    const listed = answers.at(-1)!.body as {
      total_count: number;
      installations: { id: number; account: { login: string } }[];
    };
    expect(listed.total_count).toBe(listed.installations.length);
    expect(listed.installations.map((i) => i.id)).toEqual(aOnGitHub.installations);
  });

  it('a setup call without installation_id (an install awaiting approval) is a 400 naming it', async () => {
    const { state } = await linkFor(a);
    const r = await setup(null, state);
    expect(code(r)).toEqual({ status: 400, code: 'invalid_query_params' });
    expect(r.body.error.message).toContain('installation_id');
  });

  it('connecting without a binding is refused before GitHub is asked anything', async () => {
    const { inst, repository } = newInstallation();
    const calls = github.calls.length;
    const r = await connect(a, repository, inst.id);
    expect(code(r)).toEqual({ status: 422, code: 'installation_not_bound' });
    expect(r.body.error.installationId).toBe(inst.id);
    expect(github.calls.length).toBe(calls);
  });

  it('cross-factory: an installation bound to a is neither listed for nor usable by other factories', async () => {
    const { inst, repository } = newInstallation();
    expect((await setup(inst.id, (await linkFor(a)).state)).status).toBe(200);
    for (const [who, auth] of foreignCallers(b, sibling)) {
      const listed = await gw.call('GET', '/v1/github/installations', auth);
      expect(listed.status, who).toBe(200);
      expect(
        listed.body.data.map((x: { installationId: number }) => x.installationId),
        who,
      ).not.toContain(inst.id);
      const r = await gw.call('POST', '/v1/repositories', { ...auth, body: { repository, installationId: inst.id } });
      expect(code(r), who).toEqual({ status: 422, code: 'installation_not_bound' });
    }
  });

  it('install links: a person with repositories.write only', async () => {
    expect(code(await gw.call('POST', '/v1/github/install-links', { appId: a.appId }))).toEqual({
      status: 401,
      code: 'unauthorized',
    });
    expect(code(await gw.call('POST', '/v1/github/install-links', { token: a.factoryKey, appId: a.appId }))).toEqual({
      status: 401,
      code: 'unauthorized',
    });
    const reader = await addMember(gw, a, 'read');
    const denied = await gw.call('POST', '/v1/github/install-links', { token: reader.loginToken, appId: a.appId });
    expect(code(denied)).toEqual({ status: 403, code: 'forbidden' });
    expect(denied.body.error.required_permission).toBe('repositories.write');
    // A's owner naming b's factory: the one 401.
    expect(code(await gw.call('POST', '/v1/github/install-links', { token: a.loginToken, appId: b.appId }))).toEqual({
      status: 401,
      code: 'unauthorized',
    });
  });

  it('the operator binds an installation (201, then 200), and nobody else can', async () => {
    const { inst, repository } = newInstallation();
    const bind = (token: string, appId: string, installationId: number) =>
      gw.call('POST', `/v1/admin/apps/${appId}/installations`, { token, body: { installationId } });
    const first = await bind(gw.adminToken, b.appId, inst.id);
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({
      installationId: inst.id,
      account: inst.account,
      boundVia: 'admin',
      boundAt: new Date(gw.clock.now()).toISOString(),
    });
    expect((await bind(gw.adminToken, b.appId, inst.id)).status).toBe(200);
    expect((await connect(b, repository, inst.id)).status).toBe(201);
    expect(code(await bind(gw.adminToken, b.appId, 999_999))).toEqual({ status: 404, code: 'installation_not_found' });
    expect(code(await bind(gw.adminToken, '0f0f0f0f-0000-4000-8000-000000000009', inst.id))).toEqual({
      status: 404,
      code: 'app_not_found',
    });
    for (const token of [a.loginToken, a.factoryKey, a.managementKey]) {
      expect(code(await bind(token, a.appId, inst.id))).toEqual({ status: 401, code: 'unauthorized' });
    }
    expect(code(await connect(a, repository, inst.id))).toEqual({ status: 422, code: 'installation_not_bound' });
  });
  /** An installation bound to `t` through its install link, with `repos` repositories connected from it. */
  async function boundWithRepositories(
    t: Tenant,
    repos: string[],
  ): Promise<{ inst: DoubleInstallation; repositories: string[] }> {
    const { inst, repository } = newInstallation();
    const repositories = [repository, ...repos.map((name) => `${inst.account}/${name}`)];
    for (const r of repositories.slice(1)) github.addRepository(r, { installation: inst });
    expect((await setup(inst.id, (await linkFor(t)).state)).status).toBe(200);
    for (const r of repositories) expect((await connect(t, r, inst.id)).status).toBe(201);
    return { inst, repositories };
  }
  const unbind = (auth: { token?: string; appId?: string }, installationId: number | string) =>
    gw.call('DELETE', `/v1/github/installations/${installationId}`, auth);
  const connectedOf = async (t: Tenant) =>
    (
      await gw.app.attest.db
        .selectFrom('repositories')
        .select('full_name')
        .where('app_id', '=', t.appId)
        .orderBy('full_name')
        .execute()
    ).map((r) => r.full_name);
  const boundOf = async (t: Tenant) =>
    (await gw.call('GET', '/v1/github/installations', { token: t.factoryKey, appId: t.appId })).body.data.map(
      (x: { installationId: number }) => x.installationId,
    );

  it('unbinding removes the binding and disconnects the repositories connected through it, only those', async () => {
    const { inst, repositories } = await boundWithRepositories(a, ['lib']);
    const kept = await boundWithRepositories(a, []);
    const before = await connectedOf(a);
    const r = await unbind({ token: a.loginToken, appId: a.appId }, inst.id);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      data: {
        installationId: inst.id,
        account: inst.account,
        disconnectedRepositories: [`${inst.account}/app`, `${inst.account}/lib`],
      },
    });
    expect(await boundOf(a)).not.toContain(inst.id);
    expect(await boundOf(a)).toContain(kept.inst.id);
    expect(await connectedOf(a)).toEqual(before.filter((x) => !repositories.includes(x)));
    expect(await connectedOf(a)).toContain(kept.repositories[0]);
    // Connecting from it again needs a new binding; unbinding it again finds nothing.
    expect(code(await connect(a, repositories[0]!, inst.id))).toEqual({ status: 422, code: 'installation_not_bound' });
    const again = await unbind({ token: a.loginToken, appId: a.appId }, inst.id);
    expect(code(again)).toEqual({ status: 404, code: 'installation_binding_not_found' });
    expect(again.body.error.installationId).toBe(inst.id);
    // The audit log has the unbinding and each repository it disconnected, by the caller.
    const audit = async (actionType: string) =>
      (await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log?actionType=${actionType}`, { token: a.managementKey }))
        .body.data as { target_identifier: string; actor_id: string }[];
    expect(
      (await audit('installation.unbound'))
        .filter((row) => row.target_identifier === `installation ${inst.id} (${inst.account})`)
        .map((row) => row.actor_id),
    ).toEqual([a.ownerId]);
    const disconnected = (await audit('repository.disconnected')).map((row) => row.target_identifier);
    for (const repository of repositories) expect(disconnected).toContain(repository);
    // A new install link binds it again.
    expect((await setup(inst.id, (await linkFor(a)).state)).status).toBe(200);
    expect((await connect(a, repositories[0]!, inst.id)).status).toBe(201);
  });

  it('two unbinds of one installation at once: one answers 200 with its repositories, the other 404', async () => {
    const { inst, repositories } = await boundWithRepositories(a, ['lib2']);
    // PostgreSQL: hold the binding's row so both unbinds are inside their transactions, past any read of it,
    // when the first may delete it (SQLite has one writer: its transactions cannot overlap).
    const hold = await holdRows(gw, (schema) => [
      [
        `select 1 from "${schema}".installation_bindings where app_id = $1 and installation_id = $2 for update`,
        [a.appId, inst.id],
      ],
    ]);
    const pending = Promise.all([
      unbind({ token: a.factoryKey, appId: a.appId }, inst.id),
      unbind({ token: a.loginToken, appId: a.appId }, inst.id),
    ]);
    // Both wait on the row lock, then the lock goes.
    await hold?.waiters(2, 'installation_bindings');
    await hold?.release();
    const results = await pending;
    expect(results.map((r) => r.status).sort()).toEqual([200, 404]);
    expect(results.find((r) => r.status === 200)!.body.data.disconnectedRepositories).toEqual(repositories);
    expect(results.find((r) => r.status === 404)!.body.error.code).toBe('installation_binding_not_found');
    const audit = (
      await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log?actionType=installation.unbound`, {
        token: a.managementKey,
      })
    ).body.data as { target_identifier: string }[];
    expect(audit.filter((row) => row.target_identifier === `installation ${inst.id} (${inst.account})`)).toHaveLength(
      1,
    );
  });

  it('a connect meeting an unbind in flight is undone and refused, not left on an unbound installation', async () => {
    const { inst } = await boundWithRepositories(a, []);
    const late = `${inst.account}/late`;
    github.addRepository(late, { installation: inst });
    // PostgreSQL: an unbind that has removed the binding and read the factory's repositories, not yet committed.
    const unbinding = await holdRows(gw, (schema) => [
      [`delete from "${schema}".installation_bindings where app_id = $1 and installation_id = $2`, [a.appId, inst.id]],
      [`delete from "${schema}".repositories where app_id = $1 and installation_id = $2`, [a.appId, inst.id]],
    ]);
    if (unbinding) {
      // The connect still sees the binding (not committed away), writes its connection, then reads the binding again.
      const pending = connect(a, late, inst.id);
      await unbinding.waiters(1, 'installation_bindings');
      await unbinding.release();
      expect(code(await pending)).toEqual({ status: 422, code: 'installation_not_bound' });
    } else {
      // SQLite has one writer: an unbind is wholly before or after a connect's write. Before: refused.
      expect((await unbind({ token: a.factoryKey, appId: a.appId }, inst.id)).status).toBe(200);
      expect(code(await connect(a, late, inst.id))).toEqual({ status: 422, code: 'installation_not_bound' });
    }
    expect(await connectedOf(a)).not.toContain(late);
    const audit = (
      await gw.call('GET', `/v1/orgs/${a.orgName}/audit-log?actionType=repository.connected`, {
        token: a.managementKey,
      })
    ).body.data as { target_identifier: string }[];
    expect(audit.map((row) => row.target_identifier)).not.toContain(late);
  });

  it('unbinding: a key or login token with repositories.write; others refused; other factories see none', async () => {
    const { inst, repositories } = await boundWithRepositories(a, []);
    expect(code(await unbind({ appId: a.appId }, inst.id))).toEqual({ status: 401, code: 'unauthorized' });
    expect(code(await unbind({ token: 'atk_not_a_real_credential', appId: a.appId }, inst.id))).toEqual({
      status: 401,
      code: 'unauthorized',
    });
    const reader = await addMember(gw, a, 'read');
    const denied = await unbind({ token: reader.loginToken, appId: a.appId }, inst.id);
    expect(code(denied)).toEqual({ status: 403, code: 'forbidden' });
    expect(denied.body.error.required_permission).toBe('repositories.write');
    // A's owner naming b's factory: the one 401.
    expect(code(await unbind({ token: a.loginToken, appId: b.appId }, inst.id))).toEqual({
      status: 401,
      code: 'unauthorized',
    });
    for (const [who, auth] of foreignCallers(b, sibling)) {
      const r = await unbind(auth, inst.id);
      expect(code(r), who).toEqual({ status: 404, code: 'installation_binding_not_found' });
      expect(r.text, who).not.toContain(inst.account);
    }
    expect(await boundOf(a)).toContain(inst.id);
    expect(await connectedOf(a)).toContain(repositories[0]);
    for (const bad of ['abc', '0', '-1', '1.5', '9007199254740992']) {
      expect(code(await unbind({ token: a.factoryKey, appId: a.appId }, bad)), bad).toEqual({
        status: 400,
        code: 'invalid_path_params',
      });
    }
    const byKey = await unbind({ token: a.factoryKey, appId: a.appId }, inst.id);
    expect(byKey.status).toBe(200);
    expect(byKey.body.data.disconnectedRepositories).toEqual(repositories);
  });

  it('the operator unbinds an installation from a factory, and nobody else can that way', async () => {
    const { inst, repositories } = await boundWithRepositories(b, []);
    const adminUnbind = (token: string | undefined, appId: string, installationId: number) =>
      gw.call('DELETE', `/v1/admin/apps/${appId}/installations/${installationId}`, token ? { token } : {});
    for (const token of [undefined, a.loginToken, b.loginToken, b.factoryKey, b.managementKey]) {
      expect(code(await adminUnbind(token, b.appId, inst.id))).toEqual({ status: 401, code: 'unauthorized' });
    }
    expect(code(await adminUnbind(gw.adminToken, '0f0f0f0f-0000-4000-8000-000000000009', inst.id))).toEqual({
      status: 404,
      code: 'app_not_found',
    });
    expect(code(await adminUnbind(gw.adminToken, a.appId, inst.id))).toEqual({
      status: 404,
      code: 'installation_binding_not_found',
    });
    expect(await boundOf(b)).toContain(inst.id);
    const r = await adminUnbind(gw.adminToken, b.appId, inst.id);
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toEqual({
      installationId: inst.id,
      account: inst.account,
      disconnectedRepositories: repositories,
    });
    expect(await boundOf(b)).not.toContain(inst.id);
    expect(await connectedOf(b)).not.toContain(repositories[0]);
  });

  // Last: it moves the clock on.
  it('housekeeping deletes a spent state once it has expired; it is still refused after', async () => {
    const { sql } = await import('kysely');
    const spent = async () =>
      Number(
        (await sql<{ n: number | string }>`select count(*) as n from install_states_used`.execute(gw.app.attest.db))
          .rows[0]!.n,
      );
    // The states the tests above spent expire first.
    gw.clock.advance(THIRTY_MINUTES_MS + 1);
    const earlier = await spent();
    expect(earlier).toBeGreaterThan(0);
    expect((await gw.app.attest.housekeeping.run()).installStates).toBe(earlier);
    const { inst } = newInstallation();
    const { state } = await linkFor(a);
    expect((await setup(inst.id, state)).status).toBe(200);
    expect(await spent()).toBe(1);
    const before = 1;
    // Within its 30 minutes the record is what refuses a reuse: it stays.
    gw.clock.advance(THIRTY_MINUTES_MS - 1);
    expect((await gw.app.attest.housekeeping.run()).installStates).toBe(0);
    expect(code(await setup(inst.id, state))).toEqual({ status: 409, code: 'install_state_used' });
    // Past it, the signed expiry refuses the state by itself, and the record goes.
    gw.clock.advance(2);
    expect((await gw.app.attest.housekeeping.run()).installStates).toBe(before);
    expect(await spent()).toBe(0);
    expect(code(await setup(inst.id, state))).toEqual({ status: 410, code: 'install_state_expired' });
  });
});
