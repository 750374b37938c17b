// `npm run build:cli`: the light `attest` package a laptop installs from its gateway
// (`npm install -g <gateway>/downloads/attest-cli.tgz`). esbuild bundles src/main.ts (the hook fast path and
// every command src/cli/index.ts registers) into dist/cli-package/dist/, with the two wasm files `attest verify`
// loads beside it, under a package.json that has no dependencies: npm fetches nothing else, and none of the
// server's packages (Fastify, Kysely, the database drivers, React, ...) reach the laptop. The commands that run
// the gateway itself (`attest serve`, `migrate`, `backup`, `restore`) stay registered and say that they need
// the full install. `npm pack` then writes dist/attest-cli.tgz, which the gateway serves.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'src');
export const CLI_PACKAGE_TGZ = path.join(ROOT, 'dist', 'attest-cli.tgz');

/** Packages of the server: the build fails when one of them would be bundled into the CLI. */
const SERVER_ONLY = [
  /^fastify$/,
  /^@fastify\//,
  /^find-my-way$/,
  /^kysely$/,
  /^pg(-.*)?$/,
  /^libsql$/,
  /^@libsql\//,
  /^better-sqlite3$/,
  /^ioredis$/,
  /^@aws-sdk\//,
  /^pino$/,
  /^react(-dom)?$/,
  /^express$/,
  /^openid-client$/,
  /^@octokit\//,
  /^@opentelemetry\//,
  /^protobufjs$/,
  /^rate-limiter-flexible$/,
  /^@modelcontextprotocol\//,
  /^ajv$/,
];

/** The code a dynamic import from the CLI gets instead of the gateway: importing it fails with this message. */
const SERVER_STUB = `throw new Error('this command runs the gateway itself, which the light CLI package does not \
include: run it from a full checkout of the gateway (docs/deploy.md)');`;

/**
 * The CLI loads the gateway (src/app.ts, the store, the areas) only through dynamic imports of the server
 * commands: those become SERVER_STUB. A static import of them stays, and the SERVER_ONLY check below fails.
 */
const serverStub: Plugin = {
  name: 'server-stub',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const target = path.resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts'));
      const rel = path.relative(SRC, target);
      if (rel === 'app.ts' || /^(db|areas|server|jobs|blobs|codehost)\//.test(rel)) {
        return { path: rel, namespace: 'server-stub' };
      }
      return undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'server-stub' }, () => ({ contents: SERVER_STUB, loader: 'js' }));
  },
};

/**
 * `createRequire(import.meta.url)('pkg')` (a lazy, synchronous load of cli-progress and the price data) as a
 * plain `require('pkg')`, which esbuild bundles and still evaluates only when called.
 */
const lazyRequires: Plugin = {
  name: 'lazy-requires',
  setup(b) {
    b.onLoad({ filter: /\/src\/.*\.ts$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8');
      const rewritten = text.replace(/createRequire\(import\.meta\.url\)\((['"][^./'"][^'"]*['"])\)/g, 'require($1)');
      return { contents: rewritten, loader: 'ts' };
    });
  },
};

/** src/version.ts reads the root package.json at run time; the bundle carries the version instead. */
function versionOf(version: string): Plugin {
  return {
    name: 'version',
    setup(b) {
      b.onLoad({ filter: /\/src\/version\.ts$/ }, () => ({
        contents: `export const VERSION = ${JSON.stringify(version)};`,
        loader: 'ts',
      }));
    },
  };
}

function packageOf(input: string): string | null {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  return m?.[1] ?? null;
}

/** Builds the package into `tgz` (default dist/attest-cli.tgz), staged in the cli-package folder beside it. */
export async function buildCliPackage(
  tgz: string = CLI_PACKAGE_TGZ,
): Promise<{ tgz: string; bytes: number; packages: string[] }> {
  const stage = path.join(path.dirname(tgz), 'cli-package');
  const rootPkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    version: string;
    engines: Record<string, string>;
    license: string;
  };
  fs.rmSync(stage, { recursive: true, force: true });
  const out = path.join(stage, 'dist');
  const result = await build({
    entryPoints: { attest: path.join(SRC, 'main.ts') },
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    legalComments: 'linked',
    metafile: true,
    absWorkingDir: ROOT,
    logLevel: 'warning',
    // CommonJS packages in an ES module bundle call require() for Node's built-ins.
    banner: {
      js: [
        "import { createRequire as __attestRequire } from 'node:module';",
        'const require = __attestRequire(import.meta.url);',
      ].join(' '),
    },
    plugins: [versionOf(rootPkg.version), serverStub, lazyRequires],
  });
  const packages = [...new Set(Object.keys(result.metafile.inputs).map(packageOf))]
    .filter((p): p is string => p !== null)
    .sort();
  const server = packages.filter((p) => SERVER_ONLY.some((re) => re.test(p)));
  if (server.length > 0) {
    throw new Error(
      `the CLI bundle would carry server packages: ${server.join(', ')} (import them lazily from a server command)`,
    );
  }
  // web-tree-sitter finds its runtime next to the module that loads it (the bundle); src/verify/shell.ts looks
  // for the grammar there first.
  const require = createRequire(import.meta.url);
  fs.copyFileSync(require.resolve('web-tree-sitter/tree-sitter.wasm'), path.join(out, 'tree-sitter.wasm'));
  fs.copyFileSync(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'), path.join(out, 'tree-sitter-bash.wasm'));
  const pkg = {
    name: 'attest-cli',
    version: rootPkg.version,
    description: 'The attest CLI: sends coding-agent sessions to an Attest gateway',
    type: 'module',
    license: rootPkg.license,
    engines: rootPkg.engines,
    bin: { attest: 'dist/attest.js' },
    files: ['dist'],
  };
  fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', stage, stage], {
    cwd: stage,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [{ filename }] = JSON.parse(packed) as [{ filename: string }];
  fs.renameSync(path.join(stage, filename), tgz);
  return { tgz, bytes: fs.statSync(tgz).size, packages };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { tgz, bytes, packages } = await buildCliPackage();
  process.stdout.write(
    `${path.relative(ROOT, tgz)}: ${(bytes / 1024).toFixed(0)} KiB, bundling ${packages.join(', ') || 'no package'}\n`,
  );
}
