// attest work pr: opens, then edits, the work item's pull request through a real gateway whose code host is
// the GitHub double (a real HTTP server speaking GitHub's REST routes).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../helpers/gateway.js';
import { startGatewayWithGitHub, type GatewayWithGitHub } from '../github-double/setup.js';
import { cliHome, type CliHome } from './cli-helpers.js';
import { bindInstallation } from '../github-double/setup.js';

let env: GatewayWithGitHub;
let url: string;
let tenant: Tenant;
let home: CliHome;

beforeAll(async () => {
  env = await startGatewayWithGitHub();
  url = await env.gw.app.listen({ port: 0, host: '127.0.0.1' });
  tenant = await createTenant(env.gw, { plan: 'paid' });
  const installation = env.github.addInstallation('acme');
  env.github.addRepository('acme/api', { installation });
  await bindInstallation(env.gw, tenant.appId, installation.id);
  const connected = await env.gw.call('POST', '/v1/repositories', {
    token: tenant.factoryKey,
    appId: tenant.appId,
    body: { repository: 'acme/api', installationId: installation.id },
  });
  expect(connected.status).toBe(201);
  home = cliHome();
  const login = await home.run(['login', '--url', url, '--api-key', tenant.factoryKey, '--app-id', tenant.appId]);
  expect(login.code, login.stderr).toBe(0);
});
afterAll(async () => {
  await env.close();
});

describe('attest work pr', { timeout: 300_000 }, () => {
  it('opens the pull request from the claimed branch, then edits it; errors carry the gateway code', async () => {
    const item = await env.gw.call('POST', '/v1/work-items', {
      token: tenant.factoryKey,
      appId: tenant.appId,
      body: { tracker: 'github', trackerKey: 'acme/api#7', title: 'Widget', repository: 'acme/api' },
    });
    expect(item.status).toBe(201);
    const number = String(item.body.data.number);
    const claim = await home.run(['work', 'claim', number, '--branch', 'attest/widget']);
    expect(claim.code, claim.stderr).toBe(0);
    const bodyFile = path.join(home.dir, 'body.md');
    fs.writeFileSync(bodyFile, 'Adds the widget.\n');

    // Nothing pushed yet: the gateway's 422 reaches the user as is.
    const unpushed = await home.run(['work', 'pr', number, '--title', 'Add the widget', '--body-file', bodyFile]);
    expect(unpushed.code).toBe(2);
    expect(unpushed.stderr).toMatch(/422 branch_not_pushed/);

    env.github.pushBranch('acme/api', 'attest/widget', 2);
    const opened = await home.run([
      'work',
      'pr',
      number,
      '--title',
      'Add the widget',
      '--body-file',
      bodyFile,
      '--json',
    ]);
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.json).toMatchObject({ repository: 'acme/api', created: true });
    expect(env.github.openPulls('acme/api', 'attest/widget')).toHaveLength(1);

    const edited = await home.run(['work', 'pr', number, '--title', 'Add the widget (v2)', '--body-file', bodyFile]);
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stdout).toMatch(new RegExp(`^Updated acme/api#${opened.json.number}: `));
    expect(env.github.openPulls('acme/api', 'attest/widget')[0]!.title).toBe('Add the widget (v2)');
  });
});
