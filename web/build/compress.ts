// A Vite plugin for the production build: writes a brotli (.br) and a gzip (.gz) sibling of every hashed
// asset, so the gateway serves them pre-compressed, and prints the initial JS size (what index.html loads
// before the first page renders, gzipped) against the 200 KB budget.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Plugin } from 'vite';

const COMPRESSIBLE = /\.(js|css|svg|json|txt|map|html)$/;
export const INITIAL_JS_BUDGET = 200 * 1024;

/** The scripts and modulepreloads index.html names: the JS a first visit downloads before it can render. */
export function initialScripts(indexHtml: string): string[] {
  const names = new Set<string>();
  for (const m of indexHtml.matchAll(/<(?:script|link)\b[^>]*?(?:src|href)="([^"]+\.js)"/g)) names.add(m[1]!);
  return [...names];
}

export function initialJsGzipBytes(outDir: string): { files: string[]; bytes: number } {
  const html = fs.readFileSync(path.join(outDir, 'index.html'), 'utf8');
  const files = initialScripts(html);
  let bytes = 0;
  for (const f of files)
    bytes += zlib.gzipSync(fs.readFileSync(path.join(outDir, f.replace(/^\//, ''))), { level: 9 }).length;
  return { files, bytes };
}

export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'attest-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const assets = path.join(outDir, 'assets');
      if (!fs.existsSync(assets)) return;
      let raw = 0,
        br = 0,
        gz = 0;
      for (const name of fs.readdirSync(assets)) {
        if (!COMPRESSIBLE.test(name)) continue;
        const file = path.join(assets, name);
        const data = fs.readFileSync(file);
        const b = zlib.brotliCompressSync(data, {
          params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length },
        });
        const g = zlib.gzipSync(data, { level: 9 });
        fs.writeFileSync(`${file}.br`, b);
        fs.writeFileSync(`${file}.gz`, g);
        raw += data.length;
        br += b.length;
        gz += g.length;
      }
      const initial = initialJsGzipBytes(outDir);
      const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
      console.log(`web: assets ${kb(raw)} raw, ${kb(gz)} gzip, ${kb(br)} brotli (pre-compressed .gz and .br written)`);
      console.log(
        `web: initial JS ${kb(initial.bytes)} gzipped (${initial.files.length} file${initial.files.length === 1 ? '' : 's'}; budget ${kb(INITIAL_JS_BUDGET)})${initial.bytes > INITIAL_JS_BUDGET ? ' OVER BUDGET' : ''}`,
      );
    },
  };
}
