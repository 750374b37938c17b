// `attest hook claude-code|codex [--tier T] [--chain CMD...]`: what Claude Code's hooks and Codex's `notify`
// run. It lives inside the agent's loop, so it imports Node built-ins only (src/main.ts dispatches here
// before loading anything else), reads its input within a bounded time, appends one line to the spool,
// starts at most one detached drain (the lock decides) and exits 0 whatever happened. Its errors go to
// the hook log next to the spool.
//
// Claude Code writes the hook input as JSON on stdin (session_id, transcript_path, cwd, hook_event_name).
// Codex runs `notify` with the JSON as the last argument (type, thread-id, cwd, ...); a notify command the
// user had before `attest init` follows `--chain` and is started with the same argument.
import fs from 'node:fs';
import path from 'node:path';
import { type SpoolEvent, spoolPaths } from './paths.js';
import { readStdin } from './stdin.js';
import { appendEvent, handLock, logLine, releaseLock, takeLock } from './spool.js';

const STDIN_MAX_BYTES = 1024 * 1024;
const STDIN_WAIT_MS = 1000;
/** Whatever is still pending then, the hook exits 0 at this point. */
const HARD_LIMIT_MS = 2500;
const TIERS = new Set(['metrics', 'redacted', 'full']);
const SESSION_ID = /^[A-Za-z0-9._:-]{1,200}$/;

export async function runHook(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const sp = spoolPaths(env);
  const guard = setTimeout(() => process.exit(0), HARD_LIMIT_MS);
  try {
    const agent = args[0] ?? 'claude-code';
    const tierAt = args.indexOf('--tier');
    const tier = tierAt >= 0 ? args[tierAt + 1] : undefined;
    if (tier !== undefined && !TIERS.has(tier)) throw new Error(`--tier must be metrics, redacted or full`);
    let event: SpoolEvent;
    if (agent === 'codex') {
      const payload = args.length > 1 ? args[args.length - 1]! : '';
      const chainAt = args.indexOf('--chain');
      if (chainAt >= 0) await startChained(args.slice(chainAt + 1, -1), payload, sp);
      event = codexEvent(payload);
    } else if (agent === 'claude-code') {
      event = claudeEvent(await readStdin(STDIN_MAX_BYTES, STDIN_WAIT_MS));
    } else throw new Error(`unknown agent "${agent}" (claude-code or codex)`);
    if (tier) event.tier = tier;
    appendEvent(sp, event);
    if (env.ATTEST_HOOK_NO_DRAIN !== '1') await startDrain(sp, env);
  } catch (err) {
    logLine(sp, { hook: args[0] ?? 'claude-code', error: err instanceof Error ? err.message : String(err) });
  } finally {
    clearTimeout(guard);
    process.exitCode = 0;
  }
}

function parseObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${what} is not JSON (${text.length} bytes)`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${what} is not an object`);
  return value as Record<string, unknown>;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

function claudeEvent(input: string): SpoolEvent {
  const o = parseObject(input, 'the hook input on stdin');
  const sessionId = str(o.session_id);
  const transcriptPath = str(o.transcript_path);
  if (!sessionId || !SESSION_ID.test(sessionId)) throw new Error('the hook input has no usable session_id');
  if (!transcriptPath || !path.isAbsolute(transcriptPath))
    throw new Error('the hook input has no absolute transcript_path');
  const cwd = str(o.cwd);
  return {
    agent: 'claude-code',
    event: str(o.hook_event_name) ?? 'unknown',
    sessionId,
    transcriptPath,
    ...(cwd ? { cwd } : {}),
    at: new Date().toISOString(),
  };
}

function codexEvent(payload: string): SpoolEvent {
  const o = parseObject(payload, "Codex's notify argument");
  const sessionId = str(o['thread-id']);
  if (!sessionId || !SESSION_ID.test(sessionId)) throw new Error("Codex's notification has no usable thread-id");
  const cwd = str(o.cwd);
  return {
    agent: 'codex',
    event: str(o.type) ?? 'unknown',
    sessionId,
    ...(cwd ? { cwd } : {}),
    at: new Date().toISOString(),
  };
}

/** The user's own notify command, started as Codex would have started it, and not waited for. */
async function startChained(command: string[], payload: string, sp: ReturnType<typeof spoolPaths>): Promise<void> {
  if (command.length === 0) return;
  const { spawn } = await import('node:child_process');
  try {
    const child = spawn(command[0]!, [...command.slice(1), payload], { detached: true, stdio: 'ignore' });
    child.on('error', (err) => logLine(sp, { hook: 'codex', chained: command[0], error: err.message }));
    child.unref();
  } catch (err) {
    logLine(sp, { hook: 'codex', chained: command[0], error: err instanceof Error ? err.message : String(err) });
  }
}

/**
 * Starts the drain in the background unless one runs: it outlives this process, which returns at once.
 * child_process loads only here: most hooks find a drain running and never need it.
 */
async function startDrain(sp: ReturnType<typeof spoolPaths>, env: NodeJS.ProcessEnv): Promise<void> {
  if (!takeLock(sp, process.pid)) return;
  const { spawn } = await import('node:child_process');
  const script = process.argv[1];
  if (!script) {
    releaseLock(sp, process.pid);
    throw new Error('cannot tell which attest script runs');
  }
  let out: number | 'ignore' = 'ignore';
  try {
    out = fs.openSync(sp.log, 'a', 0o600);
  } catch {
    // the drain logs its own lines; its stray output is dropped
  }
  try {
    const child = spawn(process.execPath, [...process.execArgv, script, 'hook-drain'], {
      detached: true,
      stdio: ['ignore', out, out],
      env,
    });
    child.on('error', (err) => logLine(sp, { hook: 'drain', error: err.message }));
    if (child.pid === undefined) throw new Error('the drain did not start');
    handLock(sp, child.pid);
    child.unref();
  } catch (err) {
    releaseLock(sp, process.pid);
    throw err;
  } finally {
    if (typeof out === 'number') fs.closeSync(out);
  }
}
