// Attest's hooks in Claude Code's settings.json: one matcher group of ours per event, holding the command
// `<attest> hook claude-code`. Every other key, event, group and hook of the user's is kept as it was.
import { CliError } from '../profile.js';

/**
 * SessionEnd sends a finished session; Stop and SubagentStop send a long one turn by turn; PreCompact before
 * compaction.
 */
export const CLAUDE_EVENTS = ['SessionEnd', 'Stop', 'SubagentStop', 'PreCompact'] as const;
/** Seconds Claude Code allows the hook; it returns in milliseconds, this only bounds a stuck disk. */
const HOOK_TIMEOUT_S = 10;

type Json = Record<string, unknown>;
interface HookEntry {
  type?: unknown;
  command?: unknown;
  [k: string]: unknown;
}
interface MatcherGroup {
  hooks?: unknown;
  [k: string]: unknown;
}

/** A hook command Attest wrote, whatever binary path it names. */
export function isAttestHook(entry: unknown): boolean {
  const command = (entry as HookEntry | null)?.command;
  return typeof command === 'string' && /(^|\s)hook claude-code(\s|$)/.test(command);
}

export function parseSettings(text: string, file: string): Json {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${file} is not valid JSON (${(err as Error).message}); fix it first. Nothing was written.`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new CliError(`${file} does not hold a JSON object; fix it first. Nothing was written.`);
  return value as Json;
}

function hooksObject(settings: Json, file: string): Json | undefined {
  const hooks = settings.hooks;
  if (hooks === undefined) return undefined;
  if (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks))
    throw new CliError(`"hooks" in ${file} is not an object; fix it first. Nothing was written.`);
  return hooks as Json;
}

function groupsOf(hooks: Json, event: string, file: string): MatcherGroup[] | undefined {
  const groups = hooks[event];
  if (groups === undefined) return undefined;
  if (!Array.isArray(groups))
    throw new CliError(`"hooks.${event}" in ${file} is not an array; fix it first. Nothing was written.`);
  return groups as MatcherGroup[];
}

/** Takes Attest's hooks out of the groups; drops a group only when nothing but ours was in it. */
function withoutOurs(groups: MatcherGroup[]): MatcherGroup[] {
  const out: MatcherGroup[] = [];
  for (const g of groups) {
    if (!Array.isArray(g?.hooks) || !g.hooks.some(isAttestHook)) {
      out.push(g);
      continue;
    }
    const kept = g.hooks.filter((h) => !isAttestHook(h));
    if (kept.length > 0) out.push({ ...g, hooks: kept });
  }
  return out;
}

export interface ClaudeChange {
  settings: Json;
  /** One line per event: added, updated or unchanged. */
  changes: string[];
  /** The keys this install created (`hooks`, `hooks.Stop`, ...), for --remove. */
  created: string[];
}

export function installClaudeHooks(settings: Json, command: string, file: string): ClaudeChange {
  const next: Json = { ...settings };
  const created: string[] = [];
  const existing = hooksObject(settings, file);
  if (!existing) created.push('hooks');
  const hooks: Json = { ...(existing ?? {}) };
  const changes: string[] = [];
  for (const event of CLAUDE_EVENTS) {
    const groups = groupsOf(hooks, event, file);
    if (!groups) created.push(`hooks.${event}`);
    const ours = (groups ?? []).flatMap((g) => (Array.isArray(g?.hooks) ? g.hooks.filter(isAttestHook) : []));
    if (ours.length === 1 && (ours[0] as HookEntry).command === command) {
      changes.push(`${event}: unchanged`);
      continue;
    }
    hooks[event] = [...withoutOurs(groups ?? []), { hooks: [{ type: 'command', command, timeout: HOOK_TIMEOUT_S }] }];
    changes.push(`${event}: ${ours.length === 0 ? 'added' : 'updated'} ${command}`);
  }
  next.hooks = hooks;
  return { settings: next, changes, created };
}

/** Takes Attest's hooks out; a key `attest init` created and that is now empty goes too. */
export function removeClaudeHooks(
  settings: Json,
  created: string[],
  file: string,
): { settings: Json; changes: string[] } {
  const existing = hooksObject(settings, file);
  if (!existing) return { settings, changes: [] };
  const hooks: Json = { ...existing };
  const changes: string[] = [];
  for (const event of Object.keys(existing)) {
    const groups = groupsOf(existing, event, file);
    if (!groups?.some((g) => Array.isArray(g?.hooks) && g.hooks.some(isAttestHook))) continue;
    const kept = withoutOurs(groups);
    if (kept.length === 0 && created.includes(`hooks.${event}`)) delete hooks[event];
    else hooks[event] = kept;
    changes.push(`${event}: removed`);
  }
  const next: Json = { ...settings, hooks };
  if (Object.keys(hooks).length === 0 && created.includes('hooks')) delete next.hooks;
  return { settings: next, changes };
}

/** The `statusLine` Attest installs: `<attest> statusline`, with the user's own command after `--chain`. */
export function isAttestStatusLine(value: unknown, recorded?: string): boolean {
  const command = (value as HookEntry | null)?.command;
  if (typeof command !== 'string') return false;
  if (recorded !== undefined && command === recorded) return true;
  const m = /^(\S+|'[^']*')(?:\s+\S+)*?\s+statusline(\s+--chain\s.*)?$/s.exec(command);
  return m !== null && /attest|main\.[jt]s/.test(command.split(/\s+statusline(\s|$)/)[0]!);
}

export interface StatusLineChange {
  settings: Json;
  change: string;
  /** The status line the user had (undefined: none), to record for --remove. */
  original?: unknown;
  ours?: string;
}

/**
 * Installs Attest's status line. A status line of the user's is wrapped: Attest's command runs theirs (after
 * `--chain`) and appends to it; `recordedOriginal` is the one seen before Attest, when this is a second run.
 */
export function installStatusLine(
  settings: Json,
  attest: string,
  recorded: { original?: unknown; ours?: string } | undefined,
): StatusLineChange {
  const current = settings.statusLine;
  const oursNow = current !== undefined && isAttestStatusLine(current, recorded?.ours);
  const original = oursNow ? recorded?.original : current;
  const theirs = (original as HookEntry | undefined)?.command;
  const command =
    typeof theirs === 'string' && theirs.trim() !== ''
      ? `${attest} statusline --chain ${shellQuote(theirs)}`
      : `${attest} statusline`;
  const base = original !== null && typeof original === 'object' && !Array.isArray(original) ? original : {};
  const desired = { ...base, type: 'command', command };
  if (JSON.stringify(current) === JSON.stringify(desired))
    return { settings, change: 'statusLine: unchanged', original, ours: command };
  const next: Json = { ...settings, statusLine: desired };
  const change = oursNow
    ? `statusLine: updated ${command}`
    : original === undefined
      ? `statusLine: added ${command}`
      : `statusLine: wrapped your own (${String(theirs)}) in ${command}`;
  return { settings: next, change, original, ours: command };
}

/** Puts back the status line the user had before Attest (or none); leaves one that is not Attest's alone. */
export function removeStatusLine(
  settings: Json,
  recorded: { original?: unknown; ours?: string } | undefined,
): { settings: Json; change?: string } {
  if (settings.statusLine === undefined || !isAttestStatusLine(settings.statusLine, recorded?.ours))
    return { settings };
  const next: Json = { ...settings };
  if (recorded?.original === undefined) {
    delete next.statusLine;
    return { settings: next, change: 'statusLine: removed' };
  }
  next.statusLine = recorded.original;
  return { settings: next, change: 'statusLine: restored your own' };
}

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
