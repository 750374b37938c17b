// Lines at most 120 characters in the TypeScript sources (Biome formats to 120 but cannot break strings and
// comments, so a long one is shortened by hand). The generated API types and the vendored fixtures are skipped.
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

/** What breaks the rule: every long line, as `file:line (width)`. */
function violations(root: string): string[] {
  return [...longLines(root).values()].flat();
}

describe('line length', () => {
  it('no source line is over 120 characters', () => {
    expect(violations(path.resolve(import.meta.dirname, '..'))).toEqual([]);
  });

  it('finds a long line and skips the generated types and fixtures', () => {
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
    expect(violations(root)).toEqual(['src/a.ts:2 (133)']);
  });
});
