// The dependency rule: arrows only point down. The plumbing (src/server, src/db with its migrations,
// src/blobs, src/data-dir.ts) never imports an area, a job or the composition root (src/app.ts), and the
// stores below it (src/db, src/blobs) never import the server; an area never imports a job, the composition
// root or the CLI. Imports are read with the TypeScript compiler's own
// pre-processor (static, dynamic and type-only imports, and re-exports), so a new upward arrow fails here.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { testTempDir } from './helpers/tmp.js';

const RULES: readonly { layer: string; from: readonly string[]; mayNotImport: readonly string[] }[] = [
  {
    layer: 'plumbing',
    from: ['src/server/', 'src/db/', 'src/blobs/', 'src/data-dir.ts'],
    mayNotImport: ['src/areas/', 'src/jobs/', 'src/app.ts', 'src/cli/'],
  },
  { layer: 'storage', from: ['src/db/', 'src/blobs/', 'src/data-dir.ts'], mayNotImport: ['src/server/'] },
  { layer: 'areas', from: ['src/areas/'], mayNotImport: ['src/jobs/', 'src/app.ts', 'src/cli/'] },
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Every import of a file in `root`/src that breaks a rule, as `importer -> imported` (paths from `root`). */
function upwardImports(root: string): string[] {
  const out: string[] = [];
  for (const file of sourceFiles(path.join(root, 'src'))) {
    const importer = path.relative(root, file).split(path.sep).join('/');
    const rules = RULES.filter((r) => r.from.some((f) => importer.startsWith(f)));
    if (rules.length === 0) continue;
    for (const { fileName } of ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue; // a package
      const target = path
        .relative(root, path.resolve(path.dirname(file), fileName))
        .split(path.sep)
        .join('/');
      const imported = target.replace(/\.js$/, '.ts');
      for (const rule of rules) {
        if (rule.mayNotImport.some((m) => imported === m || imported.startsWith(m)))
          out.push(`${importer} -> ${imported} (${rule.layer})`);
      }
    }
  }
  return out;
}

describe('the dependency rule', () => {
  it('holds for the source tree: no file of a lower layer imports a higher one', () => {
    expect(upwardImports(path.resolve(import.meta.dirname, '..'))).toEqual([]);
  });

  it('catches an upward import of every kind (static, type-only, dynamic, re-export) in a tree that has them', () => {
    const root = testTempDir('architecture-');
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    };
    write('src/areas/orgs/audit.ts', 'export const recordAudit = 1;\n');
    write(
      'src/server/guard.ts',
      "import { recordAudit } from '../areas/orgs/audit.js';\nimport { ok } from './ok.js';\n",
    );
    write('src/server/ok.ts', "export const ok = 1;\nexport type { Db } from '../db/connection.js';\n");
    write('src/db/migrations/0011_x.ts', "import type { X } from '../../areas/prs/refs.js';\n");
    write('src/blobs/fs.ts', "export async function f() { return import('../jobs/pr-comments/worker.js'); }\n");
    write('src/db/connection.ts', "import { ensurePrivateDir } from '../server/data-dir.js';\n");
    write('src/data-dir.ts', "export * from './app.js';\n");
    write(
      'src/areas/prs/service.ts',
      "import { ok } from '../../server/ok.js';\nimport { w } from '../../jobs/pr-comments/worker.js';\n",
    );
    write('src/jobs/pr-comments/worker.ts', "import { recordAudit } from '../../areas/orgs/audit.js';\n");
    expect(upwardImports(root).sort()).toEqual([
      'src/areas/prs/service.ts -> src/jobs/pr-comments/worker.ts (areas)',
      'src/blobs/fs.ts -> src/jobs/pr-comments/worker.ts (plumbing)',
      'src/data-dir.ts -> src/app.ts (plumbing)',
      'src/db/connection.ts -> src/server/data-dir.ts (storage)',
      'src/db/migrations/0011_x.ts -> src/areas/prs/refs.ts (plumbing)',
      'src/server/guard.ts -> src/areas/orgs/audit.ts (plumbing)',
    ]);
  });
});
