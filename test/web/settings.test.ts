/// <reference lib="dom" />
// Browser tests of the factory settings page (/f/{appId}/settings): API keys (plaintext once, a working bearer
// credential, revoke behind a confirmation), the API's errors next to their fields, connected repositories as
// the GitHub double reports them, the factory form, read-only views by role with the API still refusing a
// forced request, and another factory's URL. A real gateway on a port, Chromium through playwright-core.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { addMember, createTenant, type Tenant } from '../helpers/gateway.js';
import { generateAppKeys, GitHubDouble, type DoubleInstallation } from '../github-double/server.js';
import { bindInstallation } from '../github-double/setup.js';
import {
  describeInBrowser,
  factoryHome,
  launchBrowser,
  newContext,
  openFactoryHome,
  screenshot,
  SCREENSHOTS,
  signIn,
  startWebGateway,
  type WebGateway,
} from './helpers.js';

describeInBrowser('dashboard: factory settings', () => {
  let github: GitHubDouble;
  let gw: WebGateway;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let t: Tenant;
  let other: Tenant;
  const OTHER_DISPLAY = 'Zebra factory of another org';
  const OTHER_KEY = 'zebra-deploy-key';

  beforeAll(async () => {
    const keys = generateAppKeys();
    github = new GitHubDouble(keys.publicKey);
    const url = await github.start();
    gw = await startWebGateway({
      publicUrl: true,
      env: {
        GITHUB_API_URL: url,
        GITHUB_APP_ID: String(github.appId),
        GITHUB_APP_PRIVATE_KEY: keys.privateKeyPem.replace(/\n/g, '\\n'),
        // GitHub sign-in: binding an installation through the install link needs it.
        GITHUB_WEB_URL: url,
        GITHUB_CLIENT_ID: github.oauthClient.clientId,
        GITHUB_CLIENT_SECRET: github.oauthClient.clientSecret,
      },
    });
    t = await createTenant(gw);
    other = await createTenant(gw);

    // Three repositories, one per state of pull request write, connected through the real API.
    const acme = github.addInstallation('acme');
    github.addRepository('acme/api', { installation: acme });
    github.repo('acme/api').rules.set('main', ['deletion', 'pull_request']);
    // The App asks for pull request write; this installation has not accepted it yet.
    const lagging: DoubleInstallation = github.addInstallation('lag', {
      contents: 'read',
      metadata: 'read',
      pull_requests: 'read',
    });
    github.addRepository('lag/app', { installation: lagging, defaultBranch: 'trunk' });
    const dropping = github.addInstallation('drop');
    github.addRepository('drop/gone', { installation: dropping });
    for (const [repository, installationId] of [
      ['acme/api', acme.id],
      ['lag/app', lagging.id],
      ['drop/gone', dropping.id],
    ] as const) {
      await bindInstallation(gw, t.appId, installationId);
      const r = await gw.call('POST', '/v1/repositories', {
        token: t.factoryKey,
        appId: t.appId,
        body: { repository, installationId },
      });
      if (r.status !== 201) throw new Error(`connect ${repository}: ${r.status} ${r.text}`);
    }
    // Then the installation drops one: the connection stays, builds can do nothing there.
    dropping.repositories.delete('drop/gone');

    // The other org's factory: a display name and a key this page must never show to t's owner.
    expect(
      (
        await gw.call('PATCH', `/v1/apps/${other.appId}`, {
          token: other.loginToken,
          appId: other.appId,
          body: { display_name: OTHER_DISPLAY },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await gw.call('POST', '/v1/api-keys', {
          token: other.loginToken,
          appId: other.appId,
          body: { name: OTHER_KEY, preset: 'ingest' },
        })
      ).status,
    ).toBe(201);

    browser = await launchBrowser();
    ctx = await newContext(browser, gw);
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.base });
    page = await openFactoryHome(ctx, gw, t);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
    await github?.close();
  });

  const settings = async (p: Page = page) => {
    await p.goto(`/f/${t.appId}/settings`);
    await p.getByRole('heading', { name: 'Settings' }).waitFor();
  };
  /** A bearer request from outside the browser, as a client holding the key would make it. */
  const withKey = (key: string) =>
    fetch(`${gw.base}/v1/apps/${t.appId}`, {
      headers: { authorization: `Bearer ${key}`, 'x-outerlayer-app-id': t.appId },
    });
  const keyRow = (name: string) =>
    page
      .getByTestId('api-keys-table')
      .getByRole('row')
      .filter({ has: page.getByRole('cell', { name, exact: true }) });

  it('the nav links to the settings page, which shows the caller role', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(`**/f/${t.appId}/settings`);
    expect(await page.getByTestId('settings-role').innerText()).toContain(`Your role in ${t.orgName}: owner`);
    // createTenant minted one key, "full".
    await keyRow('full').waitFor();
  });

  it("a new key's plaintext shows once; the list then shows it without, and a reload never shows it", async () => {
    await settings();
    const form = page.getByTestId('create-key-form');
    await form.getByLabel('Name').fill('ci-reader');
    await form.getByLabel('Preset', { exact: true }).selectOption('read-only');
    await form.getByRole('button', { name: 'Create key' }).click();

    const box = page.getByTestId('new-key');
    await box.waitFor();
    expect(await box.innerText()).toContain('you will not see it again');
    const plaintext = await page.getByTestId('new-key-plaintext').innerText();
    expect(plaintext).toMatch(/^sk_/);
    // The list has the new key by name and prefix, without the plaintext.
    const row = keyRow('ci-reader');
    await row.waitFor();
    const listed = (await gw.call('GET', '/v1/api-keys', { token: t.loginToken, appId: t.appId })).body.data.find(
      (k: { name: string }) => k.name === 'ci-reader',
    );
    expect(plaintext.startsWith(listed.key_prefix)).toBe(true);
    expect(await row.innerText()).toContain(`${listed.key_prefix}…`);
    expect(await page.getByTestId('api-keys-table').innerHTML()).not.toContain(plaintext);
    // In the whole page exactly once: the box.
    expect((await page.content()).split(plaintext).length - 1).toBe(1);
    // The read-only preset as API.md §3 defines it: every *.read a write role has (write lacks audit.read and
    // sessions.read_team), listed here by hand from that text.
    await row.getByText(/permissions$/).click();
    const chips = await row.locator('.chip').allInnerTexts();
    expect([...chips].sort()).toEqual([
      'api_keys.read',
      'apps.read',
      'artifacts.read',
      'budgets.read',
      'context.read',
      'findings.read',
      'hosts.read',
      'members.read',
      'metrics.read',
      'notifications.read',
      'prs.read',
      'repositories.read',
      'results.read',
      'sessions.read',
      'work.read',
    ]);

    await box.getByRole('button', { name: 'Copy' }).click();
    await page.getByTestId('copied').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(plaintext);
    await screenshot(page, 'settings-key-created');

    // The shown plaintext is a working bearer credential.
    expect((await withKey(plaintext)).status).toBe(200);

    await box.getByRole('button', { name: 'Done' }).click();
    await box.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(plaintext);
    await page.reload();
    await keyRow('ci-reader').waitFor();
    expect(await page.content()).not.toContain(plaintext);
    expect(await page.getByTestId('new-key').count()).toBe(0);
  });

  it("the telemetry blocks carry this gateway's URL, factory, and a fresh working ingest key, once", async () => {
    await settings();
    const claude = page.getByTestId('telemetry-claude-code');
    const codex = page.getByTestId('telemetry-codex');
    expect(await claude.innerText()).toContain('<ingest key: create one below>');
    await page.getByTestId('telemetry-create-key').click();
    await page.getByTestId('telemetry-key-once').waitFor();
    const env = JSON.parse(await claude.innerText()).env;
    expect(env).toMatchObject({
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      OTEL_LOGS_EXPORTER: 'otlp',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_ENDPOINT: gw.base,
    });
    const headers = /^Authorization=Bearer (sk_\S+),X-Outerlayer-App-Id=(\S+)$/.exec(env.OTEL_EXPORTER_OTLP_HEADERS);
    expect(headers?.[2]).toBe(t.appId);
    const key = headers![1]!;
    const toml = await codex.innerText();
    expect(toml).toContain('[otel]');
    expect(toml).toContain(`endpoint = "${gw.base}/v1/logs"`);
    expect(toml).toContain(`"Authorization" = "Bearer ${key}"`);
    expect(toml).toContain(`"X-Outerlayer-App-Id" = "${t.appId}"`);
    // The key is a real ingest key of this factory: an OTLP export with it is accepted.
    const r = await fetch(`${gw.base}/v1/traces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'x-outerlayer-app-id': t.appId, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(r.status).toBe(200);
    // Shown once: a reload shows the placeholder again, and the key list names it without its plaintext.
    await settings();
    expect(await page.getByTestId('telemetry-claude-code').innerText()).not.toContain(key);
    expect(await page.content()).not.toContain(key);
  });

  it('revoke asks first: cancel keeps the key working, confirm revokes it and the key gets 401 at once', async () => {
    await settings();
    const form = page.getByTestId('create-key-form');
    await form.getByLabel('Name').fill('to-revoke');
    await form.getByLabel('Choose permissions').check();
    await form.getByRole('checkbox', { name: /apps\.read/ }).check();
    await form.getByRole('button', { name: 'Create key' }).click();
    const plaintext = await page.getByTestId('new-key-plaintext').innerText();
    expect((await withKey(plaintext)).status).toBe(200);
    const listed = (await gw.call('GET', '/v1/api-keys', { token: t.loginToken, appId: t.appId })).body.data.find(
      (k: { name: string }) => k.name === 'to-revoke',
    );
    expect(listed.permissions).toEqual(['apps.read']);

    const dialog = page.getByRole('dialog', { name: 'Revoke the key “to-revoke”?' });
    await keyRow('to-revoke').getByRole('button', { name: 'Revoke' }).click();
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('This cannot be undone');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await keyRow('to-revoke').count()).toBe(1);
    expect((await withKey(plaintext)).status).toBe(200);
    expect(
      (await gw.call('GET', '/v1/api-keys', { token: t.loginToken, appId: t.appId })).body.data.map(
        (k: { name: string }) => k.name,
      ),
    ).toContain('to-revoke');

    await keyRow('to-revoke').getByRole('button', { name: 'Revoke' }).click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await keyRow('to-revoke').waitFor({ state: 'detached' });
    expect((await withKey(plaintext)).status).toBe(401);
    expect(
      (await gw.call('GET', '/v1/api-keys', { token: t.loginToken, appId: t.appId })).body.data.map(
        (k: { name: string }) => k.name,
      ),
    ).not.toContain('to-revoke');
    // The other keys are untouched.
    expect(await keyRow('full').count()).toBe(1);
  });

  it("the API's errors appear under the field they concern", async () => {
    await settings();
    const form = page.getByTestId('create-key-form');
    // A name the factory already uses: 409 duplicate_api_key_name, a path-less error placed by its code.
    await form.getByLabel('Name').fill('full');
    await form.getByRole('button', { name: 'Create key' }).click();
    const nameError = page.getByTestId('error-key-name');
    await nameError.waitFor();
    expect(await nameError.innerText()).toBe('An API key named "full" already exists in this factory.');
    expect(await form.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByTestId('new-key').count()).toBe(0);
    // A name over 100 characters: the schema's detail, path "name".
    await form.getByLabel('Name').fill('n'.repeat(101));
    await form.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => nameError.innerText()).toBe('Must NOT have more than 100 characters');
    // No permission chosen: the schema's detail, path "permissions".
    await form.getByLabel('Name').fill('no-permissions');
    await form.getByLabel('Choose permissions').check();
    await form.getByRole('button', { name: 'Create key' }).click();
    await expect
      .poll(() => page.getByTestId('error-key-permissions').innerText())
      .toBe('Must NOT have fewer than 1 items');
    expect(await page.getByTestId('error-key-name').count()).toBe(0);

    // The factory form: a pinned version that is not a semantic version (path "runner_updates.version").
    const factory = page.getByTestId('factory-form');
    await factory.getByLabel('Pin a version').check();
    await factory.getByLabel('Pinned version').fill('latest');
    await factory.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => page.getByTestId('error-factory-runner_updates.version').innerText())
      .toBe('Must be a semantic version such as 1.4.2');
    // A name that is not a slug (path "name"): the schema refuses it before the version is looked at, so
    // the name has the one error now.
    await factory.getByLabel('Name', { exact: true }).fill('Not A Slug');
    await factory.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByTestId('error-factory-name').innerText()).toMatch(/^Must match pattern/);
    expect(await page.getByTestId('error-factory-runner_updates.version').count()).toBe(0);
    // Nothing was saved.
    const app = (await gw.call('GET', `/v1/apps/${t.appId}`, { token: t.loginToken, appId: t.appId })).body.data;
    expect(app).toMatchObject({ name: 'main', runner_updates: { mode: 'follow' } });
  });

  it('connected repositories show PR write, PR comment, and whether the default branch requires a PR', async () => {
    await settings();
    const table = page.getByTestId('repositories-table');
    await table.waitFor();
    const row = (repo: string) => table.locator(`tr[data-repository="${repo}"]`);
    const state = async (repo: string) => ({
      prWrite: await row(repo).getByTestId('pr-write').innerText(),
      comment: await row(repo).getByTestId('comment-write').innerText(),
      requiresPr: await row(repo).getByTestId('requires-pr').innerText(),
      branch: await row(repo).locator('td').nth(1).innerText(),
    });
    // Seeded above: acme/api has a pull_request rule on main; lag/app's installation has pull requests read
    // only while the App asks for write; drop/gone was dropped by its installation.
    expect(await state('acme/api')).toEqual({
      prWrite: 'granted',
      comment: 'granted',
      requiresPr: 'yes',
      branch: 'main',
    });
    expect(await state('lag/app')).toEqual({
      prWrite: 'pending',
      comment: 'pending',
      requiresPr: 'no',
      branch: 'trunk',
    });
    expect(await state('drop/gone')).toEqual({
      prWrite: 'missing',
      comment: 'missing',
      requiresPr: 'no',
      branch: 'main',
    });
    expect(await table.locator('tbody tr').count()).toBe(3);
    // The whole page: the factory form, the keys and the repositories below them.
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'settings.png'), fullPage: true });
  });

  it('bound App installations are listed; unbind asks first, names what it disconnects, then does it', async () => {
    await settings();
    const table = page.getByTestId('installations-table');
    await table.waitFor();
    const bound = (await gw.call('GET', '/v1/github/installations', { token: t.loginToken, appId: t.appId })).body
      .data as { installationId: number; account: string }[];
    expect(bound.map((b) => b.account).sort()).toEqual(['acme', 'drop', 'lag']);
    const row = (account: string) =>
      table.locator(`tr[data-installation="${bound.find((b) => b.account === account)!.installationId}"]`);
    expect((await row('acme').locator('td').allInnerTexts()).slice(0, 3)).toEqual([
      String(bound.find((b) => b.account === 'acme')!.installationId),
      'acme',
      'the operator',
    ]);
    expect(await table.locator('tbody tr').count()).toBe(3);

    const lag = bound.find((b) => b.account === 'lag')!;
    const dialog = page.getByRole('dialog', { name: `Unbind installation ${lag.installationId} (lag)?` });
    await row('lag').getByRole('button', { name: 'Unbind' }).click();
    await dialog.waitFor();
    // It names the repository connected through that installation, read from GitHub when asked.
    await dialog.getByTestId('unbind-affected').filter({ hasText: 'lag/app' }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(
      (await gw.call('GET', '/v1/github/installations', { token: t.loginToken, appId: t.appId })).body.data.map(
        (b: { installationId: number }) => b.installationId,
      ),
    ).toContain(lag.installationId);

    await row('lag').getByRole('button', { name: 'Unbind' }).click();
    await dialog.getByRole('button', { name: 'Unbind installation' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.getByTestId('unbound-notice').innerText()).toBe(
      `Installation ${lag.installationId} (lag) is no longer bound to this factory. Disconnected: lag/app.`,
    );
    await row('lag').waitFor({ state: 'detached' });
    expect(await table.locator('tbody tr').count()).toBe(2);
    // The repositories table above follows: lag/app is gone, the other two stay.
    const repos = page.getByTestId('repositories-table');
    await repos.locator('tr[data-repository="lag/app"]').waitFor({ state: 'detached' });
    expect(await repos.locator('tbody tr').count()).toBe(2);
    // And the API agrees: no binding, no connection, and connecting again needs a binding.
    expect(
      (await gw.call('GET', '/v1/github/installations', { token: t.loginToken, appId: t.appId })).body.data.map(
        (b: { installationId: number }) => b.installationId,
      ),
    ).not.toContain(lag.installationId);
    const again = await gw.call('POST', '/v1/repositories', {
      token: t.factoryKey,
      appId: t.appId,
      body: { repository: 'lag/app', installationId: lag.installationId },
    });
    expect(again.status).toBe(422);
    expect(again.body.error.code).toBe('installation_not_bound');
  });

  it("'Install the App on GitHub' opens its page with this factory's link; GitHub's return binds it here", async () => {
    await settings();
    // GitHub's web pages are not part of the double: answer the navigation and read where it went.
    await page.route(`${github.webUrl}/**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<title>GitHub</title>' }),
    );
    await page.getByRole('button', { name: 'Install the App on GitHub…' }).click();
    await page.waitForURL(`${github.webUrl}/**`);
    const url = new URL(page.url());
    expect(url.pathname).toBe(`/apps/${github.slug}/installations/new`);
    const state = url.searchParams.get('state')!;
    expect(state.length).toBeGreaterThan(40);
    // GitHub sends the browser back to the setup URL with the new installation: it binds it and brings the
    // person to this page, which says so.
    const fresh = github.addInstallation('fresh');
    github.addRepository('fresh/app', { installation: fresh });
    const setupUrl =
      `/v1/github/setup?` +
      `${new URLSearchParams({ installation_id: String(fresh.id), state, setup_action: 'install' })}`;
    // Signed in by a one-time link, not with GitHub: nothing says this browser's person reaches the
    // installation GitHub named, so the sign-in page asks for GitHub first.
    await page.goto(setupUrl);
    await page.waitForURL('**/sign-in?reason=github-install');
    expect(await page.getByTestId('sign-in-reason').innerText()).toBe(
      'To bind a GitHub App installation to a factory, sign in with GitHub first (as the person who asked for the ' +
        'install link), then open the install link again.',
    );
    // The owner signs in with GitHub (the double's own authorize page sends the browser straight back), as a
    // GitHub account that reaches the new installation; the same link then binds it.
    await page.unroute(`${github.webUrl}/**`);
    const members = await gw.call('GET', `/v1/orgs/${t.orgName}/members`, { token: t.managementKey });
    const email = (members.body.data as { userId: string; email: string }[]).find((m) => m.userId === t.ownerId)!.email;
    github.addUser('settings-owner', { emails: [{ email, primary: true, verified: true }], installations: [fresh.id] });
    github.browserUser = 'settings-owner';
    await page.getByTestId('provider-github').click();
    await page.waitForURL((u) => u.origin === gw.base && !/^\/(sign-in|auth)\b/.test(u.pathname));
    await page.goto(setupUrl);
    await page.waitForURL(`**/f/${t.appId}/settings?installed=${fresh.id}`);
    expect(await page.getByTestId('installed-notice').innerText()).toBe(
      `Installation ${fresh.id} (fresh) is bound to this factory. Connect its repositories with POST ` +
        `/v1/repositories (docs/github-app.md §3).`,
    );
    const freshRow = page.getByTestId('installations-table').locator(`tr[data-installation="${fresh.id}"]`);
    expect((await freshRow.locator('td').allInnerTexts()).slice(0, 3)).toEqual([
      String(fresh.id),
      'fresh',
      'install link',
    ]);
    const bound = (await gw.call('GET', '/v1/github/installations', { token: t.loginToken, appId: t.appId })).body.data;
    expect(bound).toContainEqual(
      expect.objectContaining({ installationId: fresh.id, account: 'fresh', boundVia: 'install_link' }),
    );
    // The same page with an installation that is not bound here says nothing of it.
    await page.goto(`/f/${t.appId}/settings?installed=999999`);
    await page.getByTestId('installations-table').waitFor();
    expect(await page.getByTestId('installed-notice').count()).toBe(0);
  });

  it("a bound installation's repository connects here (errors by field), disconnects after a confirm", async () => {
    const acme = (
      await gw.call('GET', '/v1/github/installations', { token: t.loginToken, appId: t.appId })
    ).body.data.find((i: { account: string }) => i.account === 'acme');
    github.addRepository('acme/web', { installation: github.installations.get(acme.installationId)! });
    const connected = async () =>
      (await gw.call('GET', '/v1/repositories', { token: t.loginToken, appId: t.appId })).body.data.map(
        (r: { repository: string }) => r.repository,
      );
    await settings();
    const form = page.getByTestId('connect-form');
    await form.waitFor();
    await form.getByLabel('Installation').selectOption(String(acme.installationId));
    // Not a repository name: said in words under Repository, and nothing is sent.
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/v1/repositories')) posts.push(r.url());
    });
    await form.getByLabel('Repository').fill('not a repository');
    await form.getByRole('button', { name: 'Connect' }).click();
    await page.getByTestId('error-connect-repository').waitFor();
    expect(await page.getByTestId('error-connect-repository').innerText()).toBe(
      'Write it as owner/repo, as GitHub spells it: letters, digits, -, _ and . only.',
    );
    expect(posts).toEqual([]);
    // A repository the installation does not hold: GitHub's answer, under Repository.
    await form.getByLabel('Repository').fill('acme/missing');
    await form.getByRole('button', { name: 'Connect' }).click();
    await page.getByTestId('error-connect-repository').filter({ hasText: 'acme/missing' }).waitFor();
    expect(await connected()).not.toContain('acme/missing');

    await form.getByLabel('Repository').fill('acme/web');
    await form.getByRole('button', { name: 'Connect' }).click();
    expect(await page.getByTestId('connected-notice').innerText()).toBe('acme/web is connected.');
    expect(await page.getByTestId('error-connect-repository').count()).toBe(0);
    const repos = page.getByTestId('repositories-table');
    await repos.locator('tr[data-repository="acme/web"]').waitFor();
    expect(await connected()).toContain('acme/web');

    const dialog = page.getByRole('dialog', { name: 'Disconnect acme/web?' });
    await repos.locator('tr[data-repository="acme/web"]').getByRole('button', { name: 'Disconnect' }).click();
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await connected()).toContain('acme/web');
    await repos.locator('tr[data-repository="acme/web"]').getByRole('button', { name: 'Disconnect' }).click();
    await dialog.getByRole('button', { name: 'Disconnect repository' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await repos.locator('tr[data-repository="acme/web"]').waitFor({ state: 'detached' });
    expect(await connected()).not.toContain('acme/web');
    expect(await connected()).toContain('acme/api');
  });

  it('a display name and a pinned runner version saved here persist (read back through the API)', async () => {
    await settings();
    const factory = page.getByTestId('factory-form');
    await factory.getByLabel('Display name').fill('Main factory (renamed)');
    await factory.getByLabel('Pin a version').check();
    await factory.getByLabel('Pinned version').fill('1.4.2');
    await factory.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('factory-saved').waitFor();
    const app = (await gw.call('GET', `/v1/apps/${t.appId}`, { token: t.loginToken, appId: t.appId })).body.data;
    expect(app).toMatchObject({
      name: 'main',
      display_name: 'Main factory (renamed)',
      runner_updates: { mode: 'pin', version: '1.4.2' },
    });
    // The shell's factory label follows, and a reload shows the saved values.
    await expect.poll(() => page.getByTestId('factory-name').innerText()).toBe(`${t.orgName} / Main factory (renamed)`);
    await page.reload();
    expect(await page.getByTestId('factory-form').getByLabel('Display name').inputValue()).toBe(
      'Main factory (renamed)',
    );
    expect(await page.getByTestId('factory-form').getByLabel('Pinned version').inputValue()).toBe('1.4.2');
    // Back to follow: the API answers the gateway's own recommendation.
    await page
      .getByTestId('factory-form')
      .getByLabel(/^Follow the gateway/)
      .check();
    await page.getByTestId('factory-form').getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('factory-saved').waitFor();
    expect(
      (await gw.call('GET', `/v1/apps/${t.appId}`, { token: t.loginToken, appId: t.appId })).body.data.runner_updates
        .mode,
    ).toBe('follow');
  });

  it('retention saved here persists, is audit-logged, and a bad value shows its error under the field', async () => {
    await settings();
    const form = page.getByTestId('retention-form');
    await form.getByLabel('Full detail (days)').fill('-3');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('error-retention-retention.fullDays').waitFor();
    expect(
      (await gw.call('GET', `/v1/apps/${t.appId}`, { token: t.loginToken, appId: t.appId })).body.data.retention,
    ).toEqual({ fullDays: null, redactedDays: null, sessionsDays: null, artifactsDays: null });

    await form.getByLabel('Full detail (days)').fill('7');
    await form.getByLabel('Sessions (days)').fill('90');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('retention-saved').waitFor();
    expect(
      (await gw.call('GET', `/v1/apps/${t.appId}`, { token: t.loginToken, appId: t.appId })).body.data.retention,
    ).toEqual({ fullDays: 7, redactedDays: null, sessionsDays: 90, artifactsDays: null });
    const log = await gw.call('GET', `/v1/orgs/${t.orgName}/audit-log?pageSize=100`, { token: t.managementKey });
    expect(JSON.stringify(log.body.data)).toContain('retention_full_days');
    await page.reload();
    const again = page.getByTestId('retention-form');
    expect(await again.getByLabel('Full detail (days)').inputValue()).toBe('7');
    expect(await again.getByLabel('Sessions (days)').inputValue()).toBe('90');
    expect(await again.getByLabel('Artifacts (days)').inputValue()).toBe('');
    // Emptied again, the session keeps for ever.
    await again.getByLabel('Sessions (days)').fill('');
    await again.getByLabel('Full detail (days)').fill('');
    await again.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('retention-saved').waitFor();
    expect(
      (await gw.call('GET', `/v1/apps/${t.appId}`, { token: t.loginToken, appId: t.appId })).body.data.retention,
    ).toEqual({ fullDays: null, redactedDays: null, sessionsDays: null, artifactsDays: null });
  });

  it('a read member sees everything read-only, and a forced request from the page is refused with 403', async () => {
    const reader = await addMember(gw, t, 'read');
    const readerCtx = await newContext(browser, gw);
    try {
      const p = await signIn(readerCtx, gw, reader.loginToken);
      await p.waitForURL(factoryHome(t.appId));
      await settings(p);
      expect(await p.getByTestId('settings-role').innerText()).toContain('read');
      // The factory as text; no key list (read lacks api_keys.read); the repositories (read has repositories.read).
      const app = (await gw.call('GET', `/v1/apps/${t.appId}`, { token: t.loginToken, appId: t.appId })).body.data;
      expect(await p.getByTestId('factory-read-only').innerText()).toContain(app.display_name);
      expect(await p.getByTestId('api-keys-hidden').innerText()).toContain('cannot see');
      await p.getByTestId('repositories-table').waitFor();
      await p.getByTestId('installations-table').waitFor();
      expect(await p.getByTestId('installations-read-only').innerText()).toContain('repositories.write');
      // No write control anywhere on the page: no form, no input, no button but the shell's sign-out.
      expect(await p.locator('main form, main input, main select').count()).toBe(0);
      expect(await p.locator('main button').count()).toBe(0);
      expect(await p.getByRole('button', { name: /Create key|Revoke|Save/ }).count()).toBe(0);

      // Forced: the same requests the hidden controls would send, with the cookie and the dashboard header.
      const forced = await p.evaluate(async (appId) => {
        const headers = { 'X-Attest-Dashboard': '1', 'X-Outerlayer-App-Id': appId, 'content-type': 'application/json' };
        const create = await fetch('/v1/api-keys', {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: 'forced', preset: 'read-only' }),
        });
        const patch = await fetch(`/v1/apps/${appId}`, {
          method: 'PATCH',
          headers,
          body: JSON.stringify({ display_name: 'forced' }),
        });
        const list = await fetch('/v1/api-keys', { headers });
        const installations = (await (await fetch('/v1/github/installations', { headers })).json()) as {
          data: { installationId: number }[];
        };
        const unbind = await fetch(`/v1/github/installations/${installations.data[0]!.installationId}`, {
          method: 'DELETE',
          headers,
        });
        const disconnect = await fetch('/v1/repositories/acme/api', { method: 'DELETE', headers });
        return {
          disconnect: { status: disconnect.status, body: await disconnect.json() },
          unbind: { status: unbind.status, body: await unbind.json() },
          create: { status: create.status, body: await create.json() },
          patch: { status: patch.status, body: await patch.json() },
          list: { status: list.status, body: await list.json() },
        };
      }, t.appId);
      expect(await p.getByTestId('connect-form').count()).toBe(0);
      expect(forced.disconnect.status).toBe(403);
      expect(forced.disconnect.body.error).toMatchObject({
        code: 'forbidden',
        required_permission: 'repositories.write',
      });
      expect(forced.unbind.status).toBe(403);
      expect(forced.unbind.body.error).toMatchObject({ code: 'forbidden', required_permission: 'repositories.write' });
      expect(forced.create.status).toBe(403);
      expect(forced.create.body.error).toMatchObject({ code: 'forbidden', required_permission: 'api_keys.write' });
      expect(forced.patch.status).toBe(403);
      expect(forced.patch.body.error).toMatchObject({ code: 'forbidden', required_permission: 'apps.write' });
      expect(forced.list.status).toBe(403);
      expect(forced.list.body.error).toMatchObject({ code: 'forbidden', required_permission: 'api_keys.read' });
      const keys = (await gw.call('GET', '/v1/api-keys', { token: t.loginToken, appId: t.appId })).body.data.map(
        (k: { name: string }) => k.name,
      );
      expect(keys).not.toContain('forced');
      expect(
        (await gw.call('GET', `/v1/apps/${t.appId}`, { token: t.loginToken, appId: t.appId })).body.data.display_name,
      ).toBe(app.display_name);
    } finally {
      await readerCtx.close();
    }
  });

  it('a write member may edit the factory and read the keys, but gets no create or revoke control', async () => {
    const writer = await addMember(gw, t, 'write');
    const writerCtx = await newContext(browser, gw);
    try {
      const p = await signIn(writerCtx, gw, writer.loginToken);
      await p.waitForURL(factoryHome(t.appId));
      await settings(p);
      await p.getByTestId('api-keys-table').getByRole('cell', { name: 'full', exact: true }).waitFor();
      expect(await p.getByTestId('api-keys-read-only').innerText()).toContain('api_keys.write');
      expect(await p.getByRole('button', { name: /Create key|Revoke/ }).count()).toBe(0);
      expect(await p.getByTestId('factory-form').getByRole('button', { name: 'Save' }).count()).toBe(1);
      const forced = await p.evaluate(async (appId) => {
        const headers = { 'X-Attest-Dashboard': '1', 'X-Outerlayer-App-Id': appId, 'content-type': 'application/json' };
        const r = await fetch('/v1/api-keys', {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: 'forced-by-writer', preset: 'ingest' }),
        });
        return { status: r.status, body: await r.json() };
      }, t.appId);
      expect(forced.status).toBe(403);
      expect(forced.body.error).toMatchObject({ code: 'forbidden', required_permission: 'api_keys.write' });
    } finally {
      await writerCtx.close();
    }
  });

  it("another factory's settings URL shows Not found and nothing of that factory", async () => {
    const seen: string[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/v1/')) seen.push(r.url());
    });
    await page.goto(`/f/${other.appId}/settings`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    const html = await page.content();
    expect(html).not.toContain(OTHER_DISPLAY);
    expect(html).not.toContain(OTHER_KEY);
    expect(html).not.toContain(other.orgName);
    expect(await page.getByRole('link', { name: 'Settings' }).count()).toBe(0);
    // The page did not even ask for the other factory's data.
    expect(
      seen.filter((u) =>
        ['/v1/apps/', '/v1/api-keys', '/v1/repositories', '/v1/github/', '/v1/orgs/'].some((p) => u.includes(p)),
      ),
    ).toEqual([]);
  });

  it('a factory with no connected repository and no key says so, and its first key can be made there', async () => {
    const bare = await startWebGateway();
    const bareCtx = await newContext(browser, bare);
    try {
      const u = await createTenant(bare);
      // Revoke the one key createTenant minted, through the API.
      const keys = (await bare.call('GET', '/v1/api-keys', { token: u.loginToken, appId: u.appId })).body.data as {
        id: string;
      }[];
      expect(keys).toHaveLength(1);
      expect(
        (await bare.call('DELETE', `/v1/api-keys/${keys[0]!.id}`, { token: u.loginToken, appId: u.appId })).status,
      ).toBe(204);
      const p = await signIn(bareCtx, bare, u.loginToken);
      await p.waitForURL(factoryHome(u.appId));
      await p.goto(`/f/${u.appId}/settings`);
      // No repository connected: the API answers [] without asking GitHub (this gateway has no App at all).
      expect(await p.getByTestId('repositories-empty').innerText()).toContain(
        'No repository is connected to this factory.',
      );
      expect(await p.getByTestId('api-keys-empty').innerText()).toBe('No live API key in this factory.');
      // No installation bound: no connect form, a pointer to the installations section, which says so.
      expect(await p.getByTestId('connect-needs-installation').innerText()).toContain(
        'first bind the App installation',
      );
      expect(await p.getByTestId('connect-form').count()).toBe(0);
      expect(await p.getByTestId('installations-empty').innerText()).toContain(
        'No App installation is bound to this factory',
      );
      // This gateway has no GitHub App: asking for an install link says why, on the page.
      await p.getByRole('button', { name: 'Install the App on GitHub…' }).click();
      expect(await p.getByTestId('install-link-error').innerText()).toContain(
        'The gateway cannot reach GitHub as its App',
      );
      // Creating the first key still works from here.
      await p.getByTestId('create-key-form').getByLabel('Name').fill('first');
      await p.getByTestId('create-key-form').getByRole('button', { name: 'Create key' }).click();
      await p.getByTestId('api-keys-table').getByRole('cell', { name: 'first', exact: true }).waitFor();
      expect(await p.getByTestId('api-keys-empty').count()).toBe(0);
    } finally {
      await bareCtx.close();
      await bare.close();
    }
  });
});
