import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One parent dir for every temp dir of the run, removed at the end (no tokens left in /tmp).
    globalSetup: ['test/global-tmp.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each test file builds its own gateway on its own database (a temp SQLite file, or a fresh
    // PostgreSQL schema when TEST_DATABASE_URL is set), so files may run side by side.
    fileParallelism: true,
  },
});
