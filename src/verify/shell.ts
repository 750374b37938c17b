// Reading a command line as a shell does, with tree-sitter's bash grammar: the simple commands it runs, their
// words with quotes removed, and which of them the line's exit status speaks for. Heredoc bodies and quoted
// text stay words of the command they belong to; they are never commands themselves.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Language, Parser, type TreeCursor } from 'web-tree-sitter';
import { plainCommands } from './plain-line.js';

// The wasm runtime and the grammar load once per process, before the first parse; the top-level await keeps
// every function of this module synchronous for its callers.
const require = createRequire(import.meta.url);
await Parser.init();
const parser = new Parser();
// The light CLI package (scripts/cli-package.ts) ships the grammar beside its bundle, without the package.
const beside = fileURLToPath(new URL('tree-sitter-bash.wasm', import.meta.url));
const bash = await Language.load(
  fs.existsSync(beside) ? beside : require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'),
);
parser.setLanguage(bash);

/**
 * A node of the syntax tree as plain data. Every call into the wasm tree costs far more than reading a JS
 * field, so the tree is copied out once, through one cursor, and read from here; text is sliced from the line.
 */
interface Node {
  type: string;
  isNamed: boolean;
  start: number;
  end: number;
  /** The parsed line, which the node's text is a slice of. */
  line: string;
  /** The field this node fills in its parent, only where it is read (assignments, redirected statements). */
  field: string | undefined;
  children: Node[];
}

