// Where the CLI keeps its files, and where the automatic capture spools hook events. Node built-ins only:
// `attest hook` imports this inside the user's agent, before any heavy module.
import os from 'node:os';
import path from 'node:path';

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : path.join(os.homedir(), '.config');
  return path.join(base, 'attest');
}

export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME)
      ? env.XDG_STATE_HOME
      : path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'attest');
}

/** The spool: events the hooks appended, batches a drain claimed, the drain lock and the hook log. */
export function spoolPaths(env: NodeJS.ProcessEnv = process.env) {
  const dir = path.join(stateDir(env), 'spool');
  return {
    dir,
    /** New events, one JSON object a line, appended by `attest hook`. */
    events: path.join(dir, 'events.jsonl'),
    /** Held by the one running drain; its content is the drain's pid. */
    lock: path.join(dir, 'drain.lock'),
    /** What went wrong in a hook or a drain, and what each drain sent (JSON lines). */
    log: path.join(dir, 'hook.log'),
  };
}

/** A batch claimed from events.jsonl by a drain; kept until the gateway took its sessions. */
export const BATCH_PREFIX = 'batch-';

/** One hook event in the spool. */
export interface SpoolEvent {
  agent: 'claude-code' | 'codex';
  event: string;
  sessionId: string;
  /** Claude Code's transcript file (Codex names only its thread; the drain finds the rollout file). */
  transcriptPath?: string;
  cwd?: string;
  /** What leaves the machine (metrics, redacted, full), from the hook command's --tier; default redacted. */
  tier?: string;
  at: string;
}

/** A drain gives up after this long (it is killed or exits; its batches stay for the next one). */
export const DRAIN_MAX_MS = 120_000;
/** A lock whose drain is gone is taken over after this grace (the hook writes the drain's pid just after spawn). */
export const LOCK_HANDOFF_MS = 2_000;
