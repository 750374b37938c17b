// Reading a command line as a shell does, with tree-sitter's bash grammar: the simple commands it runs, their
// words with quotes removed, and which of them the line's exit status speaks for. Heredoc bodies and quoted
// text stay words of the command they belong to; they are never commands themselves.
import { createRequire } from 'node:module';
import { Language, Parser, type Node } from 'web-tree-sitter';

// The wasm runtime and the grammar load once per process, before the first parse; the top-level await keeps
// every function of this module synchronous for its callers.
const require = createRequire(import.meta.url);
await Parser.init();
const parser = new Parser();
parser.setLanguage(await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')));

/** One simple command the line runs. */
export interface SimpleCommand {
  /** The words, quotes removed; expansions kept as written (`$HOME`). */
  argv: string[];
  /** `NAME=value` assignments written before the command. */
  env: Record<string, string>;
  /** When the whole line exits 0, this command provably exited 0 (every join after it is `&&`, no pipe hides it). */
  passesWithLine: boolean;
  /** When the whole line fails, this command is the one whose status the line returned. */
  failsWithLine: boolean;
  /** Variables `export`ed earlier on the same line, which this command inherits. */
  exported: Record<string, string>;
}

interface Flags {
  pass: boolean;
  fail: boolean;
}

const NO = { pass: false, fail: false } as const;

/** The simple commands of a command line, in the order they appear. */
export function simpleCommands(line: string): SimpleCommand[] {
  const tree = parser.parse(line);
  if (!tree) return [];
  try {
    const out: SimpleCommand[] = [];
    const exported: Record<string, string> = {};
    sequence(tree.rootNode, { pass: true, fail: true }, out, exported);
    return out;
  } finally {
    tree.delete();
  }
}

/** A node holding statements one after another (`;`, newlines, `&`): only the last can decide the line's status. */
function sequence(node: Node, flags: Flags, out: SimpleCommand[], exported: Record<string, string>): void {
  const statements = node.namedChildren.filter((c): c is Node => c !== null && isStatement(c.type));
  statements.forEach((s, i) => {
    const last = i === statements.length - 1;
    statement(s, { pass: flags.pass && last, fail: flags.fail && last }, out, exported);
  });
}

const STATEMENTS = new Set([
  'command',
  'list',
  'pipeline',
  'redirected_statement',
  'subshell',
  'compound_statement',
  'negated_command',
  'if_statement',
  'while_statement',
  'for_statement',
  'c_style_for_statement',
  'case_statement',
  'declaration_command',
  'variable_assignment',
  'variable_assignments',
  'function_definition',
  'test_command',
]);

function isStatement(type: string): boolean {
  return STATEMENTS.has(type);
}

function statement(node: Node, flags: Flags, out: SimpleCommand[], exported: Record<string, string>): void {
  switch (node.type) {
    case 'command':
      command(node, flags, out, exported);
      return;
    case 'redirected_statement': {
      const body = node.childForFieldName('body');
      if (body) statement(body, flags, out, exported);
      // A here-string or redirect target may hold a command substitution; heredoc bodies are data.
      for (const r of node.namedChildren)
        if (r && r !== body && r.type !== 'heredoc_redirect') substitutions(r, out, exported);
      return;
    }
    case 'list':
      andOr(node, flags, out, exported);
      return;
    case 'pipeline': {
      const parts = node.namedChildren.filter((c): c is Node => c !== null && isStatement(c.type));
      for (const [i, p] of parts.entries()) statement(p, i === parts.length - 1 ? flags : NO, out, exported);
      return;
    }
    case 'subshell':
    case 'compound_statement':
      sequence(node, flags, out, exported);
      return;
    case 'declaration_command':
      // `export HUSKY=0` reaches every later command of the line.
      if (node.child(0)?.type === 'export') {
        for (const a of node.namedChildren) {
          if (a?.type !== 'variable_assignment') continue;
          const name = a.childForFieldName('name')?.text;
          const value = a.childForFieldName('value');
          if (name) exported[name] = value ? wordText(value) : '';
        }
      }
      substitutions(node, out, exported);
      return;
    default:
      // Conditions, loops, negations, functions: the commands run, but the line's status says nothing of them.
      for (const c of node.namedChildren) {
        if (!c) continue;
        if (isStatement(c.type)) statement(c, NO, out, exported);
        else substitutions(c, out, exported);
      }
  }
}

/** `a && b || c`: left-nested binary lists. Status follows only through an unbroken chain of `&&`. */
function andOr(node: Node, flags: Flags, out: SimpleCommand[], exported: Record<string, string>): void {
  const items: Node[] = [];
  const ops: string[] = [];
  const flatten = (n: Node): void => {
    if (n.type !== 'list') {
      items.push(n);
      return;
    }
    for (const c of n.children) {
      if (!c) continue;
      if (c.type === '&&' || c.type === '||') ops.push(c.type);
      else if (c.isNamed && isStatement(c.type)) flatten(c);
    }
  };
  flatten(node);
  const allAnd = ops.every((o) => o === '&&');
  items.forEach((item, i) => {
    const last = i === items.length - 1;
    statement(item, { pass: flags.pass && allAnd, fail: flags.fail && allAnd && last }, out, exported);
  });
}

function command(node: Node, flags: Flags, out: SimpleCommand[], exported: Record<string, string>): void {
  const env: Record<string, string> = {};
  const argv: string[] = [];
  for (const c of node.namedChildren) {
    if (!c) continue;
    if (c.type === 'variable_assignment') {
      const name = c.childForFieldName('name')?.text;
      const value = c.childForFieldName('value');
      if (name) env[name] = value ? wordText(value) : '';
      if (value) substitutions(value, out, exported);
    } else if (c.type === 'command_name') {
      const w = c.namedChildren[0];
      if (w) argv.push(wordText(w));
      substitutions(c, out, exported);
    } else if (c.type === 'file_redirect' || c.type === 'herestring_redirect' || c.type === 'heredoc_redirect') {
      if (c.type !== 'heredoc_redirect') substitutions(c, out, exported);
    } else if (argv.length > 0) {
      argv.push(wordText(c));
      substitutions(c, out, exported);
    }
  }
  if (argv.length === 0) return;
  out.push({ argv, env, passesWithLine: flags.pass, failsWithLine: flags.fail, exported: { ...exported } });
}

/** Commands inside `$(...)` and backticks run too, though the line's status never speaks for them. */
function substitutions(node: Node, out: SimpleCommand[], exported: Record<string, string>): void {
  if (node.type === 'command_substitution' || node.type === 'process_substitution') {
    sequence(node, NO, out, exported);
    return;
  }
  if (node.type === 'heredoc_body' || node.type === 'heredoc_redirect') return;
  if (node.childCount === 0) return;
  for (const c of node.namedChildren) if (c) substitutions(c, out, exported);
}

/** A word's value as the command receives it, for the parts that can be known without running anything. */
function wordText(node: Node): string {
  switch (node.type) {
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'ansi_c_string':
      return node.text.slice(2, -1);
    case 'string': {
      const t = node.text;
      return t.startsWith('"') && t.endsWith('"') && t.length >= 2 ? t.slice(1, -1) : t;
    }
    case 'translated_string':
      return node.text.slice(2, -1);
    case 'concatenation':
      return node.namedChildren.map((c) => (c ? wordText(c) : '')).join('');
    case 'word':
      return node.text.replace(/\\(.)/g, '$1');
    default:
      return node.text;
  }
}

/** A string that must be read as a shell script of its own (`bash -c '...'`, Codex's `["bash","-lc","..."]`). */
export function nestedScript(script: string, outer: SimpleCommand): SimpleCommand[] {
  return simpleCommands(script).map((c) => ({
    ...c,
    env: { ...outer.exported, ...outer.env, ...c.env },
    passesWithLine: c.passesWithLine && outer.passesWithLine,
    failsWithLine: c.failsWithLine && outer.failsWithLine,
  }));
}
