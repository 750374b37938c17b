#!/usr/bin/env node
// Process entry: `attest <command>`. Commands live in src/cli/. `attest hook` runs inside the user's agent:
// it is dispatched before the CLI (commander, the API client, capture) loads, so it costs Node's start-up
// and little more. `attest statusline` (Claude Code's status line) likewise.

/**
 * `attest session ID | head -1`: the reader closed the pipe and wants no more. That is not an error: stop
 * quietly with status 0 instead of an EPIPE stack trace. Not for the hook, which writes nothing there: touching
 * a piped stdout builds its socket, a cost inside the agent's loop.
 */
function quietOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0);
      throw err;
    });
  }
}

if (process.argv[2] === 'hook') {
  const { runHook } = await import('./cli/capture/hook.js');
  await runHook(process.argv.slice(3));
} else if (process.argv[2] === 'statusline' && !process.argv.includes('--help')) {
  quietOnClosedPipe();
  const { runStatusline } = await import('./cli/capture/statusline.js');
  await runStatusline(process.argv.slice(3));
} else {
  quietOnClosedPipe();
  // `attest verify` reads commands with tree-sitter's wasm in one pass and exits. V8 would also compile the 1.4 MB
  // grammar with its optimizing tier in the background, and wait for that before exiting (1.4 s instead of 0.7 s
  // on a 1,000-turn session); the baseline tier is enough for one pass. Long runs (serve, watch, a large sync)
  // keep both tiers.
  if (process.argv[2] === 'verify') (await import('node:v8')).setFlagsFromString('--liftoff-only');
  const { runCli } = await import('./cli/index.js');
  await runCli(process.argv).catch((err: unknown) => {
    process.stderr.write(`attest: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
