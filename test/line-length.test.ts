// Lines at most 120 characters in the TypeScript sources (Biome formats to 120 but cannot break strings and
// comments). The generated API types and the vendored fixtures are skipped. Lines a human still has to shorten
// (a test title with a long call around it, SQL in a tagged template) are waived per file in
// line-length-waivers.json; the waiver only shrinks: a file over its count fails, and so does one under it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testTempDir } from './helpers/tmp.js';

const MAX = 120;
const DIRS = ['src', 'web/src', 'test', 'bench'];
const SKIP = new Set(['web/src/api/schema.d.ts', 'src/client/openapi.d.ts']);

function sourceFiles(root: string, dir: string): string[] {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  return fs.readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return rel === 'test/fixtures' || e.name === 'node_modules' ? [] : sourceFiles(root, rel);
    return /\.tsx?$/.test(e.name) && !SKIP.has(rel) ? [rel] : [];
  });
}

/** Every line over MAX characters (code points) under `root`, as `file:line (width)`, grouped by file. */
function longLines(root: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of DIRS.flatMap((d) => sourceFiles(root, d))) {
    const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
    const long = lines.flatMap((l, i) => ([...l].length > MAX ? [`${file}:${i + 1} (${[...l].length})`] : []));
    if (long.length) out.set(file, long);
  }
  return out;
}

/** What breaks the rule: files over their waiver (with their lines), and waivers larger than their file needs. */
function violations(root: string, waived: Record<string, number>): string[] {
  const found = longLines(root);
  const out: string[] = [];
  for (const [file, lines] of found) {
    if (lines.length > (waived[file] ?? 0)) out.push(...lines);
  }
  for (const [file, n] of Object.entries(waived)) {
    const has = found.get(file)?.length ?? 0;
    if (has < n) out.push(`${file}: waiver of ${n} but only ${has} long line(s); lower it`);
  }
  return out;
}

describe('line length', () => {
  it('no source line is over 120 characters beyond the waived ones', () => {
    const root = path.resolve(import.meta.dirname, '..');
    const waivers: Record<string, number> = JSON.parse(
      fs.readFileSync(path.join(root, 'test/line-length-waivers.json'), 'utf8'),
    );
    expect(violations(root, waivers)).toEqual([]);
  });

  it('finds a long line, skips the generated types and fixtures, and holds a waiver to its count', () => {
    const root = testTempDir('line-length-');
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    };
    const long = `const s = '${'x'.repeat(120)}';\n`; // 133 characters
    write('src/a.ts', `ok;\n${long}`);
    write('src/client/openapi.d.ts', long);
    write('test/fixtures/f.ts', long);
    write('web/src/b.tsx', `${'é'.repeat(120)}\n`); // 120 characters in 240 bytes: within the limit
    expect(violations(root, {})).toEqual(['src/a.ts:2 (133)']);
    expect(violations(root, { 'src/a.ts': 1 })).toEqual([]);
    expect(violations(root, { 'src/a.ts': 2 })).toEqual(['src/a.ts: waiver of 2 but only 1 long line(s); lower it']);
  });
});
