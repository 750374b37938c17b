#!/usr/bin/env node
// Process entry: `attest <command>`. Commands live in src/cli/.
import { runCli } from './cli/index.js';

// `attest session ID | head -1`: the reader closed the pipe and wants no more. That is not an error: stop
// quietly with status 0 instead of an EPIPE stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

runCli(process.argv).catch((err: unknown) => {
  process.stderr.write(`attest: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
