// `attest init [--remove]`: installs (or takes out) the automatic capture. Claude Code: Attest's hooks in
// ~/.claude/settings.json (or .claude/settings.json of the current project with --scope project). Codex:
// `notify` in $CODEX_HOME/config.toml (default ~/.codex). Each file is refused untouched when it does not
// parse or is read-only, backed up before a change, written atomically, and left alone when nothing changes.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { isCaptureTier } from '../capture/index.js';
import {
  CLAUDE_EVENTS,
  installClaudeHooks,
  installStatusLine,
  parseSettings,
  removeClaudeHooks,
  removeStatusLine,
} from './capture/claude-settings.js';
import { installCodexNotify, removeCodexNotify } from './capture/codex-config.js';
import {
  assertWritable,
  attestArgv,
  backup,
  initRecord,
  readSettingsText,
  saveInitRecord,
  shellWord,
  writeAtomically,
} from './capture/settings-file.js';
import { action, printJson } from './output.js';
import { CliError } from './profile.js';

interface InitFlags {
  remove?: boolean;
  scope: string;
  agent: string;
  bin?: string;
  tier?: string;
  json?: boolean;
  /** false with --no-statusline: leave Claude Code's status line alone. */
  statusline?: boolean;
}

export interface FileOutcome {
  agent: 'claude-code' | 'codex';
  file: string;
  changed: boolean;
  changes: string[];
  backup: string | null;
  skipped?: string;
}

export function registerInit(program: Command): void {
  program
    .command('init')
    .description('Install the hooks that send every Claude Code and Codex session to the gateway (--remove undoes it)')
    .option('--remove', 'take out what init installed, restoring the files as they were')
    .option(
      '--scope <scope>',
      'Claude Code settings: user (~/.claude/settings.json) or project (.claude/settings.json)',
      'user',
    )
    .option('--agent <agent>', 'claude-code, codex, or all (Codex only where ~/.codex exists)', 'all')
    .option('--bin <path>', 'the attest binary the hooks run (default: this one)')
    .option('--tier <tier>', 'what the hooks send: metrics, redacted (default) or full')
    .option('--no-statusline', "leave Claude Code's status line alone (default: install Attest's, wrapping yours)")
    .option('--json', 'print what changed as JSON')
    .action(
      action(async (flags: InitFlags) => {
        if (flags.scope !== 'user' && flags.scope !== 'project') throw new CliError('--scope must be user or project');
        if (!['all', 'claude-code', 'codex'].includes(flags.agent))
          throw new CliError('--agent must be claude-code, codex or all');
        if (flags.tier !== undefined && !isCaptureTier(flags.tier))
          throw new CliError('--tier must be metrics, redacted or full');
        const argv = flags.remove ? [] : attestArgv(flags.bin);
        const outcomes: FileOutcome[] = [];
        if (flags.agent !== 'codex') outcomes.push(initClaude(flags, argv));
        if (flags.agent !== 'claude-code') outcomes.push(initCodex(flags, argv));
        if (flags.json) printJson({ removed: Boolean(flags.remove), files: outcomes });
        else for (const o of outcomes) process.stdout.write(describe(o));
      }),
    );
}

function describe(o: FileOutcome): string {
  const name = o.agent === 'claude-code' ? 'Claude Code' : 'Codex';
  if (o.skipped) return `${name}: ${o.skipped}\n`;
  const lines = [`${name} (${o.file}): ${o.changed ? 'changed' : 'nothing to change'}`];
  for (const c of o.changes) lines.push(`  ${c}`);
  if (o.backup) lines.push(`  backup: ${o.backup}`);
  return `${lines.join('\n')}\n`;
}

export function claudeSettingsPath(scope: string, env: NodeJS.ProcessEnv = process.env): string {
  if (scope === 'project') return path.resolve('.claude', 'settings.json');
  return path.join(env.HOME || os.homedir(), '.claude', 'settings.json');
}

export function codexConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.CODEX_HOME || path.join(env.HOME || os.homedir(), '.codex'), 'config.toml');
}

