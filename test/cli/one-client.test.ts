// The dashboard and the CLI send requests through the one generated client (src/client/api.ts) only: no page
// and no command calls fetch itself, and the dashboard's header is spelled in that module alone. A check that
// stays, so a new page or command cannot quietly hand-build a request again.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

describe('one API client', () => {
  const files = [...sources('web/src'), ...sources('src/cli'), ...sources('src/client')];

  it('only src/client/api.ts sends requests (no fetch( in web/src, src/cli or the rest of src/client)', () => {
    expect(files.length).toBeGreaterThan(40);
    const calling = files.filter(
      (f) => f !== 'src/client/api.ts' && /\bfetch\s*\(/.test(fs.readFileSync(path.join(ROOT, f), 'utf8')),
    );
    expect(calling).toEqual([]);
  });

  it('spells the X-Attest-Dashboard header once', () => {
    const spelling = files.filter((f) => /x-attest-dashboard/i.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
    expect(spelling).toEqual(['src/client/api.ts']);
  });
});
