// `attest serve` and `attest admin ...` as a user runs them: a spawned process on a temp data dir.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { testTempDir } from '../helpers/tmp.js';
import { cliArgv } from '../helpers/cli-main.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Running {
  proc: ChildProcessWithoutNullStreams;
  url: string;
  stdout: () => string;
  exited: Promise<number | null>;
}

const running: Running[] = [];
afterEach(() => {
  for (const r of running.splice(0)) r.proc.kill('SIGKILL');
});

// Data dirs hold plaintext admin tokens: none is left behind in /tmp.
const dataDirs: string[] = [];
function tempDataDir(): string {
  const dir = testTempDir('attest-cli-');
  dataDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dataDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: '0',
    ...extra,
  };
  if (process.env.TEST_DATABASE_URL) {
    // The CLI tests prove the embedded default; the store tests cover PostgreSQL.
    delete env.DATABASE_URL;
  }
  return env;
}

async function serve(dataDir: string, env: Record<string, string> = {}): Promise<Running> {
  const proc = spawn(process.execPath, [...cliArgv(), 'serve', '--data-dir', dataDir], {
    cwd: ROOT,
    env: cleanEnv(env),
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return waitListening(proc, exited);
}

async function waitListening(proc: ChildProcessWithoutNullStreams, exited: Promise<number | null>): Promise<Running> {
  let out = '';
  proc.stdout.on('data', (b: Buffer) => {
    out += b.toString();
  });
  proc.stderr.on('data', (b: Buffer) => {
    out += b.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 60_000);
    proc.stdout.on('data', () => {
      const m = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    proc.on('exit', () => reject(new Error(`serve exited: ${out}`)));
  });
  const r = { proc, url, stdout: () => out, exited };
  running.push(r);
  return r;
}

function admin(url: string, token: string, args: string[]) {
  return spawnSync(process.execPath, [...cliArgv(), 'admin', '--url', url, '--token', token, ...args], {
    cwd: ROOT,
    env: cleanEnv({}),
    encoding: 'utf8',
  });
}

describe('attest serve', { timeout: 180_000 }, () => {
  it('first boot prints bootstrap credentials once, saves them 0600; a restart keeps data, prints none', async () => {
    const dataDir = tempDataDir();
    const first = await serve(dataDir);
    const saved = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8'));
    expect(first.stdout()).toContain(saved.adminToken);
    expect(first.stdout()).toContain(saved.loginToken);
    expect(first.stdout()).toContain(saved.factory.id);
    expect(fs.statSync(path.join(dataDir, 'bootstrap.json')).mode & 0o777).toBe(0o600);
    const health = await fetch(`${first.url}/health`);
    expect(health.status).toBe(200);

    // Beside the credentials: a one-time dashboard sign-in link for the owner, on this listener's port.
    const port = new URL(first.url).port;
    const link = new RegExp(`http://localhost:${port}/auth/link/[A-Za-z0-9_-]{40,}`).exec(first.stdout())?.[0];
    expect(link, first.stdout()).toBeDefined();
    const opened = await fetch(link!.replace('localhost', '127.0.0.1'), { redirect: 'manual' });
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe('/');
    const cookie = /^attest_session=([^;]+)/.exec(opened.headers.get('set-cookie') ?? '')?.[1];
    expect(cookie).toMatch(/^ols_/);
    const me = await fetch(`${first.url}/v1/dashboard/session`, { headers: { cookie: `attest_session=${cookie}` } });
    expect(((await me.json()) as { data: { user: { email: string } } }).data.user.email).toBe('admin@localhost');
    const reused = await fetch(link!.replace('localhost', '127.0.0.1'), { redirect: 'manual' });
    expect(reused.headers.get('location')).toBe('/sign-in?reason=used');

    // attest admin, human and --json output.
    const created = admin(first.url, saved.adminToken, ['--json', 'user', 'create', 'ci@example.com', '--name', 'CI']);
    expect(created.status).toBe(0);
    const user = JSON.parse(created.stdout);
    expect(user.email).toBe('ci@example.com');
    const org = admin(first.url, saved.adminToken, ['org', 'create', 'robots', '--plan', 'paid']);
    expect(org.status).toBe(0);
    expect(org.stdout).toMatch(/created org robots/);
    const member = admin(first.url, saved.adminToken, ['member', 'add', 'robots', user.id, '--role', 'admin']);
    expect(member.status).toBe(0);
    const token = admin(first.url, saved.adminToken, ['user', 'login-token', user.id]);
    expect(token.stdout.trim()).toMatch(/^olu_/);
    const dup = admin(first.url, saved.adminToken, ['--json', 'user', 'create', 'ci@example.com', '--name', 'CI']);
    expect(dup.status).toBe(1);
    expect(JSON.parse(dup.stdout).error.code).toBe('duplicate_user_email');
    const wrongToken = admin(first.url, saved.loginToken, ['org', 'create', 'nope']);
    expect(wrongToken.status).toBe(1);
    expect(wrongToken.stderr).toMatch(/401/);

    first.proc.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = await serve(dataDir);
    expect(second.stdout()).not.toContain(saved.adminToken);
    expect(second.stdout()).not.toContain('First boot');
    expect(second.stdout()).not.toContain('/auth/link/');
    // The user created before the restart is still there.
    const again = admin(second.url, saved.adminToken, ['--json', 'user', 'create', 'ci@example.com', '--name', 'CI']);
    expect(JSON.parse(again.stdout).error.code).toBe('duplicate_user_email');
    second.proc.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('a first start failing after bootstrap (port in use) says where credentials are; so will the next', async () => {
    const dataDir = tempDataDir();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    const file = path.join(dataDir, 'bootstrap.json');
    try {
      const failed = spawnSync(
        process.execPath,
        [...cliArgv(), 'serve', '--data-dir', dataDir, '--port', String(port)],
        { cwd: ROOT, env: cleanEnv({}), encoding: 'utf8' },
      );
      expect(failed.status, failed.stdout + failed.stderr).toBe(1);
      expect(failed.stderr, failed.stdout).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(failed.stderr).toContain(`saved in ${file} (mode 0600)`);
      expect(failed.stderr).not.toMatch(/\n\s+at /); // no stack trace
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
    const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
    const next = await serve(dataDir);
    expect(next.stdout()).toContain(
      `Credentials of the first boot (admin token, login token, factory id) are in ${file}`,
    );
    expect(next.stdout()).not.toContain(saved.adminToken);
    next.proc.kill('SIGTERM');
    expect(await next.exited).toBe(0);
  }, 120_000); // two cold starts of the CLI through tsx: about 10 s each on a loaded 2-core machine

  it("writes a request's log line to stdout without waiting for traffic; flushes the rest on SIGTERM", async () => {
    // Log lines are written in batches (src/app.ts); a quiet gateway must still show its last request.
    const gw = await serve(tempDataDir(), { LOG_LEVEL: 'info' });
    const first = await fetch(`${gw.url}/health`, { headers: { 'x-request-id': 'log-probe-quiet' } });
    expect(first.status).toBe(200);
    await expect
      .poll(gw.stdout, { timeout: 5_000 })
      .toMatch(/"reqId":"log-probe-quiet".*"status":200.*"msg":"request completed"/);

    const second = await fetch(`${gw.url}/health`, { headers: { 'x-request-id': 'log-probe-last' } });
    expect(second.status).toBe(200);
    gw.proc.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
    await expect.poll(gw.stdout).toMatch(/"reqId":"log-probe-last".*"msg":"request completed"/);
  });

  it('SIGTERM drains an in-flight request before exiting', async () => {
    const dataDir = tempDataDir();
    const gw = await serve(dataDir);
    const saved = JSON.parse(fs.readFileSync(path.join(dataDir, 'bootstrap.json'), 'utf8'));
    const body = JSON.stringify({ email: 'late@example.com', name: 'Late' });
    const target = new URL(`${gw.url}/v1/admin/users`);
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: {
            authorization: `Bearer ${saved.adminToken}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            // The server answers 100 Continue as it hands the request to the gateway: from then the request
            // is in flight. A fixed wait stood for that, and on a loaded machine the signal landed first (503).
            expect: '100-continue',
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => {
            text += c.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      // Once the request is in flight: half the body; SIGTERM; the rest after the signal has landed.
      req.on('continue', () => {
        req.write(body.slice(0, 10));
        gw.proc.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 500);
      });
      req.flushHeaders();
    });
    const answered = await response;
    expect(answered.status).toBe(201);
    expect(JSON.parse(answered.body).data.email).toBe('late@example.com');
    expect(await gw.exited).toBe(0);
  });

  it('attest migrate applies the migrations and is idempotent', () => {
    const dataDir = tempDataDir();
    const run = () =>
      spawnSync(process.execPath, [...cliArgv(), 'migrate', '--data-dir', dataDir], {
        cwd: ROOT,
        env: cleanEnv({}),
        encoding: 'utf8',
      });
    const first = run();
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/Applied: 0001_core/);
    const second = run();
    expect(second.status).toBe(0);
    expect(second.stdout).toMatch(/Already up to date/);
  });

  it('attest admin new-token prints a token the gateway accepts as ATTEST_ADMIN_TOKEN', () => {
    const r = spawnSync(process.execPath, [...cliArgv(), 'admin', 'new-token'], {
      cwd: ROOT,
      env: cleanEnv({}),
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toMatch(/^ola_[0-9A-Za-z]{42}$/);
  });
});
