// `npm run bench -- cli-install`: what installing the light CLI package costs a laptop. Builds it
// (scripts/cli-package.ts, as `npm run build` does) into a temp dir, then, from the local tgz (npm needs no
// network and fetches nothing else):
// - the tgz's size, and the installed package's size on disk;
// - `npm install -g --prefix <fresh dir> <tgz>` wall time, median and max of several installs;
// - `attest --version` wall time from the installed bin, p50/p95, interleaved with a bare `node -e 0`.
// Not a scenario set of bench/run.ts (it exports no `scenarios`): it runs only when named.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildCliPackage } from '../scripts/cli-package.js';

export interface CliInstallBenchResult {
  buildMs: number;
  tgzBytes: number;
  installedBytes: number;
  installedFiles: number;
  /** Whether npm put any package beside the bundle (it should not: the package depends on nothing). */
  nodeModules: boolean;
  bundledPackages: string[];
  install: { median: number; max: number; runs: number };
  bare: { p50: number; p95: number };
  version: { p50: number; p95: number; runs: number };
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
}

function timed(command: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn(command, args, { stdio: 'ignore' });
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) reject(new Error(`${command} ${args.join(' ')} exited ${code}`));
      else resolve(performance.now() - t0);
    });
  });
}

/** Bytes on disk (allocated blocks, as `du` counts them) and files under `dir`. */
function diskUsage(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const st = fs.lstatSync(path.join(e.parentPath, e.name));
    bytes += st.blocks * 512;
    if (st.isFile()) files++;
  }
  return { bytes, files };
}

export async function runCliInstallBench(
  opts: { installs?: number; runs?: number } = {},
): Promise<CliInstallBenchResult> {
  const installs = opts.installs ?? 5;
  const runs = opts.runs ?? 20;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attest-bench-cli-install-'));
  try {
    const t0 = performance.now();
    const built = await buildCliPackage(path.join(tmp, 'attest-cli.tgz'));
    const buildMs = performance.now() - t0;
    const args = (prefix: string) => ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', built.tgz];
    // One install first so npm's own start-up caches are warm, as they are on a developer's laptop.
    spawnSync('npm', args(path.join(tmp, 'warm')), { stdio: 'ignore' });
    const installTimes: number[] = [];
    let prefix = '';
    for (let i = 0; i < installs; i++) {
      prefix = path.join(tmp, `prefix-${i}`);
      installTimes.push(await timed('npm', args(prefix)));
    }
    const installed = path.join(prefix, 'lib', 'node_modules', 'attest-cli');
    const usage = diskUsage(installed);
    const bin = path.join(prefix, 'bin', 'attest');
    const bare: number[] = [];
    const version: number[] = [];
    for (let i = 0; i < runs; i++) {
      bare.push(await timed(process.execPath, ['-e', '0']));
      version.push(await timed(bin, ['--version']));
    }
    return {
      buildMs,
      tgzBytes: built.bytes,
      installedBytes: usage.bytes,
      installedFiles: usage.files,
      nodeModules: fs.existsSync(path.join(installed, 'node_modules')),
      bundledPackages: built.packages,
      install: { median: quantile(installTimes, 0.5), max: Math.max(...installTimes), runs: installs },
      bare: { p50: quantile(bare, 0.5), p95: quantile(bare, 0.95) },
      version: { p50: quantile(version, 0.5), p95: quantile(version, 0.95), runs },
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export function formatCliInstallBench(r: CliInstallBenchResult): string {
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  const kib = (x: number) => `${(x / 1024).toFixed(0)} KiB`;
  const modules = r.nodeModules ? 'WITH node_modules' : 'no node_modules';
  const installs = `${r.install.runs} installs`;
  return [
    'cli-install (the light attest package, installed from its tgz with npm):',
    `  build (esbuild + npm pack)        ${ms(r.buildMs)}`,
    `  tgz                               ${kib(r.tgzBytes)}`,
    `  installed on disk                 ${kib(r.installedBytes)} in ${r.installedFiles} files, ${modules}`,
    `  npm install -g                    median ${ms(r.install.median)}  max ${ms(r.install.max)}  (${installs})`,
    `  node -e 0                         p50 ${ms(r.bare.p50)}  p95 ${ms(r.bare.p95)}`,
    `  attest --version                  p50 ${ms(r.version.p50)}  p95 ${ms(r.version.p95)}  (${r.version.runs} runs)`,
    `  bundled packages                  ${r.bundledPackages.join(', ')}`,
  ].join('\n');
}
