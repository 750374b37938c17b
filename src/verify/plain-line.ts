// Most command lines an agent runs are plain: words, quoted text without expansions, `&&`, `||`, `|`, `;`, a
// redirect at the end, or one command fed a literal heredoc (`cd pkg && npm test 2>&1 | tail -5`,
// `git commit -m "fix: total"`, `cat > notes.txt <<'EOF'`...). For such a line the shell's reading is fixed by its
// operators and quotes alone, and parsing it with the grammar costs more than the rest of the facts together. This
// reads only that subset and answers `undefined` for anything outside it: expansions and substitutions (also inside
// double quotes), escapes, globs and braces outside quotes, other heredocs, keywords, comments, other newlines.
// Those lines go to the grammar (shell.ts). A test compares the two readings over the fixture corpus and generated
// lines.
import type { SimpleCommand } from './shell.js';

/** Characters of a word that no shell expands, quotes, groups or splits, by char code (read once per character). */
const WORD_CHARS = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./:,@%+=')
  WORD_CHARS[c.charCodeAt(0)] = 1;
function isWordChar(line: string, i: number): boolean {
  return WORD_CHARS[line.charCodeAt(i)] === 1;
}
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=([^=]+)$/;
/** A command's name: the grammar reads `50%`, `x@y` or `a::b` there as something else than one word. */
const NAME = /^[A-Za-z0-9_\-./+]+$/;
/** Words that start something other than a simple command where a command's name stands. */
const RESERVED = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'for',
  'while',
  'until',
  'do',
  'done',
  'case',
  'esac',
  'in',
  'function',
  'select',
  'time',
  'coproc',
  'export',
  'declare',
  'local',
  'readonly',
  'typeset',
  'unset',
  'unsetenv',
]);

/** A word with `quoted` when any part of it was in quotes (such a word never names a command or assigns). */
type Token = { op: '&&' | '||' | '|' | ';' | '&' } | { word: string; quoted: boolean } | { redirect: true };

/**
 * Past the quoted text opening at `i` (`'...'`, or `"..."` with nothing the shell expands or escapes inside),
 * or undefined. Text spanning lines is left to the grammar.
 */
function quoteEnd(line: string, i: number): number | undefined {
  const q = line[i]!;
  for (let j = i + 1; j < line.length; j++) {
    const ch = line[j]!;
    if (ch === q) return j + 1;
    if (ch === '\n' || (q === '"' && (ch === '$' || ch === '`' || ch === '\\'))) return undefined;
  }
  return undefined;
}

function isDigits(s: string): boolean {
  return s.length > 0 && /^[0-9]+$/.test(s);
}

/** The tokens of a plain line, or undefined at the first character outside the subset. */
function tokens(line: string): Token[] | undefined {
  const out: Token[] = [];
  let i = 0;
  const n = line.length;
  while (i < n) {
    const ch = line[i]!;
    if (ch === ' ' || ch === '\t') {
      i++;
      continue;
    }
    if (isWordChar(line, i) || ch === '"' || ch === "'") {
      // A word: runs of plain characters and quoted parts, joined with their quotes removed.
      let word = '';
      let quoted = false;
      while (i < n) {
        if (isWordChar(line, i)) {
          const start = i;
          while (i < n && isWordChar(line, i)) i++;
          word += line.slice(start, i);
        } else if (line[i] === '"' || line[i] === "'") {
          const end = quoteEnd(line, i);
          if (end === undefined) return undefined;
          word += line.slice(i + 1, end - 1);
          quoted = true;
          i = end;
        } else break;
      }
      if (line[i] === '>' || line[i] === '<') {
        // `2>&1`: a descriptor. Any other word run into a redirect is left to the grammar.
        if (quoted || !isDigits(word)) return undefined;
        const r = redirect(line, i);
        if (r === undefined) return undefined;
        out.push({ redirect: true });
        i = r;
        continue;
      }
      out.push({ word, quoted });
      continue;
    }
    if (ch === '&' && line[i + 1] === '&') {
      out.push({ op: '&&' });
      i += 2;
    } else if (ch === '|' && line[i + 1] === '|') {
      out.push({ op: '||' });
      i += 2;
    } else if (ch === '|') {
      if (line[i + 1] === '&') return undefined;
      out.push({ op: '|' });
      i += 1;
    } else if (ch === ';') {
      if (line[i + 1] === ';' || line[i + 1] === '&') return undefined;
      out.push({ op: ';' });
      i += 1;
    } else if (ch === '>' || ch === '<' || (ch === '&' && line[i + 1] === '>')) {
      const r = redirect(line, i);
      if (r === undefined) return undefined;
      out.push({ redirect: true });
      i = r;
    } else if (ch === '&') {
      out.push({ op: '&' });
      i += 1;
    } else return undefined;
  }
  return out;
}

/** Past a redirect starting at `i` (after its descriptor): `>`, `>>`, `<`, `&>`, `&>>` to a plain word, `>&1`. */
function redirect(line: string, i: number): number | undefined {
  let j = i;
  let dup = false;
  if (line[j] === '&') j += 1;
  if (line[j] === '>') {
    j += 1;
    if (line[j] === '>') j += 1;
    else if (line[j] === '&' && line[i] !== '&') {
      j += 1;
      dup = true;
    }
  } else if (line[j] === '<') {
    j += 1;
    if (line[j] === '&') {
      j += 1;
      dup = true;
    }
  } else return undefined;
  if (line[j] === '<' || line[j] === '>' || line[j] === '|' || line[j] === '(') return undefined;
  while (line[j] === ' ' || line[j] === '\t') j++;
  const start = j;
  while (j < line.length && isWordChar(line, j)) j++;
  const target = line.slice(start, j);
  if (target === '' || target.includes('=')) return undefined;
  if (dup && !isDigits(target) && target !== '-') return undefined;
  if (j < line.length && !/[ \t;&|]/.test(line[j]!)) return undefined;
  return j;
}

