// `attest watch`: a foreground daemon that sends sessions as their transcripts change, the alternative to the
// hooks of `attest init`. It watches the Claude Code and Codex folders (fs.watch, recursive), gathers the
// changed files for a moment (a transcript grows line by line), and sends them through `attest sync`'s own
// code and watermarks, so nothing is sent twice. A watermark moves only when the gateway took the session:
// when the gateway is down the files wait, and the watcher tries again after 1 s, 2 s, 4 s, ... up to 5 min.
// A full rescan at start, every few minutes, and after the clock jumped (the laptop slept) catches whatever
// fs events were missed.
//
// `attest watch --install` writes a systemd user unit (Linux) or a launchd agent (macOS) that runs it.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { type CaptureTier, isCaptureTier } from '../capture/index.js';
import { stateDir } from './capture/paths.js';
import { type ServicePlatform, serviceFile, serviceFilePath } from './capture/service.js';
import { processAlive } from './capture/spool.js';
import { attestArgv } from './capture/settings-file.js';
import { action, describeError, printJson } from './output.js';
import { CliError, resolveProfile, writePrivateJson } from './profile.js';
import { type SyncRun, runSync } from './sync.js';
import { claudeRoot, codexRoot, type FoundFile, type SourceKind } from './sync/discovery.js';

export interface WatchOptions {
  tier: CaptureTier;
  /** Quiet time after the last change before the files are sent. */
  debounceMs: number;
  /** A transcript that never stops changing is still sent this often. */
  maxWaitMs: number;
  /** Every file is looked at again this often (fs events can be missed). */
  rescanMs: number;
  /** The first wait after a failed send; it doubles per failure, up to `backoffMaxMs`. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** false: no fs events, only the rescans. */
  events: boolean;
  env: NodeJS.ProcessEnv;
  /** Each send, as it happened. */
  onSend?: (outcome: SendOutcome) => void;
  log?: (line: string) => void;
}

export interface SendOutcome {
  at: string;
  scan: boolean;
  files: number;
  sent: number;
  sessionIds: string[];
  error?: string;
  /** After a failure: when the next attempt is. */
  retryInMs?: number;
}

/** What the running watcher tells `attest doctor`. */
export interface WatchStatus {
  pid: number;
  startedAt: string;
  lastSendAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  waiting: number;
}

export const WATCH_DEFAULTS = {
  debounceMs: 2000,
  maxWaitMs: 30_000,
  rescanMs: 300_000,
  backoffBaseMs: 1000,
  backoffMaxMs: 300_000,
};

export function watchPaths(env: NodeJS.ProcessEnv = process.env) {
  const dir = stateDir(env);
  return { lock: path.join(dir, 'watch.lock'), status: path.join(dir, 'watch.json') };
}

/** The pid of the running watcher, if one runs. */
export function runningWatcher(env: NodeJS.ProcessEnv = process.env): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(watchPaths(env).lock, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 && processAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function readWatchStatus(env: NodeJS.ProcessEnv = process.env): WatchStatus | undefined {
  try {
    return JSON.parse(fs.readFileSync(watchPaths(env).status, 'utf8')) as WatchStatus;
  } catch {
    return undefined;
  }
}

function takeWatchLock(env: NodeJS.ProcessEnv): void {
  const { lock } = watchPaths(env);
  fs.mkdirSync(path.dirname(lock), { recursive: true, mode: 0o700 });
  for (let i = 0; i < 2; i++) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const other = runningWatcher(env);
    if (other !== undefined && other !== process.pid)
      throw new CliError(`attest watch already runs (pid ${other}); stop it first.`);
    fs.rmSync(lock, { force: true });
  }
  throw new CliError(`Cannot take ${lock}; is another attest watch starting?`);
}

export interface Watcher {
  stop(): Promise<void>;
  /** Resolves once nothing waits and no send runs (tests). */
  idle(): Promise<void>;
}

