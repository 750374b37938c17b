// How tests start the `attest` CLI: `node <built main.js>` (test/global-cli-build.ts), or through tsx on the
// sources when a test runs without that global setup.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The arguments after `node` that start the CLI, e.g. spawn(process.execPath, [...cliArgv(), 'sync']). */
export function cliArgv(): string[] {
  const built = process.env.ATTEST_TEST_CLI_MAIN;
  return built ? [built] : ['--import', 'tsx', path.join(ROOT, 'src', 'main.ts')];
}

/** The same as one shell-quoted command line, for scripts and hook commands. */
export function cliCommandLine(): string {
  return [process.execPath, ...cliArgv()].map((a) => JSON.stringify(a)).join(' ');
}
