// `attest watch` and `attest statusline` against a real gateway. The watcher runs in this process (its sends
// go through `attest sync`'s code over HTTP, behind a counting proxy that can be taken down and brought back);
// the status line runs in-process where only its output matters, and once as a real process against a gateway
// that never answers.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watcherCheck } from '../../src/cli/doctor.js';
import { refreshRemote, statusText } from '../../src/cli/capture/statusline.js';
import { runSync } from '../../src/cli/sync.js';
import { readWatchStatus, runningWatcher, type SendOutcome, serviceInstall, startWatch } from '../../src/cli/watch.js';
import { cliArgv } from '../helpers/cli-main.js';
import { createTenant } from '../helpers/gateway.js';
import { cliHome, type CliHome, listeningGateway, type ListeningGateway, ROOT } from './cli-helpers.js';

const MODEL = 'claude-sonnet-4-5-20250929';

/**
 * A Claude Code transcript of assistant turns priced by hand at Sonnet 4.5's list prices: input $3, output $15,
 * cache read $0.30 per million tokens.
 */
function transcript(
  file: string,
  sessionId: string,
  turns: { at: number; usage: Record<string, number> }[],
  cwd = '/tmp',
) {
  const lines = turns.flatMap((t, i) => [
    {
      type: 'user',
      sessionId,
      uuid: `u-${i}`,
      timestamp: new Date(t.at - 1000).toISOString(),
      cwd,
      gitBranch: 'feat/status',
      message: { role: 'user', content: `step ${i}` },
    },
    {
      type: 'assistant',
      sessionId,
      uuid: `a-${i}`,
      parentUuid: `u-${i}`,
      timestamp: new Date(t.at).toISOString(),
      cwd,
      gitBranch: 'feat/status',
      message: {
        id: `msg_${sessionId.slice(0, 8)}_${i}`,
        role: 'assistant',
        model: MODEL,
        content: [{ type: 'text', text: 'done' }],
        usage: {
          input_tokens: 0,
          output_tokens: 0,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
          ...t.usage,
        },
      },
    },
  ]);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
}
// $1.50 output + $0.03 input = $1.53;  $0.75 output + $0.03 cache read = $0.78;  $0.30 + $0.15 = $0.45.
const T153 = { output_tokens: 100_000, input_tokens: 10_000 };
const T078 = { output_tokens: 50_000, cache_read_input_tokens: 100_000 };
const T045 = { output_tokens: 20_000, input_tokens: 50_000 };

let g: ListeningGateway;
let proxy: Awaited<ReturnType<typeof countingProxy>>;
const homes: CliHome[] = [];
beforeAll(async () => {
  g = await listeningGateway();
  proxy = await countingProxy(g.url);
});
afterAll(async () => {
  await proxy?.close();
  await g?.close();
});

