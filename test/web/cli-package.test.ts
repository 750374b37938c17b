// The CLI as a developer gets it: the gateway serves the light package `npm run build` writes, npm installs it
// from the gateway's URL into an empty prefix, and the installed `attest` logs in, installs its Claude Code
// hooks and sends a session at SessionEnd, which then shows on the dashboard's sessions page.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { buildCliPackage } from '../../scripts/cli-package.js';
import { cliHome, ROOT, writeSmallTranscript } from '../cli/cli-helpers.js';
import { createTenant, type Tenant } from '../helpers/gateway.js';
import { testTempDir } from '../helpers/tmp.js';
import {
  describeInBrowser,
  launchBrowser,
  newContext,
  openFactoryHome,
  startWebGateway,
  type WebGateway,
} from './helpers.js';

const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let gw: WebGateway;
let t: Tenant;
let tmp: string;
let tgz: string;
/** The npm prefix the package is installed into (what `npm install -g` uses on a laptop). */
let prefix: string;

beforeAll(async () => {
  tmp = testTempDir('attest-cli-package-');
  tgz = path.join(tmp, 'attest-cli.tgz');
  prefix = path.join(tmp, 'prefix');
  gw = await startWebGateway({ env: { ATTEST_CLI_PACKAGE: tgz } });
  t = await createTenant(gw, { plan: 'paid' });
}, 240_000);
afterAll(async () => {
  await gw?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const proc = spawn(command, args, { cwd: tmp, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    proc.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    proc.on('error', reject);
    proc.on('close', (code) => resolve({ code, stdout, stderr }));
    proc.stdin.end(stdin);
  });
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const DOWNLOAD = () => `${gw.base}/downloads/attest-cli.tgz`;

describe('GET /downloads/attest-cli.tgz', { timeout: 120_000 }, () => {
  it('is a 404 that says how to build it until the build writes it, then serves it with an ETag', async () => {
    const missing = await fetch(DOWNLOAD());
    expect(missing.status).toBe(404);
    const envelope = (await missing.json()) as { error: { code: string; message: string } };
    expect(envelope.error.code).toBe('cli_package_not_built');
    expect(envelope.error.message).toContain('npm run build');
    // Another path under /downloads is the API's 404, not the dashboard's index.html.
    const other = await fetch(`${gw.base}/downloads/other.tgz`, { headers: { accept: 'text/html' } });
    expect(other.status).toBe(404);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('route_not_found');

    await buildCliPackage(tgz);
    const res = await fetch(DOWNLOAD());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(fs.readFileSync(tgz))).toBe(true);
    // A tar of the package: its manifest declares the bin and depends on nothing.
    const tar = zlib.gunzipSync(body).toString('latin1');
    expect(tar).toContain('package/dist/attest.js');
    const manifest = JSON.parse(/(\{\s*"name": "attest-cli"[\s\S]*?\n\})/.exec(tar)![1]!) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: 'attest-cli', version: VERSION, bin: { attest: 'dist/attest.js' } });
    expect(manifest.dependencies).toBeUndefined();

    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    const again = await fetch(DOWNLOAD(), { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect((await again.arrayBuffer()).byteLength).toBe(0);
    const stale = await fetch(DOWNLOAD(), { headers: { 'if-none-match': '"an-older-build"' } });
    expect(stale.status).toBe(200);
    await stale.arrayBuffer();
  });

  it('npm installs it from the gateway into an empty prefix: `attest` runs with nothing else installed', async () => {
    const npm = await run(
      'npm',
      ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', DOWNLOAD()],
      process.env,
    );
    expect(npm.code, npm.stderr).toBe(0);
    const installed = path.join(prefix, 'lib', 'node_modules', 'attest-cli');
    // Nothing but the bundle: no node_modules, so none of the server's packages came along.
    expect(fs.readdirSync(installed).sort()).toEqual(['dist', 'package.json']);
    expect(fs.readdirSync(path.join(prefix, 'lib', 'node_modules'))).toEqual(['attest-cli']);

    const version = await run(path.join(prefix, 'bin', 'attest'), ['--version'], process.env);
    expect(version).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
    const serve = await run(path.join(prefix, 'bin', 'attest'), ['serve'], process.env);
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain('the light CLI package does not include');
  });
});

describeInBrowser('the whole path once', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('login, init, and a SessionEnd hook put the session on the dashboard', { timeout: 120_000 }, async () => {
    const bin = path.join(prefix, 'bin', 'attest');
    expect(fs.existsSync(bin), 'the install test runs first').toBe(true);
    const home = cliHome();
    const login = await run(bin, ['login', '--url', gw.base, '--token', t.loginToken, '--app-id', t.appId], home.env);
    expect(login.code, login.stderr).toBe(0);
    const init = await run(bin, ['init', '--agent', 'claude-code'], home.env);
    expect(init.code, init.stderr).toBe(0);
    const settings = JSON.parse(fs.readFileSync(path.join(home.dir, '.claude', 'settings.json'), 'utf8'));
    const command = settings.hooks.SessionEnd[0].hooks[0].command as string;
    expect(command).toBe(`${bin} hook claude-code`);

    // Claude Code runs the hook through a shell with the event on stdin.
    const sessionId = 'c11c11c1-0000-4000-8000-000000000040';
    const payload = {
      session_id: sessionId,
      transcript_path: writeSmallTranscript(home, sessionId),
      cwd: home.dir,
      hook_event_name: 'SessionEnd',
      reason: 'exit',
    };
    const hook = await run('/bin/sh', ['-c', command], home.env, JSON.stringify(payload));
    expect(hook).toMatchObject({ code: 0, stdout: '' });

    const title = await until('the session on the gateway', async () => {
      const res = await gw.call('GET', '/v1/sessions?repoScope=all', { token: t.factoryKey, appId: t.appId });
      const found = (res.body.data.sessions as { sessionId: string; title: string }[]).find(
        (s) => s.sessionId === sessionId,
      );
      return found?.title;
    });
    const ctx = await newContext(browser, gw);
    const page = await openFactoryHome(ctx, gw, t);
    await page.goto(`${gw.base}/f/${t.appId}/sessions?repoScope=all`);
    const links = page.locator('table a[href*="/sessions/"]');
    await links.first().waitFor();
    expect(await links.allInnerTexts()).toEqual([title]);
    await ctx.close();
  });
});
