// package.json says which Node versions the gateway runs on; every installed package must agree, so
// `npm install` on the oldest of them warns about nothing (EBADENGINE) and nothing needs a newer runtime.
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

function installed(dir: string, out: { name: string; version: string; node: string }[]): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.name.startsWith('@')) {
      installed(full, out);
      continue;
    }
    const manifest = path.join(full, 'package.json');
    if (fs.existsSync(manifest)) {
      const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8')) as {
        name?: string;
        version?: string;
        engines?: { node?: string };
      };
      if (pkg.engines?.node && semver.validRange(pkg.engines.node))
        out.push({ name: pkg.name ?? entry.name, version: pkg.version ?? '?', node: pkg.engines.node });
    }
    const nested = path.join(full, 'node_modules');
    if (fs.existsSync(nested)) installed(nested, out);
  }
}

describe('Node engines', () => {
  it('every installed package runs on the oldest Node that package.json accepts', () => {
    const own = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    const oldest = semver.minVersion(own.engines.node)!.version;
    expect(oldest).toBe('20.19.0');
    const packages: { name: string; version: string; node: string }[] = [];
    installed(path.join(ROOT, 'node_modules'), packages);
    expect(packages.length).toBeGreaterThan(50);
    const tooNew = packages
      .filter((p) => !semver.satisfies(oldest, p.node))
      .map((p) => `${p.name}@${p.version} needs node ${p.node}`);
    expect(tooNew).toEqual([]);
  });
});