export function startWatch(opts: WatchOptions): Watcher {
  takeWatchLock(opts.env);
  const log = opts.log ?? (() => undefined);
  const roots: { kind: SourceKind; dir: string; watcher?: fs.FSWatcher }[] = [
    { kind: 'claude-code', dir: claudeRoot(opts.env) },
    { kind: 'codex', dir: codexRoot(opts.env) },
  ];
  const pending = new Map<string, SourceKind>();
  let scanWanted = true;
  let firstPendingAt: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let failures = 0;
  let stopped = false;
  let lastScanAt = 0;
  let lastTickAt = Date.now();
  const status: WatchStatus = {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    lastSendAt: null,
    lastError: null,
    lastErrorAt: null,
    waiting: 0,
  };
  const saveStatus = () => {
    status.waiting = pending.size;
    try {
      writePrivateJson(watchPaths(opts.env).status, status);
    } catch {
      // the status is for `attest doctor`; sending goes on without it
    }
  };

  const wanted = (kind: SourceKind, file: string) =>
    file.endsWith('.jsonl') && (kind === 'claude-code' || path.basename(file).startsWith('rollout-'));

  const arm = () => {
    if (stopped || running || retryTimer) return;
    if (!scanWanted && pending.size === 0) return;
    clearTimeout(timer);
    const now = Date.now();
    const wait = scanWanted
      ? 0
      : Math.min(opts.debounceMs, Math.max(0, (firstPendingAt ?? now) + opts.maxWaitMs - now));
    timer = setTimeout(() => {
      timer = undefined;
      running = flush().finally(() => {
        running = undefined;
        arm();
      });
    }, wait);
  };

  const note = (kind: SourceKind, file: string) => {
    pending.set(file, kind);
    firstPendingAt ??= Date.now();
    arm();
  };

  async function flush(): Promise<void> {
    const scan = scanWanted;
    const batch = new Map(pending);
    scanWanted = false;
    pending.clear();
    firstPendingAt = undefined;
    const files: FoundFile[] = [];
    if (!scan)
      for (const [file, kind] of batch) {
        try {
          const st = fs.statSync(file);
          if (st.isFile()) files.push({ path: file, kind, size: st.size, mtimeMs: st.mtimeMs });
        } catch {
          // removed since
        }
      }
    if (!scan && files.length === 0) return;
    const at = new Date().toISOString();
    let run: SyncRun;
    try {
      run = await runSync({ tier: opts.tier, quiet: true, progress: false }, scan ? undefined : files);
    } catch (err) {
      // Nothing moved: the files wait (with any that changed meanwhile) for the next attempt.
      for (const [file, kind] of batch) if (!pending.has(file)) pending.set(file, kind);
      if (scan) scanWanted = true;
      failures += 1;
      const retryInMs = Math.min(opts.backoffMaxMs, opts.backoffBaseMs * 2 ** (failures - 1));
      const error = describeError(err);
      status.lastError = error;
      status.lastErrorAt = at;
      saveStatus();
      const waiting = `${pending.size} file(s)${scanWanted ? ' and a full rescan' : ''}`;
      log(`${at} send failed (${error}); ${waiting} wait, next attempt in ${Math.round(retryInMs / 1000)} s`);
      opts.onSend?.({ at, scan, files: scan ? 0 : files.length, sent: 0, sessionIds: [], error, retryInMs });
      if (!stopped)
        retryTimer = setTimeout(() => {
          retryTimer = undefined;
          arm();
        }, retryInMs);
      return;
    }
    failures = 0;
    if (scan) lastScanAt = Date.now();
    if (run.sent > 0 || run.rejected.length > 0) status.lastSendAt = at;
    if (status.lastError) status.lastError = null;
    saveStatus();
    if (run.sent > 0) log(`${at} sent ${run.sent} session(s): ${run.sessionIds.join(', ')}`);
    for (const r of run.rejected) log(`${at} the gateway refused ${r.id ?? '(no id)'}: ${r.reason}`);
    opts.onSend?.({ at, scan, files: scan ? 0 : files.length, sent: run.sent, sessionIds: run.sessionIds });
  }

  const watchRoots = () => {
    if (!opts.events) return;
    for (const root of roots) {
      if (root.watcher || !fs.existsSync(root.dir)) continue;
      try {
        const w = fs.watch(root.dir, { recursive: true }, (_event, name) => {
          if (!name) {
            scanWanted = true;
            arm();
            return;
          }
          const file = path.join(root.dir, name.toString());
          if (wanted(root.kind, file)) note(root.kind, file);
        });
        w.on('error', () => {
          // The folder went away: watch it again when it is back, and look at everything then.
          w.close();
          root.watcher = undefined;
        });
        root.watcher = w;
        // Files written before the watch began are found by a scan.
        scanWanted = true;
        arm();
      } catch (err) {
        log(`cannot watch ${root.dir}: ${describeError(err)}; the rescans still find its sessions`);
      }
    }
  };

  // The tick: rescans on schedule, after the clock jumped (sleep), and watches folders that appeared since.
  const tickMs = Math.min(10_000, opts.rescanMs);
  const ticker = setInterval(() => {
    const now = Date.now();
    const slept = now - lastTickAt > tickMs * 3;
    lastTickAt = now;
    watchRoots();
    if (slept || now - lastScanAt >= opts.rescanMs) {
      if (slept) log(`${new Date(now).toISOString()} the clock jumped (sleep?): looking at every file again`);
      scanWanted = true;
      arm();
    }
  }, tickMs);

  saveStatus();
  watchRoots();
  arm();

  return {
    async stop() {
      stopped = true;
      clearInterval(ticker);
      clearTimeout(timer);
      clearTimeout(retryTimer);
      for (const root of roots) root.watcher?.close();
      await running;
      fs.rmSync(watchPaths(opts.env).status, { force: true });
      if (runningWatcher(opts.env) === process.pid) fs.rmSync(watchPaths(opts.env).lock, { force: true });
    },
    async idle() {
      for (;;) {
        if (!running && !timer && !retryTimer && !scanWanted && pending.size === 0) return;
        await (running ?? new Promise((r) => setTimeout(r, 20)));
      }
    },
  };
}

