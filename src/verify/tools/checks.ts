// Typecheckers, linters and builds. Part of the tool table: ./index.ts assembles it.
import { WHOLE_SUITE, always, type ToolEntry } from './entry.js';

export const TYPECHECKERS: ToolEntry[] = [
  {
    id: 'tsc',
    programs: ['tsc', 'vue-tsc'],
    kind: 'typecheck',
    valueOptions: ['-p', '--project', '--target', '--module', '--outDir'],
    kindOf: (a) => (a.options.has('-b') || a.options.has('--build') ? 'build' : 'typecheck'),
    scope: (a) => (a.operands.length > 0 ? 'partial' : 'full'),
  },
  { id: 'svelte-check', programs: ['svelte-check'], kind: 'typecheck', scope: always },
  {
    id: 'mypy',
    programs: ['mypy', 'dmypy'],
    kind: 'typecheck',
    valueOptions: ['--config-file', '-p', '--package', '-m', '--module', '--python-version'],
    scope: (a) => (a.options.has('-m') ? 'partial' : 'full'),
  },
  {
    id: 'pyright',
    programs: ['pyright', 'basedpyright'],
    kind: 'typecheck',
    valueOptions: ['-p', '--project', '--pythonversion'],
    scope: always,
  },
  {
    id: 'cargo-check',
    programs: ['cargo'],
    sub: ['check'],
    kind: 'typecheck',
    valueOptions: ['-p', '--package', '--features', '-F', '--target'],
    scope: (a) => (a.options.has('-p') || a.options.has('--package') ? 'partial' : 'full'),
  },
  {
    id: 'go-vet',
    programs: ['go'],
    sub: ['vet'],
    kind: 'typecheck',
    valueOptions: ['-tags'],
    scope: (a) => (a.operands.every((o) => o === './...') ? 'full' : 'partial'),
  },
  { id: 'deno-check', programs: ['deno'], sub: ['check'], kind: 'typecheck', scope: always },
  { id: 'flow', programs: ['flow'], kind: 'typecheck', scope: always },
  {
    id: 'phpstan',
    programs: ['phpstan', 'psalm'],
    kind: 'typecheck',
    valueOptions: ['-c', '--configuration', '-l', '--level', '--memory-limit'],
    scope: always,
  },
];

export const LINTERS: ToolEntry[] = [
  {
    id: 'eslint',
    programs: ['eslint', 'oxlint', 'xo', 'standard', 'stylelint'],
    kind: 'lint',
    valueOptions: [
      '-c',
      '--config',
      '--ext',
      '-f',
      '--format',
      '--max-warnings',
      '--rule',
      '--cache-location',
      '-o',
      '--output-file',
    ],
    scope: (a) =>
      a.operands.length === 0 || a.operands.every((o) => WHOLE_SUITE.has(o) || o === 'src' || /[*{]/.test(o))
        ? 'full'
        : 'partial',
  },
  {
    id: 'biome',
    programs: ['biome'],
    sub: [],
    kind: 'lint',
    when: (a) => ['check', 'lint', 'ci'].includes(a.operands[0] ?? ''),
    valueOptions: ['--config-path', '--max-diagnostics', '--reporter'],
    scope: (a) => (a.operands.slice(1).every((o) => o === '.' || o === './') ? 'full' : 'partial'),
  },
  {
    id: 'ruff',
    programs: ['ruff'],
    kind: 'lint',
    when: (a) =>
      a.operands[0] === 'check' ||
      (a.operands[0] === 'format' && a.options.has('--check')) ||
      (a.operands[0] !== 'format' && a.operands[0] !== 'clean'),
    valueOptions: ['--config', '--select', '--ignore', '--output-format', '--target-version'],
    scope: (a) =>
      a.operands.filter((o) => o !== 'check' && o !== 'format').every((o) => o === '.' || o === './')
        ? 'full'
        : 'partial',
  },
  {
    id: 'flake8',
    programs: ['flake8', 'pylint', 'pycodestyle', 'pyflakes', 'bandit'],
    kind: 'lint',
    valueOptions: ['--config', '--rcfile', '--select', '--ignore', '--max-line-length'],
    scope: always,
  },
  {
    id: 'black-check',
    programs: ['black', 'isort'],
    kind: 'lint',
    when: (a) => a.options.has('--check') || a.options.has('--diff'),
    scope: always,
  },
  {
    id: 'golangci-lint',
    programs: ['golangci-lint'],
    sub: ['run'],
    kind: 'lint',
    valueOptions: ['-c', '--config', '--timeout', '-E', '--enable', '-D', '--disable'],
    scope: (a) => (a.operands.every((o) => o === './...') ? 'full' : 'partial'),
  },
  {
    id: 'clippy',
    programs: ['cargo'],
    sub: ['clippy'],
    kind: 'lint',
    valueOptions: ['-p', '--package', '--features', '-F', '--target'],
    scope: (a) => (a.options.has('-p') || a.options.has('--package') ? 'partial' : 'full'),
  },
  {
    id: 'rubocop',
    programs: ['rubocop', 'standardrb'],
    kind: 'lint',
    valueOptions: ['-c', '--config', '-f', '--format', '--only'],
  },
  {
    id: 'prettier-check',
    programs: ['prettier'],
    kind: 'lint',
    when: (a) =>
      a.options.has('--check') || a.options.has('-c') || a.options.has('--list-different') || a.options.has('-l'),
    scope: always,
  },
  {
    id: 'shellcheck',
    programs: ['shellcheck', 'hadolint', 'markdownlint', 'ktlint', 'swiftlint', 'detekt'],
    kind: 'lint',
    scope: always,
  },
  { id: 'deno-lint', programs: ['deno'], sub: ['lint'], kind: 'lint', scope: always },
  {
    id: 'go-fmt-check',
    programs: ['gofmt'],
    kind: 'lint',
    when: (a) => a.options.has('-l') || a.options.has('-d'),
    scope: always,
  },
];

export const BUILDS: ToolEntry[] = [
  { id: 'cargo-build', programs: ['cargo'], sub: ['build'], kind: 'build', scope: always },
  { id: 'go-build', programs: ['go'], sub: ['build'], kind: 'build', scope: always },
  { id: 'dotnet-build', programs: ['dotnet'], sub: ['build'], kind: 'build', scope: always },
  {
    id: 'vite-build',
    programs: ['vite', 'next', 'nuxt', 'astro', 'remix', 'svelte-kit'],
    sub: ['build'],
    kind: 'build',
    scope: always,
  },
  {
    id: 'bundler',
    programs: ['webpack', 'rollup', 'esbuild', 'tsup', 'parcel'],
    kind: 'build',
    when: (a) => a.operands[0] !== 'serve' && !a.options.has('--watch') && !a.options.has('-w'),
    scope: always,
  },
  { id: 'docker-build', programs: ['docker', 'podman'], sub: ['build'], kind: 'build', scope: always },
];
