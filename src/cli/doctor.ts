// `attest doctor [--json]`: checks every link from an agent's session to the gateway, and for each one that
// fails says what to do. Exit 0 only when every check passes.
import fs from 'node:fs';
import type { Command } from 'commander';
import { ApiClientError, unwrap } from '../client/index.js';
import { CLAUDE_EVENTS, isAttestHook, parseSettings } from './capture/claude-settings.js';
import { parseCodexConfig } from './capture/codex-config.js';
import { spoolPaths } from './capture/paths.js';
import { backlog } from './capture/spool.js';
import { serviceFile, serviceFilePath } from './capture/service.js';
import { claudeSettingsPath, codexConfigPath } from './init.js';
import { action, describeError, printJson } from './output.js';
import { clientFor, credentialKind, profilePath, readProfile, resolveProfile } from './profile.js';
import { readWatchStatus, runningWatcher } from './watch.js';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  /** What to do when it failed. */
  fix?: string;
}

/** A clock further off than this makes session times and expiries wrong on the dashboard. */
const MAX_SKEW_MS = 120_000;

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('Check the configuration, credential, gateway, hooks and spool, and say how to fix what fails')
    .option('--json', 'the checks as JSON')
    .action(
      action(async (flags: { json?: boolean }) => {
        const checks = await runChecks();
        const ok = checks.every((c) => c.ok);
        if (flags.json) printJson({ ok, checks });
        else
          for (const c of checks)
            process.stdout.write(
              `${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}${!c.ok && c.fix ? `\n     → ${c.fix}` : ''}\n`,
            );
        if (!ok) process.exitCode = 1;
      }),
    );
}

async function runChecks(): Promise<Check[]> {
  const checks: Check[] = [];
  let profile: ReturnType<typeof resolveProfile> | undefined;
  try {
    readProfile();
    profile = resolveProfile();
    checks.push({
      name: 'configuration',
      ok: true,
      detail: `${profile.url}, factory ${profile.appId} (${profilePath()})`,
    });
  } catch (err) {
    checks.push({
      name: 'configuration',
      ok: false,
      detail: describeError(err),
      fix: 'attest login --url URL --token olu_... (or --api-key sk_... --app-id ID)',
    });
  }
  if (profile) checks.push(...(await gatewayChecks(profile)));
  const watcher = runningWatcher();
  const claude = claudeCheck();
  if (!claude.ok && watcher !== undefined && claude.detail === 'not installed')
    checks.push({ name: 'claude-code hooks', ok: true, detail: 'not installed; attest watch sends the sessions' });
  else checks.push(claude);
  const codex = codexCheck();
  if (codex) checks.push(codex);
  checks.push(watcherCheck(watcher, claude.ok));
  checks.push(...spoolChecks());
  return checks;
}

async function gatewayChecks(profile: ReturnType<typeof resolveProfile>): Promise<Check[]> {
  const client = clientFor(profile);
  const out: Check[] = [];
  try {
    const sent = Date.now();
    const { data, response } = await client.api.GET('/v1/capabilities');
    const rtt = Date.now() - sent;
    if (!data) throw new Error(`GET /v1/capabilities answered ${response.status}`);
    out.push({ name: 'gateway', ok: true, detail: `${profile.url} answers, version ${data.data.version} (${rtt} ms)` });
    const date = Date.parse(response.headers.get('date') ?? '');
    if (Number.isFinite(date)) {
      // The Date header has whole seconds: allow the round trip and a second of rounding.
      const skew = date - (sent + rtt / 2);
      const ok = Math.abs(skew) <= MAX_SKEW_MS + 1000 + rtt;
      out.push({
        name: 'clock',
        ok,
        detail: `${Math.round(skew / 1000)} s from the gateway's clock`,
        fix: "sync this machine's clock (timedatectl set-ntp true, or your OS settings)",
      });
    }
  } catch (err) {
    out.push({
      name: 'gateway',
      ok: false,
      detail: describeError(err),
      fix: `check that ${profile.url} is the gateway's URL and that it runs (attest login --url URL ... to change it)`,
    });
    return out;
  }
  try {
    if (profile.token.startsWith('olu_')) await client.myFactories();
    else if (profile.appId)
      await unwrap(client.api.GET('/v1/apps/{appId}', { params: { path: { appId: profile.appId } } }));
    out.push({ name: 'credential', ok: true, detail: `${credentialKind(profile.token)} accepted` });
  } catch (err) {
    const forbidden = err instanceof ApiClientError && err.status === 403;
    out.push({
      name: 'credential',
      ok: forbidden,
      detail: forbidden
        ? `${credentialKind(profile.token)} accepted (it may not read the factory)`
        : describeError(err),
      fix: 'attest login again with a valid credential',
    });
  }
  return out;
}