function initClaude(flags: InitFlags, argv: string[]): FileOutcome {
  const file = claudeSettingsPath(flags.scope);
  const f = readSettingsText(file);
  const settings = parseSettings(f.text, file);
  const record = initRecord(file);
  if (flags.remove) {
    const hooks = removeClaudeHooks(settings, record?.createdKeys ?? [], file);
    const status = removeStatusLine(hooks.settings, record?.statusLine);
    const next = status.settings;
    const changes = [...hooks.changes, ...(status.change ? [status.change] : [])];
    if (changes.length === 0)
      return { agent: 'claude-code', file, changed: false, changes: ['no Attest hooks'], backup: null };
    assertWritable(f);
    const copy = backup(f);
    if (record?.createdFile && Object.keys(next).length === 0) {
      fs.rmSync(file);
      changes.push('file removed (init had created it)');
    } else if (record?.pristine && record.wrote === sha256(f.text) && fs.existsSync(record.pristine)) {
      // Untouched since Attest wrote it: the file goes back to exactly the bytes it had before.
      writeAtomically(f, fs.readFileSync(record.pristine, 'utf8'));
      changes.push(`restored byte for byte from ${record.pristine}`);
    } else writeAtomically(f, `${JSON.stringify(next, null, 2)}\n`);
    saveInitRecord(file, undefined);
    return { agent: 'claude-code', file, changed: true, changes, backup: copy ?? null };
  }
  const bin = argv.map(shellWord).join(' ');
  const command = [bin, 'hook', 'claude-code', ...(flags.tier ? ['--tier', flags.tier] : [])].join(' ');
  const hooks = installClaudeHooks(settings, command, file);
  const status = flags.statusline === false ? undefined : installStatusLine(hooks.settings, bin, record?.statusLine);
  const next = status?.settings ?? hooks.settings;
  const changes = [...hooks.changes, ...(status ? [status.change] : [])];
  if (changes.every((c) => c.endsWith(': unchanged')))
    return { agent: 'claude-code', file, changed: false, changes, backup: null };
  assertWritable(f);
  const copy = backup(f);
  const text = `${JSON.stringify(next, null, 2)}\n`;
  writeAtomically(f, text);
  // A second install keeps the first one's record: that one saw the file as it was before Attest.
  const kept = record ?? { createdFile: !f.exists, createdKeys: hooks.created, ...(copy ? { pristine: copy } : {}) };
  saveInitRecord(file, {
    ...kept,
    wrote: sha256(text),
    ...(status
      ? { statusLine: { ours: status.ours, ...(status.original !== undefined ? { original: status.original } : {}) } }
      : {}),
  });
  return { agent: 'claude-code', file, changed: true, changes, backup: copy ?? null };
}

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

function initCodex(flags: InitFlags, argv: string[]): FileOutcome {
  const file = codexConfigPath();
  if (flags.agent === 'all' && !fs.existsSync(path.dirname(file)))
    return {
      agent: 'codex',
      file,
      changed: false,
      changes: [],
      backup: null,
      skipped: `not installed (${path.dirname(file)} missing), skipped`,
    };
  const f = readSettingsText(file);
  const result = flags.remove ? removeCodexNotify(f.text, file) : installCodexNotify(f.text, argv, flags.tier, file);
  if (result.text === f.text || result.change === undefined)
    return { agent: 'codex', file, changed: false, changes: [result.change ?? 'no Attest notify'], backup: null };
  assertWritable(f);
  const copy = backup(f);
  if (flags.remove && initRecord(file)?.createdFile && result.text.trim() === '') fs.rmSync(file);
  else writeAtomically(f, result.text);
  if (flags.remove) saveInitRecord(file, undefined);
  else saveInitRecord(file, initRecord(file) ?? { createdFile: !f.exists });
  return { agent: 'codex', file, changed: true, changes: [result.change], backup: copy ?? null };
}

export { CLAUDE_EVENTS };
