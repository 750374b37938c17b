// The facts of one session document: the shell commands it ran (kind, result, scope), the files it edited,
// the commits it made and the hooks it skipped. Read from full-tier tool input and output when the document
// has them, otherwise from the facts events the CLI wrote at capture. Nothing here executes anything.
import picomatch from 'picomatch';
import { readCommand, type CommandPart } from './commands.js';
import { FACTS_EVENT, RUN_KINDS } from './constants.js';
import type {
  CommandRun,
  FactsDocument,
  FactsEvent,
  FileEdit,
  HookBypass,
  RunKind,
  RunResult,
  RunScope,
  SessionVerification,
} from './schema.js';
import { OUTPUT_SIGNS, PROSE_FILE_GLOBS, TEST_FILE_GLOBS } from './tools/index.js';

/** Tools that run a shell command: Claude Code's Bash; Codex's shell, exec_command and local shell. */
const SHELL_TOOLS = new Set(['Bash', 'shell', 'exec_command', 'local_shell', 'shell_command', 'container.exec']);
/** Tools that write files. */
const EDIT_TOOLS = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'apply_patch']);

const isTestMatcher = picomatch(TEST_FILE_GLOBS, { dot: true });
const isProseMatcher = picomatch(PROSE_FILE_GLOBS, { dot: true, nocase: true });

/** Whether a path is test code (tests, specs, fixtures of tests). */
export function isTestFile(file: string): boolean {
  return isTestMatcher(file.replace(/^\/+/, ''));
}

/** Whether a path is prose (docs, changelogs): editing it does not make a test run stale. */
export function isProseFile(file: string): boolean {
  return isProseMatcher(file.replace(/^\/+/, ''));
}

export function factsOfDocument(doc: FactsDocument): SessionVerification | null {
  if (doc.captureTier === 'metrics') return null;
  const hasInput = doc.captureTier === 'full' && doc.turns.some((t) => t.toolCalls.some((c) => c.input !== undefined));
  if (hasInput) return factsOfTurns(doc.turns, true, doc.env.cwd);
  if (doc.events.some((e) => e.type === FACTS_EVENT.marker)) return factsOfEvents(doc.events);
  // The whole transcript, and no tool call in it: the session provably ran and edited nothing.
  if (doc.captureTier === 'full' && doc.turns.every((t) => t.toolCalls.length === 0)) return factsOfTurns([], true);
  return null;
}

type Turn = FactsDocument['turns'][number];
type Call = Turn['toolCalls'][number];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The facts computed from tool calls with their input and output (the CLI at capture, the full tier). */
export function factsOfTurns(turns: readonly Turn[], withCommand: boolean, cwd?: string): SessionVerification {
  const edit = (turnIndex: number, file: string | undefined) =>
    editFact(turnIndex, file === undefined ? undefined : relative(file, cwd));
  const runs: CommandRun[] = [];
  const edits: FileEdit[] = [];
  const commits: string[] = [];
  const bypasses: HookBypass[] = [];
  for (const turn of turns) {
    for (const call of turn.toolCalls) {
      if (call.status === 'rejected') continue;
      if (EDIT_TOOLS.has(call.name)) {
        if (call.status === 'ok') for (const file of editedFiles(call)) edits.push(edit(turn.index, file));
        continue;
      }
      if (!SHELL_TOOLS.has(call.name)) continue;
      const command = commandOf(call.input);
      if (command === undefined) continue;
      const text = Array.isArray(command) ? command.join(' ') : command;
      const patch = patchOfCommand(command);
      if (patch !== undefined) {
        if (call.status === 'ok') for (const file of patchFiles(patch)) edits.push(edit(turn.index, file));
        continue;
      }
      const output = typeof call.output === 'string' ? call.output : '';
      const lineOk = lineSucceeded(call, output);
      const parts = readCommand(command);
      if (parts.length === 0) {
        const run: CommandRun = {
          turnIndex: turn.index,
          kind: 'other',
          result: lineOk ? 'pass' : 'fail',
          scope: 'unknown',
        };
        if (withCommand) run.command = text;
        runs.push(run);
        continue;
      }
      for (const part of parts) {
        const result = resultOf(part, lineOk, output);
        const run: CommandRun = { turnIndex: turn.index, kind: part.kind, result, scope: part.scope, tool: part.tool };
        if (part.target !== undefined) run.target = part.target;
        if (withCommand) run.command = text;
        runs.push(run);
        if (part.bypass) bypasses.push({ turnIndex: turn.index, how: part.bypass });
        if (part.kind === 'commit' && result !== 'fail')
          for (const sha of commitShas(output)) if (!commits.includes(sha)) commits.push(sha);
      }
    }
  }
  return { runs, edits, commits, bypasses };
}

