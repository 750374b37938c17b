// Vitest setup file (vitest.config.ts): test files share their worker's process (isolate: false), so what a file
// sets in process.env (a CLI test points it at its own home and gateway) is undone when the file ends.
import { afterAll } from 'vitest';

const saved = { ...process.env };

afterAll(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});