const NO_CHILDREN: Node[] = [];
/** Whether each node type is named, by the type's id, asked of the grammar once per id. */
const namedById: (boolean | undefined)[] = [];
/** Parents whose children's fields are read. */
const FIELDED = new Set(['variable_assignment', 'redirected_statement']);
/** Node types whose children are read for what they are, not only searched for command substitutions. */
// A heredoc's redirect holds what follows its marker on the same line (`cat <<EOF && npm test`).
const STRUCTURAL = new Set(['command_name', 'variable_assignment', 'concatenation', 'heredoc_redirect']);
/** Heredoc bodies are data: nothing below them is ever read. */
const OPAQUE = new Set(['heredoc_body']);
/** Every command or process substitution starts with one of these tokens. */
const SUBSTITUTION_START = /\$\(|`|<\(|>\(/;

/** Whether the line being copied has a substitution anywhere: most have none, and then no node is searched. */
let lineHasSubstitution = false;

function copyTree(cursor: TreeCursor, line: string, parentType: string | undefined): Node {
  const id = cursor.nodeTypeId;
  let named = namedById[id];
  if (named === undefined) {
    named = bash.nodeTypeIsNamed(id) || id === 0xffff; // 0xffff: ERROR, named though outside the table
    namedById[id] = named;
  }
  const type = bash.types[id] || 'ERROR';
  const start = cursor.startIndex;
  const end = cursor.endIndex;
  const node: Node = {
    type,
    isNamed: named,
    start,
    end,
    line,
    field: parentType !== undefined && FIELDED.has(parentType) ? (cursor.currentFieldName ?? undefined) : undefined,
    children: NO_CHILDREN,
  };
  // Below a word or redirect, only command substitutions are ever looked for: skip subtrees that cannot hold one.
  // The root's statements are read whatever its type (a line that does not parse has an ERROR root).
  const descend =
    parentType === undefined ||
    (!OPAQUE.has(type) &&
      (STATEMENTS.has(type) ||
        STRUCTURAL.has(type) ||
        (lineHasSubstitution && SUBSTITUTION_START.test(line.slice(start, end)))));
  if (descend && cursor.gotoFirstChild()) {
    const children: Node[] = [];
    do children.push(copyTree(cursor, line, type));
    while (cursor.gotoNextSibling());
    cursor.gotoParent();
    node.children = children;
  }
  return node;
}

function namedChildren(node: Node): Node[] {
  return node.children.filter((c) => c.isNamed);
}

function childForFieldName(node: Node, field: string): Node | undefined {
  return node.children.find((c) => c.field === field);
}

function textOf(node: Node): string {
  return node.line.slice(node.start, node.end);
}

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
  return plainCommands(line) ?? parsedCommands(line);
}

/** The simple commands of a line as the grammar reads it (any line; `plainCommands` agrees on the plain ones). */
export function parsedCommands(line: string): SimpleCommand[] {
  const tree = parser.parse(line);
  if (!tree) return [];
  let root: Node;
  const cursor = tree.walk();
  lineHasSubstitution = SUBSTITUTION_START.test(line);
  try {
    root = copyTree(cursor, line, undefined);
  } finally {
    cursor.delete();
    tree.delete();
  }
  const out: SimpleCommand[] = [];
  const exported: Record<string, string> = {};
  sequence(root, { pass: true, fail: true }, out, exported);
  return out;
}

/** A node holding statements one after another (`;`, newlines, `&`): only the last can decide the line's status. */
function sequence(node: Node, flags: Flags, out: SimpleCommand[], exported: Record<string, string>): void {
  const statements = namedChildren(node).filter((c) => isStatement(c.type));
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
  // The bodies of loops and branches: their commands run, though the line's status says nothing of them.
  'do_group',
  'else_clause',
  'elif_clause',
  'case_item',
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
      const body = childForFieldName(node, 'body');
      const joined = body && heredocContinuation(node, body);
      if (joined) statement(joined, flags, out, exported);
      else if (body) statement(body, flags, out, exported);
      // A here-string or redirect target may hold a command substitution; heredoc bodies are data. The body is
      // searched again with them (its substitutions are listed twice), as the evaluated classification reads it.
      for (const r of namedChildren(node)) if (r.type !== 'heredoc_redirect') substitutions(r, out, exported);
      return;
    }
    case 'list':
      andOr(node, flags, out, exported);
      return;
    case 'pipeline': {
      const parts = namedChildren(node).filter((c) => isStatement(c.type));
      for (const [i, p] of parts.entries()) statement(p, i === parts.length - 1 ? flags : NO, out, exported);
      return;
    }
    case 'subshell':
    case 'compound_statement':
      sequence(node, flags, out, exported);
      return;
    case 'declaration_command':
      // `export HUSKY=0` reaches every later command of the line.
      if (node.children[0]?.type === 'export') {
        for (const a of namedChildren(node)) {
          if (a.type !== 'variable_assignment') continue;
          const nameNode = childForFieldName(a, 'name');
          const name = nameNode && textOf(nameNode);
          const value = childForFieldName(a, 'value');
          if (name) exported[name] = value ? wordText(value) : '';
        }
      }
      substitutions(node, out, exported);
      return;
    default:
      // Conditions, loops, negations, functions: the commands run, but the line's status says nothing of them.
      for (const c of namedChildren(node)) {
        if (isStatement(c.type)) statement(c, NO, out, exported);
        else substitutions(c, out, exported);
      }
  }
}

/**
 * `cat <<EOF && npm test`: the grammar puts what follows the heredoc's marker inside its redirect. Read as the
 * line reads: the statement joined to it by `&&`, `||` or `|` (never the heredoc's body, which is data).
 */
function heredocContinuation(node: Node, body: Node): Node | undefined {
  const heredoc = node.children.find((c) => c.type === 'heredoc_redirect');
  if (!heredoc) return undefined;
  const next = heredoc.children.find((c) => c.isNamed && isStatement(c.type));
  if (!next) return undefined;
  const join = (type: string, children: Node[]): Node => ({ ...node, type, field: undefined, children });
  if (next.type === 'pipeline' && !heredoc.children.some((c) => c.type === '&&' || c.type === '||')) {
    return join('pipeline', [body, ...next.children]);
  }
  const op = heredoc.children.find((c) => c.type === '&&' || c.type === '||' || c.type === '|');
  if (op?.type === '|') return join('pipeline', [body, next]);
  return join('list', [body, op ?? { ...next, type: '&&', isNamed: false, children: NO_CHILDREN }, next]);
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
  for (const c of namedChildren(node)) {
    if (c.type === 'variable_assignment') {
      const nameNode = childForFieldName(c, 'name');
      const name = nameNode && textOf(nameNode);
      const value = childForFieldName(c, 'value');
      if (name) env[name] = value ? wordText(value) : '';
      if (value) substitutions(value, out, exported);
    } else if (c.type === 'command_name') {
      const w = namedChildren(c)[0];
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
  for (const c of namedChildren(node)) substitutions(c, out, exported);
}

/** A word's value as the command receives it, for the parts that can be known without running anything. */
function wordText(node: Node): string {
  switch (node.type) {
    case 'raw_string':
      return textOf(node).slice(1, -1);
    case 'ansi_c_string':
      return textOf(node).slice(2, -1);
    case 'string': {
      const t = textOf(node);
      return t.startsWith('"') && t.endsWith('"') && t.length >= 2 ? t.slice(1, -1) : t;
    }
    case 'translated_string':
      return textOf(node).slice(2, -1);
    case 'concatenation':
      return namedChildren(node).map(wordText).join('');
    case 'word':
      return textOf(node).replace(/\\(.)/g, '$1');
    default:
      return textOf(node);
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