/** `<<'EOF'`, `<<"EOF"`, `<<EOF` or `<<-EOF` closing a line's first line: the operator, the dash, the delimiter. */
const HEREDOC_OPENER =
  /<<(-?)(?:'([A-Za-z_][A-Za-z0-9_]*)'|"([A-Za-z_][A-Za-z0-9_]*)"|([A-Za-z_][A-Za-z0-9_]*))[ \t]*$/;

/**
 * The tokens of one plain command whose input is a heredoc (`cat > notes.txt <<'EOF'` then the body then `EOF`),
 * or undefined. Only the simplest form: one command on the first line, the heredoc its last word, the
 * terminator the last line. The body is data, never commands, when the delimiter is quoted; an unquoted one's
 * body may expand (`$(npm test)`), so it must hold no `$`, backquote or backslash.
 */
function heredocTokens(line: string): Token[] | undefined {
  const firstEnd = line.indexOf('\n');
  const first = line.slice(0, firstEnd);
  const m = HEREDOC_OPENER.exec(first);
  if (!m) return undefined;
  const delimiter = m[2] ?? m[3] ?? m[4]!;
  const lines = line.slice(firstEnd + 1).split('\n');
  const last = lines.pop();
  const strip = (l: string) => (m[1] === '-' ? l.replace(/^\t+/, '') : l);
  if (last === undefined || strip(last) !== delimiter) return undefined;
  // The body ends at the first line that is the delimiter: one earlier means more follows the heredoc. The grammar
  // also ends it at an indented one, where bash reads on: such bodies are left to it.
  if (lines.some((l) => l.trim() === delimiter)) return undefined;
  if (m[4] !== undefined && lines.some((l) => /[$`\\]/.test(l))) return undefined;
  const toks = tokens(first.slice(0, m.index));
  if (toks === undefined || toks.length === 0 || toks.some((t) => 'op' in t)) return undefined;
  // The grammar drops a lone `-` right before the heredoc (`git commit -F - <<'EOF'`): left to it, so the two agree.
  const before = toks.at(-1)!;
  if ('word' in before && before.word === '-') return undefined;
  toks.push({ redirect: true });
  return toks;
}

/**
 * The simple commands of a plain line, as the grammar's reading gives them; undefined when the line is not
 * plain (it must then be parsed).
 */
export function plainCommands(line: string): SimpleCommand[] | undefined {
  const toks = line.includes('\n') ? heredocTokens(line) : tokens(line);
  if (toks === undefined || toks.length === 0) return undefined;
  // Statements joined by `;` or `&`, each an and-or list of pipelines of simple commands.
  const statements: Token[][][][] = [];
  let statement: Token[][][] = [];
  let pipeline: Token[][] = [];
  let command: Token[] = [];
  const ops: string[][] = [];
  let listOps: string[] = [];
  for (const t of toks) {
    if ('op' in t) {
      if (command.length === 0) return undefined; // an operator with nothing before it
      pipeline.push(command);
      command = [];
      if (t.op === '|') continue;
      statement.push(pipeline);
      pipeline = [];
      if (t.op === '&&' || t.op === '||') {
        listOps.push(t.op);
        continue;
      }
      statements.push(statement);
      ops.push(listOps);
      statement = [];
      listOps = [];
    } else command.push(t);
  }
  if (command.length > 0) {
    pipeline.push(command);
    statement.push(pipeline);
    statements.push(statement);
    ops.push(listOps);
  } else if (pipeline.length > 0 || statement.length > 0) return undefined; // a line ending in `&&`, `||` or `|`
  const out: SimpleCommand[] = [];
  for (const [s, items] of statements.entries()) {
    const last = s === statements.length - 1;
    const allAnd = ops[s]!.every((o) => o === '&&');
    const single = items.length === 1;
    for (const [k, parts] of items.entries()) {
      const pass = last && (single || allAnd);
      const fail = last && (single || (allAnd && k === items.length - 1));
      for (const [p, words] of parts.entries()) {
        // `a && b 2>&1 | c`, `a || b >f && c`: the grammar makes the list before a redirect one statement, which
        // it then pipes or joins; such lines are left to it.
        const inside = p < parts.length - 1 || k < items.length - 1;
        if (k > 0 && inside && words.some((t) => 'redirect' in t)) return undefined;
        const c = simple(words, p === parts.length - 1 && pass, p === parts.length - 1 && fail);
        if (c === undefined) return undefined;
        out.push(c);
      }
    }
  }
  return out;
}

function simple(toks: Token[], pass: boolean, fail: boolean): SimpleCommand | undefined {
  const env: Record<string, string> = {};
  const argv: string[] = [];
  let redirected = false;
  for (const t of toks) {
    if ('redirect' in t) {
      if (argv.length === 0) return undefined; // `>out cmd`, `2>&1 A=1`: left to the grammar
      redirected = true;
      continue;
    }
    if (!('word' in t) || redirected) return undefined; // a word after a redirect: left to the grammar
    if (argv.length === 0) {
      if (t.quoted) return undefined; // `"npm" test`, `A="x y" cmd`: left to the grammar
      const a = ASSIGNMENT.exec(t.word);
      if (a) {
        env[a[1]!] = a[2]!;
        continue;
      }
      if (!NAME.test(t.word) || RESERVED.has(t.word)) return undefined;
    }
    argv.push(t.word);
  }
  if (argv.length === 0) return undefined;
  return { argv, env, passesWithLine: pass, failsWithLine: fail, exported: {} };
}
