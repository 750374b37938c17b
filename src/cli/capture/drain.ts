// `attest hook-drain`: the background half of `attest hook`. Holding the drain lock, it claims the spooled
// events, syncs the sessions they name (only those files, through the same code and watermarks as
// `attest sync`, so nothing is sent twice) and deletes a batch only once the gateway took it. When the
// gateway is down or refuses the credential, the batches stay and the next drain sends them.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { isCaptureTier } from '../../capture/index.js';
import { describeError } from '../output.js';
import { runSync } from '../sync.js';
import { discover, type FoundFile } from '../sync/discovery.js';
import { DRAIN_MAX_MS, type SpoolEvent, spoolPaths } from './paths.js';
import {
  backlog,
  claimEvents,
  handLock,
  holdsLock,
  listBatches,
  logLine,
  readEvents,
  releaseLock,
  takeLock,
} from './spool.js';

/** Rounds of claim-and-send in one drain, so a hook firing faster than the gateway answers cannot keep it alive. */
const MAX_ROUNDS = 10;

export function registerHookDrain(program: Command): void {
  // src/main.ts runs `attest hook` before commander loads; this entry is what `attest --help` shows.
  program
    .command('hook')
    .description('What the agents run (installed by attest init): spool the session and send it in the background')
    .argument('[agent]', 'claude-code (hook input on stdin) or codex (notify JSON as the last argument)')
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async () => {
      const { runHook } = await import('./hook.js');
      await runHook(process.argv.slice(3));
    });
  // src/main.ts runs `attest statusline` before commander loads too; this entry is for `attest --help`.
  program
    .command('statusline')
    .description("One line for Claude Code's status line: session cost, today's total, budget and PR verdict")
    .option('--chain <command>', 'a status line of your own to run first (attest init sets it)')
    .action(async () => {
      const { runStatusline } = await import('./statusline.js');
      await runStatusline(process.argv.slice(3));
    });
  program
    .command('hook-drain', { hidden: true })
    .description('Send the sessions the hooks spooled (started in the background by `attest hook`)')
    .action(async () => {
      await drainSpool();
    });
}

export interface DrainOutcome {
  ran: boolean;
  sessionIds: string[];
  error?: string;
}

export async function drainSpool(env: NodeJS.ProcessEnv = process.env): Promise<DrainOutcome> {
  const sp = spoolPaths(env);
  const me = process.pid;
  // The hook that started this drain took the lock and wrote our pid into it (or is about to: its own pid).
  if (holdsLock(sp, me) || holdsLock(sp, process.ppid)) handLock(sp, me);
  else if (!takeLock(sp, me)) return { ran: false, sessionIds: [] };
  const timer = setTimeout(() => {
    logLine(sp, { drain: me, error: `gave up after ${DRAIN_MAX_MS / 1000} s; the batches wait for the next drain` });
    releaseLock(sp, me);
    process.exit(0);
  }, DRAIN_MAX_MS);
  const sessionIds: string[] = [];
  try {
    for (;;) {
      for (let round = 0; round < MAX_ROUNDS; round++) {
        claimEvents(sp, me);
        const batches = listBatches(sp);
        if (batches.length === 0) break;
        const events = readEvents(batches);
        const sent = await sendEvents(events, env);
        sessionIds.push(...sent.sessionIds);
        logLine(sp, { drain: me, batches: batches.length, events: events.length, ...sent });
        for (const b of batches) fs.rmSync(b, { force: true });
      }
      releaseLock(sp, me);
      // An event appended after the last claim and before the release: go on if no other drain took over.
      if (!fs.existsSync(sp.events) || !takeLock(sp, me)) break;
    }
    return { ran: true, sessionIds };
  } catch (err) {
    const error = describeError(err);
    logLine(sp, { drain: me, error, waiting: backlog(sp) });
    releaseLock(sp, me);
    return { ran: true, sessionIds, error };
  } finally {
    clearTimeout(timer);
  }
}

/** Syncs the files the events name, one sync per capture tier. */
async function sendEvents(
  events: SpoolEvent[],
  env: NodeJS.ProcessEnv,
): Promise<{
  sent: number;
  sessionIds: string[];
  missing: string[];
  rejected: { id: string | null; reason: string }[];
}> {
  const byTier = new Map<string, SpoolEvent[]>();
  for (const e of events) {
    const tier = e.tier && isCaptureTier(e.tier) ? e.tier : 'redacted';
    byTier.set(tier, [...(byTier.get(tier) ?? []), e]);
  }
  const out = {
    sent: 0,
    sessionIds: [] as string[],
    missing: [] as string[],
    rejected: [] as { id: string | null; reason: string }[],
  };
  let codexFiles: FoundFile[] | undefined;
  for (const [tier, group] of byTier) {
    const files = new Map<string, FoundFile>();
    for (const e of group) {
      if (e.agent === 'claude-code' && e.transcriptPath) {
        const found = claudeFiles(e.transcriptPath);
        if (found.length === 0) out.missing.push(e.transcriptPath);
        for (const f of found) files.set(f.path, f);
      } else if (e.agent === 'codex') {
        codexFiles ??= discover(env).filter((f) => f.kind === 'codex');
        const f = codexFiles.find((c) => path.basename(c.path).endsWith(`-${e.sessionId}.jsonl`));
        if (f) files.set(f.path, f);
        else out.missing.push(`codex thread ${e.sessionId}`);
      }
    }
    if (files.size === 0) continue;
    const run = await runSync({ tier, quiet: true, progress: false }, [...files.values()]);
    out.sent += run.sent;
    out.sessionIds.push(...run.sessionIds);
    out.rejected.push(...run.rejected);
  }
  out.missing = [...new Set(out.missing)];
  return out;
}

/** A Claude Code transcript and its subagents' (<dir>/<session>/subagents/*.jsonl), as they are now. */
function claudeFiles(transcript: string): FoundFile[] {
  const paths = [transcript];
  const subDir = path.join(path.dirname(transcript), path.basename(transcript, '.jsonl'), 'subagents');
  try {
    for (const n of fs.readdirSync(subDir)) if (n.endsWith('.jsonl')) paths.push(path.join(subDir, n));
  } catch {
    // no subagents
  }
  const out: FoundFile[] = [];
  for (const p of paths) {
    try {
      const st = fs.statSync(p);
      if (st.isFile()) out.push({ path: p, kind: 'claude-code', size: st.size, mtimeMs: st.mtimeMs });
    } catch {
      // gone
    }
  }
  return out;
}