/** In front of the gateway: counts the sync requests, and can stop listening (refused) and listen again. */
async function countingProxy(target: string) {
  const upstream = new URL(target);
  let syncs = 0;
  const server = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/v1/agents/sync') syncs += 1;
    const out = http.request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    syncs: () => syncs,
    down: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
    up: () => new Promise<void>((r) => server.listen(port, '127.0.0.1', r)),
    close: () =>
      new Promise<void>((r) => {
        if (!server.listening) return r();
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** A user logged in to the gateway (through the proxy), with this process's environment pointing at it. */
function loggedInHome(url = proxy.url, tenant = g.tenant): CliHome {
  const home = cliHome();
  homes.push(home);
  fs.mkdirSync(path.dirname(home.profileFile), { recursive: true });
  fs.writeFileSync(home.profileFile, JSON.stringify({ url, token: tenant.factoryKey, appId: tenant.appId }), {
    mode: 0o600,
  });
  // runSync reads the profile, transcript roots and watermarks from process.env, as the CLI does.
  for (const k of ['ATTEST_URL', 'ATTEST_API_KEY', 'ATTEST_APP_ID']) delete process.env[k];
  Object.assign(process.env, home.env);
  return home;
}

async function listed(tenant = g.tenant): Promise<string[]> {
  const res = await g.gw.call('GET', '/v1/sessions?repoScope=all&limit=100', {
    token: tenant.factoryKey,
    appId: tenant.appId,
  });
  expect(res.status).toBe(200);
  return (res.body.data.sessions as { sessionId: string }[]).map((s) => s.sessionId);
}

/** The sends of a watcher, and a way to wait for the next one that matches. */
function sends() {
  const all: SendOutcome[] = [];
  const waiters: { test: (o: SendOutcome) => boolean; resolve: (o: SendOutcome) => void }[] = [];
  return {
    all,
    onSend(o: SendOutcome) {
      all.push(o);
      for (const w of waiters.splice(0))
        if (w.test(o)) w.resolve(o);
        else waiters.push(w);
    },
    next(test: (o: SendOutcome) => boolean): Promise<SendOutcome> {
      const seen = all.find(test);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
  };
}

const fast = { tier: 'redacted' as const, debounceMs: 50, maxWaitMs: 1000, backoffBaseMs: 50, backoffMaxMs: 400 };

describe('attest watch', { timeout: 120_000 }, () => {
  it('sends a transcript written after it started, and sends nothing again after a restart', async () => {
    const home = loggedInHome();
    const s = sends();
    const first = startWatch({ ...fast, rescanMs: 600_000, events: true, env: process.env, onSend: s.onSend });
    await first.idle();
    expect(runningWatcher(process.env)).toBe(process.pid);
    const id = crypto.randomUUID();
    transcript(path.join(home.claudeDir, 'proj', `${id}.jsonl`), id, [{ at: Date.now() - 60_000, usage: T153 }]);
    const sent = await s.next((o) => o.sessionIds.includes(id));
    expect(sent).toMatchObject({ scan: false, sent: 1 });
    expect(sent.error).toBeUndefined();
    expect(await listed()).toContain(id);
    expect(readWatchStatus(process.env)?.lastSendAt).toBe(sent.at);
    expect(watcherCheck(process.pid, false)).toMatchObject({ name: 'watcher', ok: true });
    await first.stop();
    expect(runningWatcher(process.env)).toBeUndefined();

    const syncs = proxy.syncs();
    const again = sends();
    const second = startWatch({ ...fast, rescanMs: 600_000, events: true, env: process.env, onSend: again.onSend });
    const rescan = await again.next((o) => o.scan);
    await second.stop();
    expect(rescan).toMatchObject({ sent: 0, sessionIds: [] });
    expect(proxy.syncs()).toBe(syncs);
  });

  it('keeps what changed while the gateway is down, backs off, and sends it once the gateway is back', async () => {
    const home = loggedInHome();
    const s = sends();
    const w = startWatch({ ...fast, rescanMs: 600_000, events: true, env: process.env, onSend: s.onSend });
    await w.idle();
    await proxy.down();
    const id = crypto.randomUUID();
    transcript(path.join(home.claudeDir, 'proj', `${id}.jsonl`), id, [{ at: Date.now() - 60_000, usage: T078 }]);
    const failed = await s.next((o) => o.error !== undefined);
    const failedAgain = await s.next((o) => o.error !== undefined && o !== failed);
    expect(failed.retryInMs).toBe(50);
    expect(failedAgain.retryInMs).toBe(100);
    expect(readWatchStatus(process.env)).toMatchObject({ waiting: 1, lastError: expect.stringMatching(/gateway/i) });
    expect(await listed()).not.toContain(id);
    await proxy.up();
    const sent = await s.next((o) => o.sessionIds.includes(id));
    await w.stop();
    expect(sent.sent).toBe(1);
    expect((await listed()).filter((x) => x === id)).toHaveLength(1);
  });

  it('finds a session by its rescans alone (the fs events a sleeping laptop missed)', async () => {
    const home = loggedInHome();
    const s = sends();
    const w = startWatch({ ...fast, rescanMs: 200, events: false, env: process.env, onSend: s.onSend });
    await s.next((o) => o.scan);
    const id = crypto.randomUUID();
    transcript(path.join(home.claudeDir, 'proj', `${id}.jsonl`), id, [{ at: Date.now() - 60_000, usage: T045 }]);
    const sent = await s.next((o) => o.scan && o.sessionIds.includes(id));
    await w.stop();
    expect(sent.sent).toBe(1);
    expect(await listed()).toContain(id);
  });

  it('--install writes a systemd unit or a launchd agent naming the binary, and --remove takes it out', () => {
    const home = loggedInHome();
    const bin = path.join(home.dir, 'bin', 'attest');
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    fs.writeFileSync(bin, '#!/bin/sh\n', { mode: 0o755 });
    const linux = serviceInstall({ platform: 'linux', bin, tier: 'redacted' }, home.env);
    const unitFile = path.join(home.dir, 'config', 'systemd', 'user', 'attest-watch.service');
    expect(linux).toMatchObject({ file: unitFile, changed: true });
    const unit = fs.readFileSync(unitFile, 'utf8');
    expect(unit).toContain(`\nExecStart=${bin} watch\n`);
    expect(unit).toContain(`\nEnvironment=ATTEST_CLAUDE_DIR=${home.claudeDir}\n`);
    expect(unit).toContain('\nWantedBy=default.target\n');
    expect(linux.start).toBe('systemctl --user daemon-reload && systemctl --user enable --now attest-watch.service');
    expect(linux.stop).toBe('systemctl --user disable --now attest-watch.service');
    expect(serviceInstall({ platform: 'linux', bin, tier: 'redacted' }, home.env).changed).toBe(false);
    // Installed and not running: doctor says how to start it.
    expect(watcherCheck(undefined, true, 'linux', home.env)).toMatchObject({
      ok: false,
      fix: expect.stringContaining('enable --now attest-watch.service'),
    });

    const mac = serviceInstall({ platform: 'darwin', bin, tier: 'full' }, home.env);
    const plist = path.join(home.dir, 'Library', 'LaunchAgents', 'dev.attest.watch.plist');
    expect(mac.file).toBe(plist);
    const text = fs.readFileSync(plist, 'utf8');
    expect(text).toContain(
      `<array>\n    <string>${bin}</string>\n    <string>watch</string>\n    <string>--tier</string>\n    ` +
        `<string>full</string>\n  </array>`,
    );
    expect(text).toContain('<key>Label</key><string>dev.attest.watch</string>');
    expect(mac.start).toBe(`launchctl bootstrap gui/$(id -u) ${plist}`);

    expect(serviceInstall({ platform: 'linux', bin, tier: 'redacted', remove: true }, home.env)).toMatchObject({
      removed: true,
    });
    expect(serviceInstall({ platform: 'darwin', bin, tier: 'redacted', remove: true }, home.env).removed).toBe(true);
    expect(fs.existsSync(unitFile) || fs.existsSync(plist)).toBe(false);
    expect(serviceInstall({ platform: 'linux', bin, tier: 'redacted', remove: true }, home.env).removed).toBe(false);
    expect(watcherCheck(undefined, true, 'linux', home.env)).toMatchObject({ ok: true });
    expect(watcherCheck(undefined, false, 'linux', home.env)).toMatchObject({ ok: false });
  });
});

describe('attest statusline', { timeout: 120_000 }, () => {
  it("shows this session's cost and today's total, priced from the transcripts", async () => {
    const home = cliHome();
    homes.push(home);
    const noon = new Date(2026, 10, 27, 12, 0, 0).getTime(); // local time: "today" is Nov 27
    const a = crypto.randomUUID();
    const b = crypto.randomUUID();
    const fileA = path.join(home.claudeDir, 'proj', `${a}.jsonl`);
    const fileB = path.join(home.claudeDir, 'proj', `${b}.jsonl`);
    transcript(fileA, a, [
      { at: noon - 24 * 3_600_000, usage: T153 }, // yesterday
      { at: noon - 3_600_000, usage: T078 },
    ]);
    transcript(fileB, b, [{ at: noon - 60_000, usage: T045 }]);
    const line = (id: string, file: string, now = noon) =>
      statusText({ session_id: id, transcript_path: file, cwd: home.dir }, { env: home.env, now });

    expect(await line(a, fileA)).toBe('attest session $2.31 · today $0.78');
    expect(await line(b, fileB)).toBe('attest session $0.45 · today $1.23');
    // A, grown by a turn: priced anew.
    transcript(fileA, a, [
      { at: noon - 24 * 3_600_000, usage: T153 },
      { at: noon - 3_600_000, usage: T078 },
      { at: noon - 1000, usage: T045 },
    ]);
    expect(await line(a, fileA)).toBe('attest session $2.76 · today $1.68');
    // The next day starts from nothing but the session that runs.
    expect(await line(b, fileB, noon + 24 * 3_600_000)).toBe('attest session $0.45 · today $0.00');
  });

  it("adds today's factory spend against the day budget and the verdict of the branch's pull request", async () => {
    const tenant = await createTenant(g.gw, { plan: 'paid' });
    // A working tree on branch feat/status of acme/shop, where a session ran today.
    const home = loggedInHome(g.url, tenant);
    const repo = path.join(home.dir, 'shop');
    fs.mkdirSync(repo);
    for (const args of [
      ['init', '-q', '-b', 'feat/status'],
      ['remote', 'add', 'origin', 'https://github.com/acme/shop.git'],
    ])
      expect(spawnSync('git', ['-C', repo, ...args]).status).toBe(0);
    // The gateway's day is its (test) clock's: the session ran a minute before its now.
    const now = g.gw.clock.now();
    const id = crypto.randomUUID();
    const file = path.join(home.claudeDir, 'proj', `${id}.jsonl`);
    transcript(file, id, [{ at: now - 60_000, usage: T153 }], repo);
    const run = await runSync({ tier: 'redacted', quiet: true, progress: false });
    expect(run.sessionIds).toEqual([id]);
    const auth = { token: tenant.factoryKey, appId: tenant.appId };
    const budget = await g.gw.call('POST', '/v1/budgets', {
      ...auth,
      body: { name: 'daily', scope: { kind: 'factory' }, amountUsd: 20, period: 'day' },
    });
    expect(budget.status, budget.text).toBe(201);
    const reported = await g.gw.call('POST', '/v1/prs/reported', {
      ...auth,
      body: {
        pullRequests: [
          {
            repository: 'acme/shop',
            number: 7,
            url: 'https://github.com/acme/shop/pull/7',
            title: 'Status',
            state: 'open',
            author: 'alice',
            branch: 'feat/status',
            baseBranch: 'main',
            headSha: 'a'.repeat(40),
            openedAt: new Date(now - 3_600_000).toISOString(),
            updatedAt: new Date(now).toISOString(),
            closedAt: null,
            mergedAt: null,
          },
        ],
      },
    });
    expect(reported.status, reported.text).toBeLessThan(300);
    const verdict = await g.gw.call('GET', '/v1/prs/acme/shop/7/verdict', auth);
    expect(verdict.status, verdict.text).toBe(200);
    const { verdict: v, flagged } = verdict.body.data as { verdict: string; flagged: number };

    const input = { session_id: id, transcript_path: file, cwd: repo };
    const refreshes: string[][] = [];
    const before = await statusText(input, { env: home.env, now, refresh: (args) => refreshes.push(args) });
    expect(before).toBe('attest session $1.53 · today $1.53');
    expect(refreshes).toEqual([['--dir', repo, '--branch', 'feat/status']]);
    await refreshRemote({ dir: repo, branch: 'feat/status' }, home.env, () => now);
    refreshes.length = 0;
    const after = await statusText(input, { env: home.env, now, refresh: (args) => refreshes.push(args) });
    // $1.53 of $20.00 is 7.65 %.
    expect(after).toBe(
      `attest session $1.53 · today $1.53 · factory $1.53/$20.00 (8%) · PR #7 ${v}` +
        `${flagged > 0 ? ` (${flagged} flagged)` : ''}`,
    );
    expect(refreshes).toEqual([]);
    // 61 s later the cache is stale: the line stays as it was and a refresh is asked for.
    const later = await statusText(input, {
      env: home.env,
      now: now + 61_000,
      refresh: (a) => refreshes.push(a),
    });
    expect(later).toContain('PR #7');
    expect(refreshes).toHaveLength(1);
  });

  it('prints its line and exits 0 at once when the gateway never answers', async () => {
    const hanging = http.createServer(() => undefined);
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    const home = loggedInHome(`http://127.0.0.1:${(hanging.address() as AddressInfo).port}`);
    const id = crypto.randomUUID();
    const file = path.join(home.claudeDir, 'proj', `${id}.jsonl`);
    transcript(file, id, [{ at: Date.now() - 60_000, usage: T045 }]);
    const out = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const p = spawn(process.execPath, [...cliArgv(), 'statusline'], {
        cwd: ROOT,
        env: home.env,
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      let stdout = '';
      p.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
      p.on('error', reject);
      p.on('close', (code) => resolve({ code, stdout }));
      p.stdin.end(JSON.stringify({ session_id: id, transcript_path: file, cwd: home.dir }));
    });
    expect(out).toEqual({ code: 0, stdout: 'attest session $0.45 · today $0.45\n' });
    // The gateway was asked in the background: the refresh still waits for its answer.
    expect(fs.existsSync(path.join(home.dir, 'state', 'attest', 'statusline', 'refresh.lock'))).toBe(true);
    hanging.closeAllConnections();
    await new Promise<void>((r) => hanging.close(() => r()));
    // The refresh failed and said why; the status line does not ask again within the minute.
    const sl = path.join(home.dir, 'state', 'attest', 'statusline');
    for (const end = Date.now() + 30_000; fs.existsSync(path.join(sl, 'refresh.lock')); ) {
      if (Date.now() > end) throw new Error('the background refresh did not finish');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(fs.readFileSync(path.join(sl, 'statusline.log'), 'utf8')).toContain('"refresh":true');
    const refreshes: string[][] = [];
    const input = { session_id: id, transcript_path: file, cwd: home.dir };
    expect(await statusText(input, { env: home.env, refresh: (a) => refreshes.push(a) })).toBe(
      'attest session $0.45 · today $0.45',
    );
    expect(refreshes).toEqual([]);
  });
});
