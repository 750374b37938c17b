// The spool of hook events and the lock that lets one drain run at a time. Node built-ins only: the hook
// (inside the user's agent) appends and takes the lock; the background drain claims, reads and deletes.
//
// Nothing is lost: an event is appended to events.jsonl; a drain renames that file to a batch it owns
// (rename is atomic, so each event lands in exactly one batch) and deletes the batch only after the gateway
// took its sessions. A drain that fails or is killed leaves its batches for the next one.
import fs from 'node:fs';
import path from 'node:path';
import { BATCH_PREFIX, DRAIN_MAX_MS, LOCK_HANDOFF_MS, type SpoolEvent, type spoolPaths } from './paths.js';

type Spool = ReturnType<typeof spoolPaths>;

export function ensureSpool(sp: Spool): void {
  fs.mkdirSync(sp.dir, { recursive: true, mode: 0o700 });
}

/** One line, one write with O_APPEND: concurrent hooks never interleave their lines. */
export function appendEvent(sp: Spool, event: SpoolEvent): void {
  ensureSpool(sp);
  fs.appendFileSync(sp.events, `${JSON.stringify(event)}\n`, { mode: 0o600 });
}

/** A line in the hook log: an error of a hook, or what a drain did. Never throws. */
export function logLine(sp: Spool, entry: Record<string, unknown>): void {
  try {
    ensureSpool(sp);
    fs.appendFileSync(sp.log, `${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`, { mode: 0o600 });
  } catch {
    // nowhere left to report to; the hook must still exit 0
  }
}

/** Whether process `pid` runs (EPERM: it does, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock's holder is gone (after the hand-off grace), or it has run longer than any drain may. */
function stale(content: string, mtimeMs: number, now: number): boolean {
  const age = now - mtimeMs;
  if (age > DRAIN_MAX_MS + 30_000) return true;
  const pid = Number.parseInt(content, 10);
  if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) return false;
  return age > LOCK_HANDOFF_MS;
}

/**
 * Takes the drain lock for `pid`; false when a live drain holds it. Two callers racing for a free lock: the
 * exclusive create lets one win. Racing to take over a stale lock: each moves it aside and checks it moved
 * the stale one it judged; one that moved a fresh lock puts it back and gives up.
 */
export function takeLock(sp: Spool, pid: number): boolean {
  ensureSpool(sp);
  try {
    fs.writeFileSync(sp.lock, String(pid), { flag: 'wx', mode: 0o600 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  let content: string;
  let mtimeMs: number;
  try {
    content = fs.readFileSync(sp.lock, 'utf8');
    mtimeMs = fs.statSync(sp.lock).mtimeMs;
  } catch {
    return false;
  }
  if (!stale(content, mtimeMs, Date.now())) return false;
  const aside = `${sp.lock}.stale-${process.pid}-${Date.now()}`;
  try {
    fs.renameSync(sp.lock, aside);
  } catch {
    return false;
  }
  if (fs.readFileSync(aside, 'utf8') !== content) {
    try {
      fs.linkSync(aside, sp.lock);
    } catch {
      // a third party holds the lock now; the one moved aside ran anyway (a drain's work is idempotent)
    }
    fs.rmSync(aside, { force: true });
    return false;
  }
  fs.rmSync(aside, { force: true });
  try {
    fs.writeFileSync(sp.lock, String(pid), { flag: 'wx', mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}

/** Records the drain that now holds the lock (the hook takes it, then hands it to the process it starts). */
export function handLock(sp: Spool, pid: number): void {
  fs.writeFileSync(sp.lock, String(pid), { mode: 0o600 });
}

export function holdsLock(sp: Spool, pid: number): boolean {
  try {
    return fs.readFileSync(sp.lock, 'utf8') === String(pid);
  } catch {
    return false;
  }
}

export function releaseLock(sp: Spool, pid: number): void {
  if (holdsLock(sp, pid)) fs.rmSync(sp.lock, { force: true });
}

/** Moves the new events into a batch of this drain's own; false when there were none. */
export function claimEvents(sp: Spool, pid: number): boolean {
  try {
    fs.renameSync(sp.events, path.join(sp.dir, `${BATCH_PREFIX}${Date.now()}-${pid}.jsonl`));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** Every batch waiting to be sent, oldest first (a batch of a drain that failed or was killed included). */
export function listBatches(sp: Spool): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(sp.dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(BATCH_PREFIX) && n.endsWith('.jsonl'))
    .sort(
      (a, b) => Number.parseInt(a.slice(BATCH_PREFIX.length), 10) - Number.parseInt(b.slice(BATCH_PREFIX.length), 10),
    )
    .map((n) => path.join(sp.dir, n));
}

/** The events of these batches; a line that does not parse (a torn write) is skipped. */
export function readEvents(files: string[]): SpoolEvent[] {
  const out: SpoolEvent[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const e = JSON.parse(line) as SpoolEvent;
        if (e && typeof e.sessionId === 'string' && (e.agent === 'claude-code' || e.agent === 'codex')) out.push(e);
      } catch {
        // skipped
      }
    }
  }
  return out;
}

/** How many events wait: in events.jsonl and in the batches not yet sent. */
export function backlog(sp: Spool): { events: number; batches: number } {
  const batches = listBatches(sp);
  const pending = fs.existsSync(sp.events) ? [sp.events, ...batches] : batches;
  return { events: readEvents(pending).length, batches: batches.length };
}
