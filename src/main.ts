#!/usr/bin/env node
// Process entry: `attest <command>`. Commands live in src/cli/.
import { runCli } from './cli/index.js';

runCli(process.argv).catch((err: unknown) => {
  process.stderr.write(`attest: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
