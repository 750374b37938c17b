// Reading and writing a user's agent settings file safely: refuse what we cannot parse or may not write,
// back up before changing, write atomically with the file's own mode, and remember what we created so
// `--remove` restores the file as it was.
import fs from 'node:fs';
import path from 'node:path';
import { CliError, writePrivateJson } from '../profile.js';
import { stateDir } from './paths.js';

export interface FileText {
  file: string;
  exists: boolean;
  text: string;
  mode: number;
}

export function readSettingsText(file: string): FileText {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { file, exists: false, text: '', mode: 0o644 };
    throw new CliError(`Cannot read ${file}: ${(err as Error).message}`);
  }
  if (!st.isFile()) throw new CliError(`${file} is not a file; nothing was written.`);
  return { file, exists: true, text: fs.readFileSync(file, 'utf8'), mode: st.mode & 0o777 };
}

/** Refuses a file its owner made read-only (root could write it anyway: the mode is the owner's wish). */
export function assertWritable(f: FileText): void {
  if (f.exists && (f.mode & 0o200) === 0)
    throw new CliError(
      `${f.file} is read-only (mode ${f.mode.toString(8)}); make it writable first. Nothing was written.`,
    );
}

/** Copies the file next to itself before a change; returns the copy's path (undefined: there was no file). */
export function backup(f: FileText, now: Date = new Date()): string | undefined {
  if (!f.exists) return undefined;
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const copy = `${f.file}.attest-backup-${stamp}`;
  fs.copyFileSync(f.file, copy);
  fs.chmodSync(copy, f.mode & 0o600);
  return copy;
}

export function writeAtomically(f: FileText, text: string): void {
  fs.mkdirSync(path.dirname(f.file), { recursive: true });
  const tmp = `${f.file}.attest-${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { mode: f.mode });
  fs.chmodSync(tmp, f.mode);
  fs.renameSync(tmp, f.file);
}

/** What `attest init` created in a file, so `--remove` takes out exactly that. */
export interface InitRecord {
  createdFile?: boolean;
  createdKeys?: string[];
  /** Claude Code's status line: the command Attest wrote and the user's own before it (absent: none). */
  statusLine?: { ours?: string; original?: unknown };
  /** The backup of the file as it was before Attest first changed it. */
  pristine?: string;
  /** sha256 of what Attest last wrote: while the file still holds exactly that, --remove puts back `pristine`. */
  wrote?: string;
}

function recordPath(): string {
  return path.join(stateDir(), 'init.json');
}

function readRecords(): Record<string, InitRecord> {
  try {
    const v = JSON.parse(fs.readFileSync(recordPath(), 'utf8')) as unknown;
    return v !== null && typeof v === 'object' ? (v as Record<string, InitRecord>) : {};
  } catch {
    return {};
  }
}

export function initRecord(file: string): InitRecord | undefined {
  return readRecords()[file];
}

export function saveInitRecord(file: string, record: InitRecord | undefined): void {
  const all = readRecords();
  if (record) all[file] = record;
  else delete all[file];
  writePrivateJson(recordPath(), all);
}

/** A word as POSIX sh reads it: bare when it is plainly safe, else in single quotes. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The argv that runs this attest: the binary itself when it is executable (the npm-installed `attest`),
 * else Node with the script and the loader flags it runs under. Refuses a binary that does not exist.
 */
export function attestArgv(bin: string | undefined): string[] {
  const target = path.resolve(bin ?? process.argv[1] ?? '');
  let st: fs.Stats;
  try {
    st = fs.statSync(target);
  } catch {
    throw new CliError(
      `The attest binary ${target} does not exist; install the CLI (see docs/cli.md) or pass --bin PATH. Nothing was ` +
        `written.`,
    );
  }
  if (!st.isFile())
    throw new CliError(`${target} is not a file; pass --bin PATH to the attest binary. Nothing was written.`);
  if ((st.mode & 0o111) !== 0 && !target.endsWith('.ts')) return [target];
  return [process.execPath, ...process.execArgv, target];
}