/** A path inside the session's directory, relative to it (as the capture writes `file`). */
function relative(file: string, cwd: string | undefined): string {
  if (!cwd || !file.startsWith('/')) return file;
  const root = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return file.startsWith(root) ? file.slice(root.length) : file;
}

function editFact(turnIndex: number, file: string | undefined): FileEdit {
  return file === undefined ? { turnIndex, test: false } : { turnIndex, file, test: isTestFile(file) };
}

function editedFiles(call: Call): (string | undefined)[] {
  const input = call.input;
  if (call.name === 'apply_patch') {
    const patch =
      typeof input === 'string'
        ? input
        : isRecord(input) && typeof input.input === 'string'
          ? input.input
          : isRecord(input) && typeof input.patch === 'string'
            ? input.patch
            : undefined;
    if (patch !== undefined) {
      const files = patchFiles(patch);
      if (files.length > 0) return files;
    }
  }
  if (typeof call.file === 'string') return [call.file];
  if (isRecord(input)) {
    for (const key of ['file_path', 'notebook_path', 'path']) if (typeof input[key] === 'string') return [input[key]];
  }
  return [undefined];
}

/** The files an apply_patch envelope touches, in order, each once. */
function patchFiles(patch: string): string[] {
  const files: string[] = [];
  for (const m of patch.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm)) {
    const f = (m[1] ?? m[2] ?? '').trim();
    if (f && !files.includes(f)) files.push(f);
  }
  return files;
}

function commandOf(input: unknown): string | string[] | undefined {
  if (!isRecord(input)) return typeof input === 'string' ? input : undefined;
  const c = input.command ?? input.cmd;
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.every((w) => typeof w === 'string')) return c as string[];
  return undefined;
}

/** Codex writes patches through its shell too: `["apply_patch", "*** Begin Patch..."]` or `apply_patch <<'EOF'`. */
function patchOfCommand(command: string | string[]): string | undefined {
  if (Array.isArray(command)) {
    if (command[0] === 'apply_patch' && typeof command[1] === 'string') return command[1];
    const script = command.length === 3 && /^(ba|z)?sh$/.test(command[0] ?? '') ? command[2] : undefined;
    return script !== undefined ? patchOfCommand(script) : undefined;
  }
  return /^\s*apply_patch\b/.test(command) && command.includes('*** Begin Patch') ? command : undefined;
}

/** Whether the whole command line exited 0: Codex states the exit code in the output, Claude marks is_error. */
function lineSucceeded(call: Call, output: string): boolean {
  const m = /^(?:[^\n]*\n){0,4}?(?:Process exited with code|Exit code:?) (-?\d+)/.exec(output);
  if (m) return m[1] === '0';
  return call.status === 'ok';
}

/** A run's result: from the exit status where it speaks for the run, otherwise from the runner's summary. */
function resultOf(part: CommandPart, lineOk: boolean, output: string): RunResult {
  if (lineOk && part.passesWithLine) return 'pass';
  if (!lineOk && part.failsWithLine) return 'fail';
  const signs = OUTPUT_SIGNS[part.kind];
  if (signs && output) {
    if (signs.fail.some((r) => r.test(output))) return 'fail';
    if (signs.pass.some((r) => r.test(output))) return 'pass';
  }
  return 'unknown';
}

