// `attest statusline [--chain CMD]`: one line for Claude Code's status line. Claude Code runs it after each
// assistant message (at most every 300 ms) with the session as JSON on stdin (session_id, transcript_path, cwd,
// workspace.current_dir, ...). src/main.ts dispatches here before the CLI loads; the transcript parser and the
// pricer are imported only when the transcript changed since the last run.
//
// What it shows, all from local files: this session's cost (its transcript priced with the capture's own
// pricing code), today's total for this machine (a per-day cache of the sessions' costs), and, from a cache of
// what the gateway said (at most 60 s old), today's factory spend against a `period: day` budget and the
// verdict of the current branch's pull request. It never waits on the network: a stale cache starts one
// detached `attest statusline --refresh` and the line shows what the cache has. It always exits 0.
//
// A status line the user had before `attest init` follows `--chain`: it runs with the same input, and Attest's
// part is appended to its output.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { configDir, stateDir } from './paths.js';
import { readStdin } from './stdin.js';

const STDIN_MAX_BYTES = 1024 * 1024;
const STDIN_WAIT_MS = 500;
/** The user's own status line gets this long; after it, Attest's part shows alone. */
const CHAIN_MAX_MS = 1000;
/** Whatever is still pending then, the line printed so far stands and the process exits 0. */
const HARD_LIMIT_MS = 2000;
/** What the gateway said is shown for this long before a refresh is started. */
export const REMOTE_MAX_AGE_MS = 60_000;
/** A refresh lock older than this belongs to a refresh that died. */
const REFRESH_LOCK_STALE_MS = 30_000;
/** Each request of the background refresh. */
const REFRESH_REQUEST_MS = 5_000;

export interface StatusInput {
  session_id?: unknown;
  transcript_path?: unknown;
  cwd?: unknown;
  workspace?: { current_dir?: unknown } | null;
}

/** One session's cost, kept while its transcript stays the same size and age. */
interface SessionEntry {
  size: number;
  mtimeMs: number;
  /** Every priced turn of the session. */
  costMicros: number;
  /** The turns of the cache's day (local time). */
  todayMicros: number;
  /** Some turn's model has no price: the sums are lower bounds. */
  partial: boolean;
}

export interface DayCache {
  /** YYYY-MM-DD in local time. */
  day: string;
  sessions: Record<string, SessionEntry>;
}

export interface PrVerdict {
  number: number;
  verdict: string;
  flagged: number;
}

/** What the gateway said, for one gateway and factory. */
export interface RemoteCache {
  target: string;
  /** When the last refresh started: a gateway that does not answer is asked again only after REMOTE_MAX_AGE_MS. */
  triedAt?: number;
  budget?: { at: number; value: { name: string; spendUsd: number; amountUsd: number } | null };
  /** By `<git top>|<branch>`. */
  prs: Record<string, { at: number; value: PrVerdict | null }>;
}

export function statuslinePaths(env: NodeJS.ProcessEnv = process.env) {
  const dir = path.join(stateDir(env), 'statusline');
  return {
    dir,
    day: path.join(dir, 'day.json'),
    remote: path.join(dir, 'remote.json'),
    lock: path.join(dir, 'refresh.lock'),
    log: path.join(dir, 'statusline.log'),
  };
}
type Paths = ReturnType<typeof statuslinePaths>;

export function localDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

