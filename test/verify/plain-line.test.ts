// Plain command lines are read without the grammar (src/verify/plain-line.ts). Every line that reading accepts must
// give the very simple commands the grammar gives (words, assignments, which command the line's status speaks
// for), so the facts built on them are the same. Checked over every shell command of the evaluation set and a
// generated set of lines mixing plain words with everything that must send a line to the grammar.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClaudeCodeTranscript, parseCodexRollout } from '../../src/capture/index.js';
import { plainCommands } from '../../src/verify/plain-line.js';
import { parsedCommands, simpleCommands } from '../../src/verify/shell.js';

const TRANSCRIPTS = path.join(import.meta.dirname, '../fixtures/verification/transcripts');

/** The command lines of the evaluation set's transcripts, and the scripts of `bash -lc` argv forms. */
function fixtureLines(): string[] {
  const lines: string[] = [];
  for (const name of fs.readdirSync(TRANSCRIPTS)) {
    const text = fs.readFileSync(path.join(TRANSCRIPTS, name), 'utf8');
    const doc = name.includes('.codex.')
      ? parseCodexRollout(text, { tier: 'full' })
      : parseClaudeCodeTranscript(text, { tier: 'full' });
    for (const turn of doc.turns) {
      for (const call of turn.toolCalls) {
        const input = call.input as { command?: unknown; cmd?: unknown } | undefined;
        const c = input?.command ?? input?.cmd;
        if (typeof c === 'string') lines.push(c);
        else if (Array.isArray(c) && typeof c[2] === 'string') lines.push(c[2]);
      }
    }
  }
  return lines;
}

const WORDS = (
  'npm test run lint npx vitest git commit push -n --no-verify -am msg pnpm exec jest env timeout 5 -20 tail head ' +
  'cd pkg src/a.ts a.test.ts -- -t x HUSKY=0 SKIP=lint A=1 d=e --max-warnings=0 bash -c -lc make go ./... pytest ' +
  'a::b @scope/pkg 50% a,b 1.2.3 c++ tsc --noEmit A+=1 =x x='
).split(' ');
/** Words and marks a plain reading must decline, or must agree with the grammar on. */
const ODD = [
  '"q w"',
  'a\\ b',
  ...(
    "'q' $X ${X} $(npm) `git` \\n ~/x *.ts a? [ ] [[ { } {a,b} ! #c a#b ( ) if then fi for in do done export " +
    'declare local time function case esac while unset <<EOF <<<x ^ é'
  ).split(' '),
];
/** Quoted words: read without the grammar unless an expansion, an escape or a newline is inside. */
const QUOTED = [
  '"--no-verify"',
  '-m"fix: a b"',
  '"a"b\'c d\'',
  '""',
  "''",
  '"x\'y"',
  "'x\"y'",
  '"a#b ; && | > *.ts {a,b} ~ !x"',
  "'$X `a` \\ *'",
  '"$X"',
  '"a\\"b"',
  '"`a`"',
  '"open',
  "'a\nb'",
  '"é"',
];
const OPS = ['&&', '||', '|', ';', '&', '|&', ';;', '\n', '&&\n'];
const REDIRECTS = ['2>&1', '>f', '> f', '>>log', '<in', '&>/dev/null', '2>/dev/null', '>&2', '1>&-', '2>', '>', '<&0'];

/** A deterministic pseudo-random generator, mulberry32 (the set is the same on every run). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded chooser: `pick` one of a list, `word` a plain word (70%), quoted (10%), a redirect (10%) or `odd`. */
function chooser(seed: number, odd: readonly string[]) {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const word = () => {
    const r = rnd();
    return r < 0.7 ? pick(WORDS) : r < 0.8 ? pick(QUOTED) : r < 0.9 ? pick(REDIRECTS) : pick(odd);
  };
  return { rnd, pick, word };
}

