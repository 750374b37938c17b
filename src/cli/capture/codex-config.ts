// Attest's `notify` in Codex's config.toml, edited with toml-patch so the user's other keys, comments and
// layout stay as they were. A notify the user already had is chained: it follows `--chain` in ours, the
// hook starts it with Codex's argument, and `--remove` puts it back.
import { parse, patch } from '@decimalturn/toml-patch';
import { CliError } from '../profile.js';

type Toml = Record<string, unknown>;

export function parseCodexConfig(text: string, file: string): Toml {
  try {
    return parse(text) as Toml;
  } catch (err) {
    throw new CliError(
      `${file} is not valid TOML (${(err as Error).message.split('\n')[0]}); fix it first. Nothing was written.`,
    );
  }
}

/** Where `hook codex` starts in a notify argv that Attest wrote, else -1. */
function attestAt(notify: string[]): number {
  return notify.findIndex((a, i) => a === 'hook' && notify[i + 1] === 'codex');
}

function notifyOf(config: Toml, file: string): string[] | undefined {
  const notify = config.notify;
  if (notify === undefined) return undefined;
  if (!Array.isArray(notify) || !notify.every((a) => typeof a === 'string'))
    throw new CliError(`"notify" in ${file} is not an array of strings; fix it first. Nothing was written.`);
  return notify as string[];
}

/** The notify the user had before Attest: what follows --chain in ours, or the whole of theirs. */
function chained(notify: string[]): string[] {
  const at = attestAt(notify);
  if (at < 0) return notify;
  const chainAt = notify.indexOf('--chain', at);
  return chainAt < 0 ? [] : notify.slice(chainAt + 1);
}

export function installCodexNotify(
  text: string,
  attest: string[],
  tier: string | undefined,
  file: string,
): { text: string; change: string } {
  const config = parseCodexConfig(text, file);
  const current = notifyOf(config, file);
  const previous = current ? chained(current) : [];
  const desired = [
    ...attest,
    'hook',
    'codex',
    ...(tier ? ['--tier', tier] : []),
    ...(previous.length > 0 ? ['--chain', ...previous] : []),
  ];
  if (current && JSON.stringify(current) === JSON.stringify(desired)) return { text, change: 'notify: unchanged' };
  const next = patch(text, { ...config, notify: desired });
  const how = !current ? 'set' : attestAt(current) >= 0 ? 'updated' : `set, chaining your ${JSON.stringify(previous)}`;
  return { text: next, change: `notify: ${how} ${JSON.stringify(desired)}` };
}

export function removeCodexNotify(text: string, file: string): { text: string; change?: string } {
  const config = parseCodexConfig(text, file);
  const current = notifyOf(config, file);
  if (!current || attestAt(current) < 0) return { text };
  const previous = chained(current);
  const { notify: _ours, ...rest } = config;
  const next = patch(text, previous.length > 0 ? { ...rest, notify: previous } : rest);
  return {
    text: next,
    change: previous.length > 0 ? `notify: restored ${JSON.stringify(previous)}` : 'notify: removed',
  };
}