/** `[main 1a2b3c4] message`, `[main (root-commit) 1a2b3c4]`, `[detached HEAD 1a2b3c4]`. */
function commitShas(output: string): string[] {
  return [...output.matchAll(/^\[[^\]\n]*? ([0-9a-f]{7,40})\] /gm)].map((m) => m[1]!);
}

// ---------------------------------------------------------------------------------------------------------
// Facts as session-document events. The data holds no command text; the gateway reads them back below.

export function factsEvents(facts: SessionVerification, firstSeq: number): FactsEvent[] {
  let seq = firstSeq;
  const events: FactsEvent[] = [{ type: FACTS_EVENT.marker, seq: seq++, data: { version: 1 } }];
  for (const r of facts.runs) {
    const data: Record<string, unknown> = { kind: r.kind, result: r.result, scope: r.scope };
    if (r.tool !== undefined) data.tool = r.tool;
    if (r.target !== undefined) data.target = r.target;
    events.push({ type: FACTS_EVENT.run, seq: seq++, turnIndex: r.turnIndex, data });
  }
  for (const e of facts.edits) {
    events.push({
      type: FACTS_EVENT.edit,
      seq: seq++,
      turnIndex: e.turnIndex,
      data: e.file === undefined ? { test: e.test } : { file: e.file, test: e.test },
    });
  }
  for (const sha of facts.commits) events.push({ type: FACTS_EVENT.commit, seq: seq++, data: { sha } });
  for (const b of facts.bypasses)
    events.push({ type: FACTS_EVENT.bypass, seq: seq++, turnIndex: b.turnIndex, data: { how: b.how } });
  return events;
}

const RESULTS: readonly string[] = ['pass', 'fail', 'unknown'];
const SCOPES: readonly string[] = ['full', 'partial', 'unknown'];
const MAX_TEXT = 500;

function shortString(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0 && v.length <= MAX_TEXT;
}

/** The facts a document's events carry; events that do not fit their shape are skipped, never trusted. */
export function factsOfEvents(events: FactsDocument['events']): SessionVerification {
  const out: SessionVerification = { runs: [], edits: [], commits: [], bypasses: [] };
  const sorted = [...events].sort((a, b) => a.seq - b.seq);
  for (const e of sorted) {
    const d = e.data;
    const turnIndex = e.turnIndex;
    if (!d) continue;
    const validTurn = typeof turnIndex === 'number' && Number.isInteger(turnIndex) && turnIndex >= 0;
    if (e.type === FACTS_EVENT.run && validTurn) {
      if (
        !(RUN_KINDS as readonly unknown[]).includes(d.kind) ||
        !RESULTS.includes(d.result as string) ||
        !SCOPES.includes(d.scope as string)
      )
        continue;
      const run: CommandRun = {
        turnIndex,
        kind: d.kind as RunKind,
        result: d.result as RunResult,
        scope: d.scope as RunScope,
      };
      if (shortString(d.tool)) run.tool = d.tool;
      if (shortString(d.target)) run.target = d.target;
      out.runs.push(run);
    } else if (e.type === FACTS_EVENT.edit && validTurn && typeof d.test === 'boolean') {
      out.edits.push(shortString(d.file) ? { turnIndex, file: d.file, test: d.test } : { turnIndex, test: d.test });
    } else if (e.type === FACTS_EVENT.commit && typeof d.sha === 'string' && /^[0-9a-f]{7,40}$/.test(d.sha)) {
      if (!out.commits.includes(d.sha)) out.commits.push(d.sha);
    } else if (e.type === FACTS_EVENT.bypass && validTurn && shortString(d.how)) {
      out.bypasses.push({ turnIndex, how: d.how });
    }
  }
  return out;
}