interface WatchFlags {
  tier: string;
  debounce: string;
  rescan: string;
  install?: boolean;
  remove?: boolean;
  platform?: string;
  bin?: string;
  json?: boolean;
}

export function registerWatch(program: Command): void {
  program
    .command('watch')
    .description('Send sessions as their transcripts change (a foreground daemon; --install runs it as a service)')
    .option('--tier <tier>', 'what leaves the machine: metrics, redacted (default) or full', 'redacted')
    .option('--debounce <ms>', 'quiet time after a change before sending', String(WATCH_DEFAULTS.debounceMs))
    .option('--rescan <s>', 'look at every file again this often', String(WATCH_DEFAULTS.rescanMs / 1000))
    .option('--install', 'write a systemd user unit (Linux) or launchd agent (macOS) that runs attest watch')
    .option('--remove', 'with --install: take the unit or agent out')
    .option('--platform <platform>', 'with --install: linux (systemd) or darwin (launchd); default this machine')
    .option('--bin <path>', 'with --install: the attest binary the service runs (default: this one)')
    .option('--json', 'with --install: print what was done as JSON')
    .action(
      action(async (flags: WatchFlags) => {
        if (!isCaptureTier(flags.tier)) throw new CliError('--tier must be metrics, redacted or full');
        if (flags.install) {
          installService(flags);
          return;
        }
        if (flags.remove) throw new CliError('--remove goes with --install (attest watch --install --remove)');
        const debounceMs = Number(flags.debounce);
        const rescanS = Number(flags.rescan);
        if (!Number.isFinite(debounceMs) || debounceMs < 0) throw new CliError('--debounce must be milliseconds');
        if (!Number.isFinite(rescanS) || rescanS < 1) throw new CliError('--rescan must be at least 1 (seconds)');
        // Not logged in is not a gateway that is down: say so now instead of retrying forever.
        resolveProfile();
        const write = (line: string) => process.stdout.write(`${line}\n`);
        const watcher = startWatch({
          ...WATCH_DEFAULTS,
          tier: flags.tier,
          debounceMs,
          rescanMs: rescanS * 1000,
          events: true,
          env: process.env,
          log: write,
        });
        write(`attest watch: watching ${claudeRoot()} and ${codexRoot()} (tier ${flags.tier}); Ctrl-C stops`);
        await new Promise<void>((resolve) => {
          const stop = () => {
            void watcher.stop().then(resolve);
          };
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        });
      }),
    );
}

export interface ServiceOutcome {
  platform: ServicePlatform;
  file: string;
  /** Installing: the file was written (false: it already said exactly this). */
  changed?: boolean;
  /** Removing: there was a file to remove. */
  removed?: boolean;
  argv?: string[];
  start: string;
  stop: string;
  logs: string;
}

/** Writes (or with `remove` takes out) the unit or agent that runs `attest watch`. */
export function serviceInstall(
  opts: { platform?: string; bin?: string; tier: string; remove?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): ServiceOutcome {
  const platform = opts.platform ?? process.platform;
  if (platform !== 'linux' && platform !== 'darwin')
    throw new CliError(
      `--install knows systemd (linux) and launchd (darwin), not ${platform}; run attest watch in a terminal instead.`,
    );
  const file = serviceFilePath(platform, env);
  if (opts.remove) {
    const { start, stop, logs } = serviceFile(platform, ['attest'], env);
    const removed = fs.existsSync(file);
    if (removed) fs.rmSync(file);
    return { platform, file, removed, start, stop, logs };
  }
  const argv = [...attestArgv(opts.bin), 'watch', ...(opts.tier !== 'redacted' ? ['--tier', opts.tier] : [])];
  const unit = serviceFile(platform, argv, env);
  let before: string | undefined;
  try {
    before = fs.readFileSync(file, 'utf8');
  } catch {
    before = undefined;
  }
  const changed = before !== unit.text;
  if (changed) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, unit.text, { mode: 0o644 });
  }
  return { platform, file, changed, argv, start: unit.start, stop: unit.stop, logs: unit.logs };
}

function installService(flags: WatchFlags): void {
  const o = serviceInstall({
    ...(flags.platform ? { platform: flags.platform } : {}),
    ...(flags.bin ? { bin: flags.bin } : {}),
    tier: flags.tier,
    ...(flags.remove ? { remove: true } : {}),
  });
  if (flags.json) {
    printJson(o);
    return;
  }
  if (flags.remove) {
    process.stdout.write(
      o.removed
        ? `Removed ${o.file}.\nIf it still runs, stop it: ${o.stop}\n`
        : `Nothing to remove: ${o.file} does not exist.\n`,
    );
    return;
  }
  process.stdout.write(
    [
      `${o.changed ? 'Wrote' : 'Unchanged:'} ${o.file} (runs ${o.argv!.join(' ')}).`,
      `Start it now and at every login: ${o.start}`,
      `Stop it:                         ${o.stop}`,
      `Its log:                         ${o.logs}`,
      '',
    ].join('\n'),
  );
}