function localMidnight(ms: number): number {
  const d = new Date(ms);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(value), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/** The gateway and credential of the profile, with the environment's overrides (as `attest` resolves them). */
export function profileTarget(env: NodeJS.ProcessEnv = process.env) {
  const stored =
    readJson<{ url?: string; token?: string; appId?: string }>(path.join(configDir(env), 'profile.json')) ?? {};
  const url = env.ATTEST_URL || stored.url;
  const token = env.ATTEST_API_KEY || stored.token;
  const appId = env.ATTEST_APP_ID || stored.appId;
  if (!url || !token || !appId) return undefined;
  return { url: url.replace(/\/+$/, ''), token, appId, key: `${url}|${appId}` };
}

/** The working tree's top and its checked-out branch, read from .git without starting git. */
export function gitBranch(cwd: string): { top: string; branch: string } | undefined {
  let dir = path.resolve(cwd);
  for (;;) {
    const dotGit = path.join(dir, '.git');
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(dotGit);
    } catch {
      st = undefined;
    }
    if (st) {
      let gitDir = dotGit;
      try {
        if (st.isFile()) {
          // A worktree or submodule: `gitdir: <path>`.
          const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotGit, 'utf8'));
          if (!m) return undefined;
          gitDir = path.resolve(dir, m[1]!.trim());
        }
        const head = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim();
        const ref = /^ref: refs\/heads\/(.+)$/.exec(head);
        return ref ? { top: dir, branch: ref[1]! } : undefined;
      } catch {
        return undefined;
      }
    }
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** This session's cost and the day's: from the cache while the transcript is unchanged, else priced anew. */
export async function sessionCosts(
  sessionId: string,
  transcript: string | undefined,
  p: Paths,
  now: number,
): Promise<{ session?: SessionEntry; todayMicros: number; partial: boolean }> {
  const day = localDay(now);
  const loaded = readJson<DayCache>(p.day);
  const cache: DayCache = loaded?.day === day && loaded.sessions ? loaded : { day, sessions: {} };
  let entry = cache.sessions[sessionId];
  if (transcript) {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(transcript);
    } catch {
      st = undefined;
    }
    if (st?.isFile() && (!entry || entry.size !== st.size || entry.mtimeMs !== st.mtimeMs)) {
      const [{ parseClaudeCodeTranscript }, { priceSession }] = await Promise.all([
        import('../../capture/claude.js'),
        import('../../pricing/cost.js'),
      ]);
      const text = fs.readFileSync(transcript, 'utf8');
      const turns = parseClaudeCodeTranscript(text, { tier: 'metrics', sourcePath: transcript }).turns;
      const midnight = localMidnight(now);
      const all = priceSession(turns);
      const today = priceSession(turns.filter((t) => t.ts !== undefined && Date.parse(t.ts) >= midnight));
      entry = {
        size: st.size,
        mtimeMs: st.mtimeMs,
        costMicros: all.costMicros,
        todayMicros: today.costMicros,
        partial: all.status !== 'complete',
      };
      cache.sessions[sessionId] = entry;
      writeJson(p.day, cache);
    }
  }
  let todayMicros = 0;
  let partial = false;
  for (const e of Object.values(cache.sessions)) {
    todayMicros += e.todayMicros;
    partial ||= e.partial && e.todayMicros > 0;
  }
  return { ...(entry ? { session: entry } : {}), todayMicros, partial };
}

const usd = (micros: number) => `$${(micros / 1e6).toFixed(2)}`;

/** Attest's part of the line. `refresh` starts the background refresh when the gateway's answers are stale. */
export async function statusText(
  input: StatusInput,
  opts: { env?: NodeJS.ProcessEnv; now?: number; refresh?: (args: string[]) => void } = {},
): Promise<string> {
  const env = opts.env ?? process.env;
  const now = opts.now ?? Date.now();
  const p = statuslinePaths(env);
  const parts: string[] = [];
  const sessionId = str(input.session_id);
  const transcript = str(input.transcript_path);
  if (sessionId) {
    const costs = await sessionCosts(
      sessionId,
      transcript && path.isAbsolute(transcript) ? transcript : undefined,
      p,
      now,
    );
    if (costs.session) parts.push(`session ${usd(costs.session.costMicros)}${costs.session.partial ? '+' : ''}`);
    parts.push(`today ${usd(costs.todayMicros)}${costs.partial ? '+' : ''}`);
  }
  const target = profileTarget(env);
  if (target) {
    const remote = readJson<RemoteCache>(p.remote);
    const cache = remote?.target === target.key ? remote : undefined;
    const cwd = str(input.workspace?.current_dir) ?? str(input.cwd);
    const git = cwd ? gitBranch(cwd) : undefined;
    const prKey = git ? `${git.top}|${git.branch}` : undefined;
    const budget = cache?.budget;
    if (budget?.value) {
      const b = budget.value;
      const pct = b.amountUsd > 0 ? Math.round((b.spendUsd / b.amountUsd) * 100) : 0;
      parts.push(`factory $${b.spendUsd.toFixed(2)}/$${b.amountUsd.toFixed(2)} (${pct}%)`);
    }
    const pr = prKey ? cache?.prs[prKey] : undefined;
    if (pr?.value && pr.value.verdict !== 'none')
      parts.push(
        `PR #${pr.value.number} ${pr.value.verdict}${pr.value.flagged > 0 ? ` (${pr.value.flagged} flagged)` : ''}`,
      );
    const stale = (at: number | undefined) => at === undefined || now - at > REMOTE_MAX_AGE_MS || at > now;
    const tried = cache?.triedAt !== undefined && !stale(cache.triedAt);
    if (opts.refresh && !tried && (stale(budget?.at) || (prKey && stale(pr?.at))))
      opts.refresh(git ? ['--dir', git.top, '--branch', git.branch] : []);
  }
  return `attest ${parts.length > 0 ? parts.join(' · ') : 'ready'}`;
}

