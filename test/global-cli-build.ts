// The CLI tests spawn `attest` as a user runs it: plain Node on JavaScript. Transpiling src/ once per run
// (esbuild, file by file, no bundling: about half a second) spares every spawned process tsx's loader, which
// compiles and resolves each of the CLI's modules through a hook thread on every start.
// The output sits one level below the repository root, like dist/, so paths the code finds from its own
// location (dist/web, schemas/, node_modules) resolve the same; a directory per run keeps parallel runs
// apart. Tests read its path from ATTEST_TEST_CLI_MAIN (test/helpers/cli-main.ts).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export default async function setup(): Promise<() => void> {
  const outdir = path.join(ROOT, `.test-cli-${process.pid}`);
  fs.rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: ['src/**/*.ts'],
    absWorkingDir: ROOT,
    outbase: 'src',
    outdir,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    bundle: false,
    logLevel: 'warning',
  });
  process.env.ATTEST_TEST_CLI_MAIN = path.join(outdir, 'main.js');
  return () => fs.rmSync(outdir, { recursive: true, force: true });
}
