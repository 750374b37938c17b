// One line on each collapsed tool call, so a transcript can be scanned without opening every call (issue 45 §3):
// the command of a shell call, the file of an edit or a read, the pattern of a search, the URL of a fetch. It
// shows only what the capture tier kept: at `full` the call's input, at `redacted` the file where the
// document names one, at `metrics` nothing. Formatting of what the API returned, no second computation.
import type { ToolCall } from './query';

/** Where a call's one-line summary comes from in its input, by tool name (Claude Code, Codex, Gemini names). */
const SHELL = new Set([
  'bash',
  'shell',
  'local_shell',
  'exec_command',
  'container.exec',
  'run_shell_command',
  'powershell',
]);
const SEARCH = new Set(['grep', 'glob', 'search', 'search_files', 'find', 'websearch', 'web_search', 'toolsearch']);
const FETCH = new Set(['webfetch', 'web_fetch', 'fetch']);

/** The longest summary kept; the rest of a long line is cut with an ellipsis (CSS cuts it again to the width). */
export const SUMMARY_MAX_CHARS = 200;

type Input = Record<string, unknown>;

function text(v: unknown): string | undefined {
  if (typeof v === 'string' && v.trim() !== '') return v;
  if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) return commandOf(v as string[]);
  return undefined;
}

/** A command given as argv: the script of `bash -lc "<script>"` is what ran; the rest joined by spaces. */
function commandOf(argv: string[]): string {
  const shell = /^(?:\/[\w/]*\/)?(?:ba|z|da)?sh$/.test(argv[0] ?? '') && (argv[1] === '-c' || argv[1] === '-lc');
  return shell && argv[2] !== undefined ? argv[2] : argv.join(' ');
}

/** The first non-empty line, whitespace runs as one space, cut; an ellipsis says more followed. */
export function oneLine(value: string): string {
  const lines = value.split(/\r?\n/).map((l) => l.replace(/\s+/g, ' ').trim());
  const first = lines.find((l) => l !== '') ?? '';
  const more = lines.filter((l) => l !== '').length > 1;
  const chars = [...first];
  if (chars.length > SUMMARY_MAX_CHARS) return `${chars.slice(0, SUMMARY_MAX_CHARS - 1).join('')}…`;
  return more ? `${first} …` : first;
}

function fromInput(name: string, input: Input): string | undefined {
  const n = name.toLowerCase();
  const action = typeof input.action === 'object' && input.action !== null ? (input.action as Input) : undefined;
  if (SHELL.has(n)) return text(input.command) ?? text(input.cmd) ?? (action ? text(action.command) : undefined);
  if (FETCH.has(n)) return text(input.url);
  if (SEARCH.has(n)) {
    const pattern = text(input.pattern) ?? text(input.query) ?? text(input.regex);
    const where = text(input.path) ?? text(input.glob);
    return pattern && where ? `${pattern} in ${where}` : pattern;
  }
  return (
    text(input.file_path) ??
    text(input.notebook_path) ??
    text(input.path) ??
    text(input.url) ??
    text(input.command) ??
    text(input.pattern) ??
    text(input.query) ??
    text(input.description)
  );
}

/** The call's one-line summary, or null when its tier kept nothing to say. */
export function toolSummary(call: ToolCall): string | null {
  const n = call.name.toLowerCase();
  let raw: string | undefined;
  if (typeof call.input === 'object' && call.input !== null && !Array.isArray(call.input))
    raw = fromInput(call.name, call.input as Input);
  // apply_patch and other custom tools carry raw text: its file (the document's `file`) says more than its first line.
  else if (typeof call.input === 'string' && (SHELL.has(n) || !call.file)) raw = text(call.input);
  raw ??= call.file;
  if (raw === undefined) return null;
  const line = oneLine(raw);
  return line === '' ? null : line;
}

export function ToolSummary({ call }: { call: ToolCall }) {
  const summary = toolSummary(call);
  if (summary === null) return null;
  return (
    <code className="tool-summary" data-testid="tool-summary" title={summary}>
      {summary}
    </code>
  );
}