/** The binary a hook command names: its first word, unquoted. */
function binaryOf(command: string): string {
  const m = /^'((?:[^']|'\\'')*)'|^(\S+)/.exec(command);
  return (m?.[1]?.replace(/'\\''/g, "'") ?? m?.[2] ?? '').trim();
}

function claudeCheck(): Check {
  const fix = 'attest init (installs the hooks; --scope project for this project only)';
  const found: string[] = [];
  for (const scope of ['user', 'project']) {
    const file = claudeSettingsPath(scope);
    let settings: Record<string, unknown>;
    try {
      settings = parseSettings(fs.readFileSync(file, 'utf8'), file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      return { name: 'claude-code hooks', ok: false, detail: describeError(err), fix: `fix ${file}, then attest init` };
    }
    const hooks = (settings.hooks ?? {}) as Record<string, { hooks?: { command?: string }[] }[]>;
    const commands = CLAUDE_EVENTS.map((e) =>
      (Array.isArray(hooks[e]) ? hooks[e] : [])
        .flatMap((g) => (Array.isArray(g?.hooks) ? g.hooks : []))
        .find(isAttestHook),
    );
    if (commands.every((c) => !c)) continue;
    const missing = CLAUDE_EVENTS.filter((_, i) => !commands[i]);
    if (missing.length > 0)
      return { name: 'claude-code hooks', ok: false, detail: `${file} lacks ${missing.join(', ')}`, fix };
    const bin = binaryOf(String(commands[0]!.command));
    if (!fs.existsSync(bin))
      return {
        name: 'claude-code hooks',
        ok: false,
        detail: `${file} runs ${bin}, which does not exist`,
        fix: 'attest init again (it writes the path of this attest)',
      };
    found.push(file);
  }
  if (found.length === 0) return { name: 'claude-code hooks', ok: false, detail: 'not installed', fix };
  return { name: 'claude-code hooks', ok: true, detail: `installed in ${found.join(' and ')}` };
}

/** Codex is checked where it is installed (its config folder exists). */
function codexCheck(): Check | undefined {
  const file = codexConfigPath();
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return fs.existsSync(file.replace(/\/config\.toml$/, ''))
      ? { name: 'codex notify', ok: false, detail: `${file} missing`, fix: 'attest init --agent codex' }
      : undefined;
  }
  try {
    const notify = parseCodexConfig(text, file).notify;
    const argv = Array.isArray(notify) ? (notify as string[]) : [];
    const at = argv.findIndex((a, i) => a === 'hook' && argv[i + 1] === 'codex');
    if (at < 0)
      return {
        name: 'codex notify',
        ok: false,
        detail: `${file} has no Attest notify`,
        fix: 'attest init --agent codex',
      };
    if (!fs.existsSync(argv[0]!))
      return {
        name: 'codex notify',
        ok: false,
        detail: `notify runs ${argv[0]}, which does not exist`,
        fix: 'attest init --agent codex',
      };
    return { name: 'codex notify', ok: true, detail: `installed in ${file}` };
  } catch (err) {
    return {
      name: 'codex notify',
      ok: false,
      detail: describeError(err),
      fix: `fix ${file}, then attest init --agent codex`,
    };
  }
}

/** The watcher is the alternative to the hooks: needed running only where it is installed or no hook is. */
export function watcherCheck(
  pid: number | undefined,
  hooksInstalled: boolean,
  on: string = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): Check {
  if (pid !== undefined) {
    const st = readWatchStatus(env);
    const waiting = st?.lastError
      ? `; ${st.waiting} file(s) wait, the last send failed at ${st.lastErrorAt}: ${st.lastError} (it retries by ` +
        `itself)`
      : '';
    return {
      name: 'watcher',
      ok: true,
      detail: `running (pid ${pid})${st?.lastSendAt ? `, last sent ${st.lastSendAt}` : ''}${waiting}`,
    };
  }
  const platform = on === 'linux' || on === 'darwin' ? on : undefined;
  const unit = platform ? serviceFilePath(platform, env) : undefined;
  if (platform && unit && fs.existsSync(unit))
    return {
      name: 'watcher',
      ok: false,
      detail: `installed (${unit}) but not running`,
      fix: `start it: ${serviceFile(platform, ['attest'], env).start}`,
    };
  if (hooksInstalled) return { name: 'watcher', ok: true, detail: 'not running (the hooks send the sessions)' };
  return {
    name: 'watcher',
    ok: false,
    detail: 'not running, and no hooks are installed: nothing sends the sessions',
    fix: 'attest init (hooks), or attest watch --install (a service that watches the transcripts)',
  };
}

function spoolChecks(): Check[] {
  const sp = spoolPaths();
  const waiting = backlog(sp);
  const out: Check[] = [
    {
      name: 'spool',
      ok: waiting.events === 0,
      detail: waiting.events === 0 ? 'nothing waiting' : `${waiting.events} event(s) waiting to be sent (${sp.dir})`,
      fix: `attest hook-drain sends them now; if it fails, ${sp.log} says why`,
    },
  ];
  let lines: string[] = [];
  try {
    lines = fs
      .readFileSync(sp.log, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'));
  } catch {
    // no hook has run yet
  }
  const drains = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.drain !== undefined);
  const lastOk = drains.filter((e) => !e.error).at(-1);
  const last = drains.at(-1);
  if (!last) out.push({ name: 'last sync', ok: true, detail: 'no hook has sent anything yet' });
  else
    out.push({
      name: 'last sync',
      ok: !last.error,
      detail:
        `${lastOk ? `last success ${String(lastOk.at)}` : 'no success yet'}` +
        `${last.error ? `; last drain failed at ${String(last.at)}: ${String(last.error)}` : ''}`,
      fix: 'fix what the error says; the waiting sessions are sent by the next hook or attest hook-drain',
    });
  return out;
}