/** Takes the refresh lock; false while a live refresh holds it. */
function takeRefreshLock(p: Paths): boolean {
  fs.mkdirSync(p.dir, { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(p.lock, String(process.pid), { flag: 'wx', mode: 0o600 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
  }
  try {
    if (Date.now() - fs.statSync(p.lock).mtimeMs < REFRESH_LOCK_STALE_MS) return false;
    fs.rmSync(p.lock, { force: true });
    fs.writeFileSync(p.lock, String(process.pid), { flag: 'wx', mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}

/** Starts `attest statusline --refresh ...` detached, unless a refresh runs; this process does not wait for it. */
function startRefresh(p: Paths, args: string[]): void {
  const script = process.argv[1];
  if (!script || !takeRefreshLock(p)) return;
  try {
    const child = spawn(process.execPath, [...process.execArgv, script, 'statusline', '--refresh', ...args], {
      detached: true,
      stdio: 'ignore',
    });
    child.on('error', () => fs.rmSync(p.lock, { force: true }));
    if (child.pid === undefined) fs.rmSync(p.lock, { force: true });
    else fs.writeFileSync(p.lock, String(child.pid), { mode: 0o600 });
    child.unref();
  } catch {
    fs.rmSync(p.lock, { force: true });
  }
}

type Target = NonNullable<ReturnType<typeof profileTarget>>;

/** The one API client, loaded only in the background refresh (the status line itself never waits on it). */
async function clientOf(target: Target) {
  const { AttestClient, ApiClientError, unwrap } = await import('../../client/index.js');
  const client = new AttestClient({
    url: target.url,
    token: target.token,
    appId: target.appId,
    timeoutMs: REFRESH_REQUEST_MS,
  });
  /** The answer; undefined when the gateway answers 404 (an older gateway, or no such PR). */
  const orNone = async <T>(call: Promise<T>): Promise<T | undefined> => {
    try {
      return await call;
    } catch (err) {
      if (err instanceof ApiClientError && err.status === 404) return undefined;
      throw err;
    }
  };
  return { client, unwrap, orNone };
}

/**
 * Asks the gateway for today's factory budget and the verdict of the branch's PR, and caches the answers.
 * An answer that fails leaves the cache as it was (the line keeps showing what it had).
 */
export async function refreshRemote(
  args: { dir?: string; branch?: string },
  env: NodeJS.ProcessEnv = process.env,
  now: () => number = Date.now,
): Promise<RemoteCache | undefined> {
  const target = profileTarget(env);
  if (!target) return undefined;
  const p = statuslinePaths(env);
  const loaded = readJson<RemoteCache>(p.remote);
  const cache: RemoteCache = loaded?.target === target.key ? loaded : { target: target.key, prs: {} };
  cache.triedAt = now();
  // Recorded before asking: status lines started while this one waits do not start another.
  writeJson(p.remote, cache);
  const errors: string[] = [];
  try {
    const { client, unwrap, orNone } = await clientOf(target);
    const budgets = (await orNone(unwrap(client.api.GET('/v1/budgets'))))?.data ?? [];
    const day = budgets.find((b) => b.period === 'day' && b.scope?.kind === 'factory');
    cache.budget = {
      at: now(),
      value: day ? { name: day.name, spendUsd: day.status.spendUsd, amountUsd: day.amountUsd } : null,
    };
  } catch (err) {
    errors.push(err instanceof Error ? err.message : String(err));
  }
  if (args.dir && args.branch) {
    try {
      cache.prs[`${args.dir}|${args.branch}`] = {
        at: now(),
        value: await branchVerdict(await clientOf(target), args.dir, args.branch),
      };
    } catch (err) {
      errors.push(err instanceof Error ? err.message : String(err));
    }
  }
  // Entries of branches not looked at for a day go.
  for (const [k, v] of Object.entries(cache.prs)) if (now() - v.at > 86_400_000) delete cache.prs[k];
  writeJson(p.remote, cache);
  if (errors.length > 0) throw new Error(errors.join('; '));
  return cache;
}

/** The pull request whose head is this branch (an open one first), and its verdict; null when there is none. */
async function branchVerdict(
  { client, unwrap, orNone }: Awaited<ReturnType<typeof clientOf>>,
  dir: string,
  branch: string,
): Promise<PrVerdict | null> {
  const { spawnSync } = await import('node:child_process');
  const remote = spawnSync('git', ['-C', dir, 'config', '--get', 'remote.origin.url'], {
    encoding: 'utf8',
    timeout: 2000,
  });
  const url = remote.status === 0 ? remote.stdout.trim() : '';
  if (!url) return null;
  const { normalizeRepo } = await import('../../codehost/repository-name.js');
  const repo = normalizeRepo(url);
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo)) return null;
  const outcomes = await orNone(
    unwrap(client.api.GET('/v1/prs/outcomes', { params: { query: { repo, limit: 100 } } })),
  );
  const rows = outcomes?.data ?? [];
  const mine = rows.filter((r) => r.branch === branch);
  const pr = mine.find((r) => r.state === 'open') ?? mine[0];
  if (!pr) return null;
  const [owner = '', name = ''] = pr.repository.split('/');
  const prPath = { owner, repo: name, number: pr.number };
  const v = (
    await orNone(unwrap(client.api.GET('/v1/prs/{owner}/{repo}/{number}/verdict', { params: { path: prPath } })))
  )?.data;
  return v ? { number: pr.number, verdict: v.verdict, flagged: v.flagged } : null;
}

/** The user's own status line, run as Claude Code runs it; its output, or '' when it failed or took too long. */
function runChained(command: string, input: string): Promise<string> {
  return new Promise((resolve) => {
    let out = '';
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(out.replace(/\s+$/, ''));
    };
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['pipe', 'pipe', 'ignore'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      out = '';
      finish();
    }, CHAIN_MAX_MS);
    child.stdout.on('data', (b: Buffer) => {
      if (out.length < 64 * 1024) out += b.toString('utf8');
    });
    child.on('error', () => {
      out = '';
      finish();
    });
    child.on('close', finish);
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

function log(p: Paths, entry: Record<string, unknown>): void {
  try {
    fs.mkdirSync(p.dir, { recursive: true, mode: 0o700 });
    fs.appendFileSync(p.log, `${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`, { mode: 0o600 });
  } catch {
    // nowhere left to report to
  }
}

export async function runStatusline(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const p = statuslinePaths(env);
  if (args[0] === '--refresh') {
    const at = (flag: string) => (args.indexOf(flag) >= 0 ? args[args.indexOf(flag) + 1] : undefined);
    const dir = at('--dir');
    const branch = at('--branch');
    try {
      await refreshRemote({ ...(dir ? { dir } : {}), ...(branch ? { branch } : {}) }, env);
    } catch (err) {
      log(p, { refresh: true, error: err instanceof Error ? err.message : String(err) });
    } finally {
      fs.rmSync(p.lock, { force: true });
      process.exitCode = 0;
    }
    return;
  }
  const chainAt = args.indexOf('--chain');
  const chained = chainAt >= 0 ? args[chainAt + 1] : undefined;
  let printed = false;
  const print = (line: string) => {
    if (printed) return;
    printed = true;
    process.stdout.write(`${line}\n`);
  };
  const guard = setTimeout(() => {
    print('attest');
    process.exit(0);
  }, HARD_LIMIT_MS);
  try {
    const raw = await readStdin(STDIN_MAX_BYTES, STDIN_WAIT_MS);
    const theirs = chained ? runChained(chained, raw) : Promise.resolve('');
    let ours = 'attest';
    try {
      const value = JSON.parse(raw) as unknown;
      const input = value !== null && typeof value === 'object' ? (value as StatusInput) : {};
      ours = await statusText(input, { env, refresh: (a) => startRefresh(p, a) });
    } catch (err) {
      log(p, { error: err instanceof Error ? err.message : String(err) });
    }
    const before = await theirs;
    print(before ? `${before}  ${ours}` : ours);
  } catch (err) {
    log(p, { error: err instanceof Error ? err.message : String(err) });
    print('attest');
  } finally {
    clearTimeout(guard);
    process.exitCode = 0;
  }
}