function generated(count: number): string[] {
  const { rnd, pick, word } = chooser(39, ODD);
  const lines: string[] = [];
  for (let k = 0; k < count; k++) {
    const parts: string[] = [];
    const commands = 1 + Math.floor(rnd() * 3);
    for (let c = 0; c < commands; c++) {
      if (c > 0) parts.push(pick(OPS));
      const words = 1 + Math.floor(rnd() * 5);
      for (let w = 0; w < words; w++) parts.push(word());
    }
    if (rnd() < 0.05) parts.push(pick(OPS));
    // Some lines with operators and redirects written against their words (`a&&b`, `x 2>&1|tail`).
    lines.push(parts.join(rnd() < 0.2 ? '' : ' '));
  }
  return lines;
}

/** Heredoc bodies and terminators for generated one-command lines: quoted, bare, `<<-`, and broken forms. */
const HEREDOCS = [
  "<<'EOF'\nnpm test\ngit commit --no-verify\nEOF",
  '<<"EOF"\n$(npm test)\nEOF',
  '<<EOF\nplain text; a && b\nEOF',
  '<<EOF\n$(npm test)\nEOF',
  '<<EOF\n`git push`\nEOF',
  '<<-EOF\n\tx\n\tEOF',
  "<<'EOF'\nx\nEOF\nnpm test",
  "<<'EOF'\nx\nEOFX",
  "<<'EOF'\nEOF\nEOF",
  "<<'A_1'\n'\"$\n  A_1\nA_1",
  '<< EOF\nx\nEOF',
  "<<'EOF' | tail\nx\nEOF",
];

/** One-command lines (a few words and redirects) closed by a heredoc. */
function generatedHeredocs(count: number): string[] {
  const { rnd, pick, word } = chooser(45, ['-', '--', ...ODD]);
  const lines: string[] = [];
  for (let k = 0; k < count; k++) {
    const parts: string[] = [];
    const words = 1 + Math.floor(rnd() * 4);
    for (let w = 0; w < words; w++) parts.push(word());
    if (rnd() < 0.1) parts.push(pick(OPS), pick(WORDS));
    lines.push(`${parts.join(' ')} ${pick(HEREDOCS)}`);
  }
  return lines;
}

describe('plain command lines', () => {
  const check = (lines: string[]) => {
    let plain = 0;
    for (const line of lines) {
      const fast = plainCommands(line);
      if (fast === undefined) continue;
      plain++;
      expect(fast, line).toEqual(parsedCommands(line));
      expect(simpleCommands(line), line).toEqual(fast);
    }
    return plain;
  };

  it('the evaluation set: every plain line reads as the grammar reads it', () => {
    const lines = fixtureLines();
    expect(lines.length).toBeGreaterThan(60);
    // Most of the set's lines are plain (`npm test`, `git status`): the comparison is not vacuous.
    expect(check(lines)).toBeGreaterThan(lines.length / 2);
  });

  it('generated lines: every line read as plain reads as the grammar reads it', () => {
    const lines = generated(6000);
    const plain = check(lines);
    expect(plain).toBeGreaterThan(800);
    // Quoted words are in the subset: enough of the accepted lines hold one for the comparison to speak for them.
    expect(check(lines.filter((l) => /["']/.test(l)))).toBeGreaterThan(100);
    expect(plain).toBeLessThan(lines.length);
  });

  it('generated heredocs: every one read without the grammar reads as the grammar reads it', () => {
    const lines = generatedHeredocs(1500);
    const plain = check(lines);
    expect(plain).toBeGreaterThan(150);
    expect(plain).toBeLessThan(lines.length);
  });

  it.each([
    ['npm test -- cart1 2>&1 | tail -5', true],
    ['cd packages/api && HUSKY=0 git push', true],
    ['git commit -m "why we never use --no-verify"', true],
    ["rg -n 'total' src | head -20", true],
    ['git commit -m "fix $X"', false],
    ['"npm" test', false],
    ['A="x y" npm test', false],
    ['echo a > f b', false],
    ['export HUSKY=0; git push', false],
    ['npm test\nnpm run lint', false],
    ['npm test &&', false],
    ["cat > notes.txt <<'EOF'\nnpm test\ngit commit --no-verify\nEOF", true],
    ['cat <<EOF\n$(npm test)\nEOF', false],
  ])('%j is plain: %s', (line, plain) => {
    expect(plainCommands(line) !== undefined).toBe(plain);
  });
});
