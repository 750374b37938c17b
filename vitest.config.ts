import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One parent dir for every temp dir of the run, removed at the end (no tokens left in /tmp).
    globalSetup: ['test/global-tmp.ts', 'test/global-cli-build.ts'],
    // Every 2xx/3xx answer of a test gateway is checked against the OpenAPI document; a test whose answers
    // drift from it fails (test/helpers/openapi-drift.ts).
    setupFiles: ['test/helpers/openapi-drift-setup.ts', 'test/helpers/env-restore-setup.ts'],
    pool: 'forks',
    // A worker process runs file after file with its modules loaded once: a fresh module graph per file
    // (isolate: true) cost every file seconds of imports, most of a CI pass's time. Each file still starts its
    // own gateway on its own database; process.env is restored after each file (env-restore-setup.ts).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits 1 s by default; a browser test's page under a loaded CI machine (load average 11 seen)
    // took longer than that to render a list it then showed. A poll still fails when the text never comes.
    expect: { poll: { timeout: 10_000 } },
    // Each test file builds its own gateway on its own database (a temp SQLite file, or a fresh
    // PostgreSQL schema when TEST_DATABASE_URL is set), so files may run side by side.
    fileParallelism: true,
    // Vitest runs cores - 1 files at once: one at a time on the 2-core CI machine, where a file spends much of
    // its time waiting (fsync under synchronous=FULL, PostgreSQL round trips, Chromium rendering, CLI child
    // processes). One more file than cores keeps both cores busy: CI at one file at a time took 1,209 s
    // (SQLite pass 539 s, PostgreSQL pass 593 s), over its 20-minute budget.
    maxWorkers: os.availableParallelism() + 1,
  },
});
