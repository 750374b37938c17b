// The automatic capture, as a user gets it: `attest init` against a temporary HOME with real settings files,
// then the very hook command init wrote, run by `sh -c` with Claude Code's and Codex's payloads, sending the
// session to a real gateway through the spool and the background drain.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spoolPaths } from '../../src/cli/capture/paths.js';
import { takeLock } from '../../src/cli/capture/spool.js';
import { cliCommandLine } from '../helpers/cli-main.js';
import {
  cliHome,
  listeningGateway,
  loginWithFactoryKey,
  writeCodexRollout,
  writeSmallTranscript,
  ROOT,
  type CliHome,
  type ListeningGateway,
} from './cli-helpers.js';

let g: ListeningGateway;
beforeAll(async () => {
  g = await listeningGateway();
});
afterAll(async () => {
  await g.close();
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a command line as an agent does (sh -c), with stdin, in `cwd`, with the home's environment. */
function sh(
  home: CliHome,
  command: string,
  opts: { stdin?: string; cwd?: string; env?: Record<string, string> } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const proc = spawn('/bin/sh', ['-c', command], {
      cwd: opts.cwd ?? home.dir,
      env: { ...home.env, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    proc.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    proc.on('error', reject);
    proc.on('close', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
    proc.stdin.end(opts.stdin ?? '');
  });
}

/** The installed `attest`: an executable that runs this checkout's CLI (what npm's bin link is for a user). */
function installBin(home: CliHome): string {
  const bin = path.join(home.dir, 'bin', 'attest');
  fs.mkdirSync(path.dirname(bin), { recursive: true });
  fs.writeFileSync(bin, `#!/bin/sh\nexec ${cliCommandLine()} "$@"\n`, {
    mode: 0o755,
  });
  return bin;
}

const attest = (bin: string, args: string[]) => [bin, ...args].map((a) => `'${a}'`).join(' ');
const settingsFile = (home: CliHome) => path.join(home.dir, '.claude', 'settings.json');
const codexFile = (home: CliHome) => path.join(home.dir, '.codex', 'config.toml');
const backups = (file: string) =>
  fs.existsSync(path.dirname(file))
    ? fs.readdirSync(path.dirname(file)).filter((n) => n.includes('.attest-backup-'))
    : [];

/** The command init installed for this Claude Code event. */
function installedCommand(home: CliHome, event = 'SessionEnd'): string {
  const s = JSON.parse(fs.readFileSync(settingsFile(home), 'utf8'));
  const groups = s.hooks[event] as { hooks: { command: string }[] }[];
  const ours = groups.flatMap((gr) => gr.hooks).filter((h) => h.command.includes(' hook claude-code'));
  expect(ours).toHaveLength(1);
  return ours[0]!.command;
}

async function sessionIds(): Promise<string[]> {
  const res = await g.gw.call('GET', '/v1/sessions?repoScope=all&limit=100&includeSubagents=1', {
    token: g.tenant.factoryKey,
    appId: g.tenant.appId,
  });
  expect(res.status).toBe(200);
  return (res.body.data.sessions as { sessionId: string }[]).map((s) => s.sessionId);
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function logEntries(home: CliHome): Record<string, unknown>[] {
  const file = spoolPaths(home.env).log;
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const drainIdle = (home: CliHome) => !fs.existsSync(spoolPaths(home.env).lock);

describe('attest init', { timeout: 300_000 }, () => {
  it('installs into an empty HOME, changes nothing the second time, and --remove leaves no trace', async () => {
    const home = cliHome();
    const bin = installBin(home);
    const first = await home.run(['init', '--bin', bin, '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json.files).toEqual([
      expect.objectContaining({ agent: 'claude-code', changed: true, backup: null }),
      expect.objectContaining({ agent: 'codex', changed: false, skipped: expect.stringContaining('skipped') }),
    ]);
    const settings = JSON.parse(fs.readFileSync(settingsFile(home), 'utf8'));
    expect(Object.keys(settings.hooks)).toEqual(['SessionEnd', 'Stop', 'SubagentStop', 'PreCompact']);
    expect(installedCommand(home, 'Stop')).toBe(`${bin} hook claude-code`);
    expect(settings.statusLine).toEqual({ type: 'command', command: `${bin} statusline` });
    const text = fs.readFileSync(settingsFile(home), 'utf8');

    const second = await home.run(['init', '--bin', bin]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('nothing to change');
    expect(fs.readFileSync(settingsFile(home), 'utf8')).toBe(text);
    expect(backups(settingsFile(home))).toEqual([]);

    const removed = await home.run(['init', '--remove']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(fs.existsSync(settingsFile(home))).toBe(false);
  });

  it("keeps the user's own keys, hooks, comments and notify, and --remove restores both files exactly", async () => {
    const home = cliHome();
    const bin = installBin(home);
    const own = {
      model: 'opus',
      hooks: {
        Stop: [{ hooks: [{ type: 'command', command: 'echo mine' }] }],
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard' }] }],
      },
      statusLine: { type: 'command', command: 'echo mine', padding: 0 },
    };
    fs.mkdirSync(path.dirname(settingsFile(home)), { recursive: true });
    fs.writeFileSync(settingsFile(home), JSON.stringify(own));
    const toml =
      '# my Codex settings\nmodel = "o3" # the model\nnotify = ["/bin/sh", "-c", "printf %s \\"$1\\" > ' +
      '\\"$HOME/chained.json\\"", "sh"]\n\n[mcp_servers.docs]\ncommand = "docs-mcp" # keep me\n';
    fs.mkdirSync(path.dirname(codexFile(home)), { recursive: true });
    fs.writeFileSync(codexFile(home), toml);

    const res = await home.run(['init', '--bin', bin, '--tier', 'metrics']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('Stop: added');
    expect(res.stdout).toContain('chaining your');
    const after = JSON.parse(fs.readFileSync(settingsFile(home), 'utf8'));
    expect(after.model).toBe('opus');
    // The user's status line is wrapped: Attest's runs it first and appends its own part.
    expect(after.statusLine).toEqual({ type: 'command', command: `${bin} statusline --chain 'echo mine'`, padding: 0 });
    const line = await sh(home, after.statusLine.command, {
      stdin: JSON.stringify({ session_id: 'not-synced', transcript_path: path.join(home.dir, 'none.jsonl') }),
    });
    expect(line).toMatchObject({ code: 0, stdout: 'mine  attest today $0.00\n' });
    expect(after.hooks.PreToolUse).toEqual(own.hooks.PreToolUse);
    expect(after.hooks.Stop[0]).toEqual(own.hooks.Stop[0]);
    expect(installedCommand(home, 'Stop')).toBe(`${bin} hook claude-code --tier metrics`);
    const codex = fs.readFileSync(codexFile(home), 'utf8');
    expect(codex).toContain('# my Codex settings');
    expect(codex).toContain('command = "docs-mcp" # keep me');
    expect(codex).toContain(`notify = ["${bin}", "hook", "codex", "--tier", "metrics", "--chain", "/bin/sh", "-c"`);
    expect(backups(settingsFile(home))).toHaveLength(1);
    expect(backups(codexFile(home))).toHaveLength(1);
    const installed = fs.readFileSync(settingsFile(home), 'utf8');

    const second = await home.run(['init', '--bin', bin, '--tier', 'metrics', '--agent', 'claude-code']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('statusLine: unchanged');
    expect(fs.readFileSync(settingsFile(home), 'utf8')).toBe(installed);

    const removed = await home.run(['init', '--remove']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(fs.readFileSync(settingsFile(home), 'utf8')).toBe(JSON.stringify(own));
    expect(fs.readFileSync(codexFile(home), 'utf8')).toBe(toml);
  });

  it('refuses corrupt JSON and TOML, a read-only file and a missing binary, writing nothing', async () => {
    const home = cliHome();
    const bin = installBin(home);
    fs.mkdirSync(path.dirname(settingsFile(home)), { recursive: true });
    fs.writeFileSync(settingsFile(home), '{"model": "opus",');
    const json = await home.run(['init', '--bin', bin, '--agent', 'claude-code']);
    expect(json.code).toBe(1);
    expect(json.stderr).toContain('is not valid JSON');
    expect(fs.readFileSync(settingsFile(home), 'utf8')).toBe('{"model": "opus",');

    fs.mkdirSync(path.dirname(codexFile(home)), { recursive: true });
    fs.writeFileSync(codexFile(home), 'model = = "o3"\n');
    const toml = await home.run(['init', '--bin', bin, '--agent', 'codex']);
    expect(toml.code).toBe(1);
    expect(toml.stderr).toContain('is not valid TOML');
    expect(fs.readFileSync(codexFile(home), 'utf8')).toBe('model = = "o3"\n');

    fs.writeFileSync(settingsFile(home), '{}');
    fs.chmodSync(settingsFile(home), 0o444);
    const ro = await home.run(['init', '--bin', bin, '--agent', 'claude-code']);
    expect(ro.code).toBe(1);
    expect(ro.stderr).toContain('is read-only');
    expect(fs.readFileSync(settingsFile(home), 'utf8')).toBe('{}');

    fs.chmodSync(settingsFile(home), 0o644);
    const missing = await home.run(['init', '--bin', path.join(home.dir, 'no-such-attest'), '--agent', 'claude-code']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('does not exist');
    expect(fs.readFileSync(settingsFile(home), 'utf8')).toBe('{}');
    expect(backups(settingsFile(home))).toEqual([]);
  });

  it('--scope project writes .claude/settings.json of the current directory', async () => {
    const home = cliHome();
    const bin = installBin(home);
    const project = path.join(home.dir, 'project');
    fs.mkdirSync(project);
    const res = await sh(home, attest(bin, ['init', '--scope', 'project', '--agent', 'claude-code']), { cwd: project });
    expect(res.code, res.stderr).toBe(0);
    expect(fs.existsSync(path.join(project, '.claude', 'settings.json'))).toBe(true);
    expect(fs.existsSync(settingsFile(home))).toBe(false);
  });
});

describe('attest mcp install --codex', { timeout: 300_000 }, () => {
  it("adds the gateway's MCP server to Codex's config.toml keeping comments; --remove restores it", async () => {
    const home = cliHome();
    const toml = '# mine\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-mcp" # keep me\n';
    fs.mkdirSync(path.dirname(codexFile(home)), { recursive: true });
    fs.writeFileSync(codexFile(home), toml);
    const env = { ATTEST_URL: g.url, ATTEST_API_KEY: g.tenant.factoryKey, ATTEST_APP_ID: g.tenant.appId };
    const res = await home.run(['mcp', 'install', '--codex', '--json'], env);
    expect(res.code, res.stderr).toBe(0);
    const text = fs.readFileSync(codexFile(home), 'utf8');
    expect(text).toContain('command = "docs-mcp" # keep me');
    expect(text).toContain(`url = "${g.url}/v1/mcp"`);
    expect(text).toContain('bearer_token_env_var = "ATTEST_API_KEY"');
    expect(text).not.toContain(g.tenant.factoryKey);
    expect(res.json.entry.http_headers['X-Outerlayer-App-Id']).toBe(g.tenant.appId);
    const removed = await home.run(['mcp', 'install', '--codex', '--remove'], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(fs.readFileSync(codexFile(home), 'utf8')).toBe(toml);
  });
});

describe('attest hook', { timeout: 300_000 }, () => {
  it('the installed SessionEnd command sends the session; two hooks at once start one drain', async () => {
    const home = cliHome();
    await loginWithFactoryKey(home, g);
    const bin = installBin(home);
    expect((await home.run(['init', '--bin', bin, '--agent', 'claude-code'])).code).toBe(0);
    const a = 'aaaaaaaa-0000-4000-8000-000000000001';
    const b = 'aaaaaaaa-0000-4000-8000-000000000002';
    const payload = (id: string, event: string) =>
      JSON.stringify({
        session_id: id,
        transcript_path: writeSmallTranscript(home, id),
        cwd: home.dir,
        hook_event_name: event,
        reason: 'exit',
      });
    const [ra, rb] = await Promise.all([
      sh(home, installedCommand(home, 'SessionEnd'), { stdin: payload(a, 'SessionEnd') }),
      sh(home, installedCommand(home, 'Stop'), { stdin: payload(b, 'Stop') }),
    ]);
    for (const r of [ra, rb]) {
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
    }
    await until('both sessions on the gateway', async () => {
      const ids = await sessionIds();
      return ids.includes(a) && ids.includes(b);
    });
    await until('the drain to finish', () => drainIdle(home));
    const drains = logEntries(home).filter((e) => e.drain !== undefined);
    expect(new Set(drains.map((e) => e.drain)).size).toBe(1);
    expect(drains.flatMap((e) => e.sessionIds as string[]).sort()).toEqual([a, b]);
    expect(logEntries(home).filter((e) => e.error)).toEqual([]);

    const healthy = await home.run(['doctor', '--json']);
    expect(healthy.code, healthy.stdout).toBe(0);
    expect(healthy.json.checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok])).toEqual([
      ['configuration', true],
      ['gateway', true],
      ['clock', true],
      ['credential', true],
      ['claude-code hooks', true],
      ['watcher', true],
      ['spool', true],
      ['last sync', true],
    ]);
    fs.renameSync(bin, `${bin}.moved`);
    const moved = await home.run(['doctor']);
    expect(moved.code).toBe(1);
    expect(moved.stdout).toContain(`FAIL claude-code hooks: ${settingsFile(home)} runs ${bin}, which does not exist`);
  });

  it('a bad payload or no login still exits 0 and is logged next to the spool', async () => {
    const home = cliHome();
    const bin = installBin(home);
    const bad = await sh(home, attest(bin, ['hook', 'claude-code']), { stdin: 'not json' });
    expect(bad.code).toBe(0);
    expect(bad.stdout + bad.stderr).toBe('');
    expect(logEntries(home)).toEqual([
      expect.objectContaining({ hook: 'claude-code', error: expect.stringContaining('not JSON') }),
    ]);

    const id = 'bbbbbbbb-0000-4000-8000-000000000001';
    const noLogin = await sh(home, attest(bin, ['hook', 'claude-code']), {
      stdin: JSON.stringify({
        session_id: id,
        transcript_path: writeSmallTranscript(home, id),
        hook_event_name: 'Stop',
      }),
    });
    expect(noLogin.code).toBe(0);
    const err = await until('the drain to log its error', () => logEntries(home).find((e) => e.drain && e.error));
    expect(String(err.error)).toContain('Not logged in');
    expect(err.waiting).toEqual({ events: 1, batches: 1 });
  });

  it('gateway down: the session waits in the spool, a killed drain loses nothing, it is sent once later', async () => {
    const home = cliHome();
    const bin = installBin(home);
    // A gateway that takes the request and never answers: the drain is killed while it waits.
    const hanging = http.createServer(() => undefined);
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    const deadUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
    fs.mkdirSync(path.dirname(home.profileFile), { recursive: true });
    fs.writeFileSync(
      home.profileFile,
      JSON.stringify({ url: deadUrl, token: g.tenant.factoryKey, appId: g.tenant.appId }),
    );
    const id = 'cccccccc-0000-4000-8000-000000000001';
    const transcript = writeSmallTranscript(home, id);
    const event = JSON.stringify({
      session_id: id,
      transcript_path: transcript,
      cwd: home.dir,
      hook_event_name: 'SessionEnd',
    });
    const sp = spoolPaths(home.env);
    const hook = await sh(home, attest(bin, ['hook', 'claude-code']), { stdin: event });
    expect(hook.code).toBe(0);
    // The drain has claimed the event into its batch and waits on the gateway: kill it there.
    await until('a claimed batch', () => fs.readdirSync(sp.dir).some((n) => n.startsWith('batch-')));
    const pid = Number(await until('the drain pid', () => fs.readFileSync(sp.lock, 'utf8') || undefined));
    await new Promise((r) => setTimeout(r, 300));
    process.kill(pid, 'SIGKILL');
    hanging.closeAllConnections();
    await new Promise<void>((r) => hanging.close(() => r()));
    expect(fs.readdirSync(sp.dir).filter((n) => n.startsWith('batch-'))).toHaveLength(1);

    // Now the gateway is down (refused): a hook for another event spools it; the drain fails and keeps both.
    await new Promise((r) => setTimeout(r, 2100)); // the dead drain's lock is taken over after 2 s
    const again = await sh(home, attest(bin, ['hook', 'claude-code']), { stdin: event });
    expect(again.code).toBe(0);
    const failed = await until('the drain to fail', () => logEntries(home).find((e) => e.drain && e.error));
    expect(String(failed.error)).toMatch(/gateway|connect|ECONNREFUSED/i);
    await until('the failed drain to let go', () => drainIdle(home));
    expect(fs.readdirSync(sp.dir).filter((n) => n.startsWith('batch-'))).toHaveLength(2);
    expect(await sessionIds()).not.toContain(id);
    const sick = await home.run(['doctor', '--json']);
    expect(sick.code).toBe(1);
    const byName = Object.fromEntries(sick.json.checks.map((c: { name: string }) => [c.name, c]));
    expect(byName.gateway).toMatchObject({ ok: false, fix: expect.stringContaining(deadUrl) });
    expect(byName.spool).toMatchObject({ ok: false, detail: expect.stringContaining('2 event(s) waiting') });
    expect(byName['last sync']).toMatchObject({ ok: false });

    // The gateway is back: the next drain sends the session once, and a later one sends nothing again.
    fs.writeFileSync(
      home.profileFile,
      JSON.stringify({ url: g.url, token: g.tenant.factoryKey, appId: g.tenant.appId }),
    );
    const drain = await home.run(['hook-drain']);
    expect(drain.code, drain.stderr).toBe(0);
    expect(await sessionIds()).toContain(id);
    expect(fs.readdirSync(sp.dir).filter((n) => n.startsWith('batch-'))).toEqual([]);
    const third = await sh(home, attest(bin, ['hook', 'claude-code']), { stdin: event });
    expect(third.code).toBe(0);
    await until(
      'the third drain',
      () => logEntries(home).filter((e) => e.drain && !e.error).length === 2 && drainIdle(home),
    );
    const sent = logEntries(home).filter((e) => e.drain && !e.error);
    expect(sent.map((e) => e.sessionIds)).toEqual([[id], []]);
  });

  it("Codex's notify sends the rollout and starts the user's chained notify with the same argument", async () => {
    const home = cliHome();
    await loginWithFactoryKey(home, g);
    const bin = installBin(home);
    fs.mkdirSync(path.dirname(codexFile(home)), { recursive: true });
    fs.writeFileSync(
      codexFile(home),
      'notify = ["/bin/sh", "-c", "printf %s \\"$1\\" > \\"$HOME/chained.json\\"", "sh"]\n',
    );
    expect((await home.run(['init', '--bin', bin, '--agent', 'codex'])).code).toBe(0);
    const notify = JSON.parse(/notify = (\[.*\])/.exec(fs.readFileSync(codexFile(home), 'utf8'))![1]!) as string[];
    const id = '0199a000-0000-7000-8000-00000000c0de';
    writeCodexRollout(home, id);
    const payload = JSON.stringify({
      type: 'agent-turn-complete',
      'thread-id': id,
      'turn-id': '1',
      cwd: home.dir,
      'input-messages': ['fix it'],
      'last-assistant-message': 'done',
    });
    const res = await sh(home, [...notify, payload].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' '));
    expect(res.code).toBe(0);
    await until('the Codex session on the gateway', async () => (await sessionIds()).includes(id) || undefined);
    expect(
      await until('the chained notify', () => fs.existsSync(path.join(home.dir, 'chained.json')) || undefined),
    ).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(home.dir, 'chained.json'), 'utf8'))).toEqual(JSON.parse(payload));
  });

  it('the drain lock: one holder; a dead holder is taken over only after the hand-off grace', () => {
    const home = cliHome();
    const sp = spoolPaths(home.env);
    expect(takeLock(sp, process.pid)).toBe(true);
    expect(takeLock(sp, 999_999_999)).toBe(false);
    fs.writeFileSync(sp.lock, '999999999'); // no such process
    expect(takeLock(sp, process.pid)).toBe(false); // written just now: maybe a hand-off in progress
    const old = new Date(Date.now() - 5_000);
    fs.utimesSync(sp.lock, old, old);
    expect(takeLock(sp, process.pid)).toBe(true);
    expect(fs.readFileSync(sp.lock, 'utf8')).toBe(String(process.pid));
  });

  it('imports Node built-ins only, from main.ts down (nothing heavy loads inside the agent)', () => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:^import[^'"]*|import\()['"]([^'"]+)['"]/gm)) {
        const spec = m[1]!;
        if (spec.startsWith('node:')) continue;
        // main.ts loads the CLI, or the status line, with a dynamic import only when the command is not `hook`
        if (file.endsWith('main.ts') && (spec === './cli/index.js' || spec === './cli/capture/statusline.js')) continue;
        expect(spec, `${file} imports ${spec}`).toMatch(/^\.\.?\//);
        visit(path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')));
      }
    };
    visit(path.join(ROOT, 'src/main.ts'));
    expect([...seen].map((f) => path.relative(ROOT, f)).sort()).toEqual([
      'src/cli/capture/hook.ts',
      'src/cli/capture/paths.ts',
      'src/cli/capture/spool.ts',
      'src/cli/capture/stdin.ts',
      'src/main.ts',
    ]);
    // The status line loads the same way; the transcript parser and the pricer only when the transcript changed.
    const statusline = fs.readFileSync(path.join(ROOT, 'src/cli/capture/statusline.ts'), 'utf8');
    expect([...statusline.matchAll(/^import[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1])).toEqual([
      'node:child_process',
      'node:fs',
      'node:path',
      './paths.js',
      './stdin.js',
    ]);
  });
});
