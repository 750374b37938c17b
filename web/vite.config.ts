// Builds the dashboard into dist/web (served by the gateway). No React plugin: JSX compiles with the
// automatic runtime of Vite's own transformer, and the production build needs nothing more.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { precompress } from './build/compress.js';

const root = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root,
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: path.join(root, '..', 'dist', 'web'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    rolldownOptions: {
      // TanStack's "use client" directives mean nothing in a client-only bundle.
      onLog(level, log, handler) {
        if (log.code === 'MODULE_LEVEL_DIRECTIVE') return;
        handler(level, log);
      },
    },
  },
  server: {
    // `npm run dev:web` proxies the API to a gateway started with `npm run dev` (default port 8787).
    proxy: Object.fromEntries(
      ['/v1', '/auth', '/health', '/oauth', '/.well-known'].map((p) => [
        p,
        process.env.ATTEST_URL ?? 'http://127.0.0.1:8787',
      ]),
    ),
  },
  plugins: [precompress()],
});
