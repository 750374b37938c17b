// `attest dashboard` as a user runs it: a spawned CLI against a real gateway prints a one-time sign-in link
// that opens a session, opens it with the desktop's opener when there is a desktop, and never fails because
// opening failed.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliHome, listeningGateway, type CliHome, type ListeningGateway } from './cli-helpers.js';

const LINK = /http:\/\/attest\.test\/auth\/link\/[A-Za-z0-9_-]{40,}/;

describe('attest dashboard', { timeout: 120_000 }, () => {
  let g: ListeningGateway;
  let home: CliHome;
  let bin: string;

  beforeAll(async () => {
    g = await listeningGateway();
    home = cliHome();
    const login = await home.run(['login', '--url', g.url, '--token', g.tenant.loginToken]);
    expect(login.code, login.stderr).toBe(0);
    bin = path.join(home.dir, 'bin');
    fs.mkdirSync(bin);
  });
  afterAll(async () => {
    await g?.close();
    if (home) fs.rmSync(home.dir, { recursive: true, force: true });
  });

  const openLink = async (url: string) => g.gw.call('GET', new URL(url).pathname);

  it('prints a fresh one-time link that signs the browser in once (no desktop: nothing is opened)', async () => {
    const r = await home.run(['dashboard']);
    expect(r.code, r.stderr).toBe(0);
    const url = LINK.exec(r.stdout)?.[0];
    expect(url).toBeDefined();
    expect(r.stdout).not.toContain('Opened');
    const opened = await openLink(url!);
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toBe('/');
    expect(String(opened.headers['set-cookie'])).toMatch(/^attest_session=ols_/);
    expect((await openLink(url!)).headers.location).toBe('/sign-in?reason=used');

    const second = await home.run(['dashboard', '--json']);
    expect(second.code).toBe(0);
    expect(second.json.url).toMatch(LINK);
    expect(second.json.url).not.toBe(url);
    expect(second.json.opened).toBe(false);
    expect(second.json.expiresAt).toBe(new Date(g.gw.clock.now() + 10 * 60_000).toISOString());
  });

  it('on a desktop (DISPLAY set) opens the link with xdg-open', async () => {
    const record = path.join(home.dir, 'opened.txt');
    fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${record}'\n`, { mode: 0o755 });
    const r = await home.run(['dashboard'], { DISPLAY: ':0', PATH: `${bin}:${process.env.PATH ?? ''}` });
    expect(r.code, r.stderr).toBe(0);
    const url = LINK.exec(r.stdout)?.[0];
    expect(url, r.stdout + r.stderr).toBeDefined();
    expect(fs.readFileSync(record, 'utf8')).toBe(url);
    expect(r.stdout).toContain('Opened it in your browser.');
    expect((await openLink(url!)).headers.location).toBe('/');

    // --no-open prints only.
    fs.rmSync(record);
    const quiet = await home.run(['dashboard', '--no-open'], {
      DISPLAY: ':0',
      PATH: `${bin}:${process.env.PATH ?? ''}`,
    });
    expect(quiet.code).toBe(0);
    expect(fs.existsSync(record)).toBe(false);
  });

  it('an opener that fails or is missing never fails the command; the link is still printed', async () => {
    const failing = path.join(home.dir, 'bin-failing');
    fs.mkdirSync(failing);
    fs.writeFileSync(path.join(failing, 'xdg-open'), '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    const empty = path.join(home.dir, 'bin-empty');
    fs.mkdirSync(empty);
    for (const [PATH, extra] of [
      [failing, { WAYLAND_DISPLAY: 'wayland-0' }],
      [empty, { DISPLAY: ':0' }],
    ] as const) {
      const r = await home.run(['dashboard'], { PATH, ...extra });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout, r.stderr).toMatch(LINK);
      expect(r.stdout).toContain('Could not open a browser (xdg-open)');
    }
  });

  it('with a factory API key instead of a login token: exit 1 saying a login token is needed', async () => {
    const keyHome = cliHome();
    try {
      const login = await keyHome.run([
        'login',
        '--url',
        g.url,
        '--api-key',
        g.tenant.factoryKey,
        '--app-id',
        g.tenant.appId,
      ]);
      expect(login.code, login.stderr).toBe(0);
      const r = await keyHome.run(['dashboard']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('attest dashboard needs a login token');
      expect(r.stdout).not.toMatch(LINK);
    } finally {
      fs.rmSync(keyHome.dir, { recursive: true, force: true });
    }
  });

  it('not logged in: exit 1 with how to log in', async () => {
    const fresh = cliHome();
    try {
      const r = await fresh.run(['dashboard']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('attest login');
    } finally {
      fs.rmSync(fresh.dir, { recursive: true, force: true });
    }
  });
});
