// The one table of tools the verdict recognises. To teach it a new test runner, linter or build tool, add an
// entry to TOOLS (and, if it runs through another program, a wrapper to WRAPPERS); scripts of package
// managers, make targets and task runners are named by SCRIPT_KINDS; OUTPUT_SIGNS reads a run's result
// from its output when a pipe hides the exit status; TEST_FILE_GLOBS says which edited files are tests.
import type { RunKind, RunScope } from './schema.js';

/** What a recognised command is. `target`: the script, task or make target it ran, if any. */
export interface Recognised {
  tool: string;
  kind: RunKind;
  scope: RunScope;
  target?: string;
}

/** The arguments after the program (and its subcommand words), options already told from operands. */
export interface Args {
  /** Words that are not options (files, packages, names, tasks). */
  operands: string[];
  /** Option names present (`-k`, `--grep`), with their values where the tool takes one. */
  options: Map<string, string>;
  /** Words after a bare `--`. */
  rest: string[];
}

export interface ToolEntry {
  id: string;
  /** Program names (basename; `./gradlew`, `node_modules/.bin/vitest` and `python3.12` match too). */
  programs: string[];
  /** The first operand(s) that must follow (`go test`, `cargo nextest run`); absent = any. */
  sub?: string[];
  kind: RunKind;
  /** Options that take a value as the next word (so that value is no operand). */
  valueOptions?: string[];
  /** Options whose presence makes the tool match (`node --test`, `prettier --check`). */
  when?: (a: Args) => boolean;
  /** Options that narrow a test run to some files or names (used by the default scope). */
  filters?: string[];
  /** Default: `filtered` (any operand, filter option or `--` argument makes the run partial). */
  scope?: (a: Args) => RunScope;
  /** The kind when it differs by arguments (`tsc -b` builds). */
  kindOf?: (a: Args) => RunKind;
}

/** Operands that name the whole suite rather than a part of it. */
const WHOLE_SUITE = new Set([
  '.',
  './',
  './...',
  '...',
  'test',
  'tests',
  'test/',
  'tests/',
  'spec',
  'spec/',
  '__tests__',
]);

/** The default scope: any operand, any `filters` option or anything after `--` narrows the run. */
export function filtered(a: Args, filters: readonly string[] = []): RunScope {
  if (a.rest.length > 0) return 'partial';
  for (const name of a.options.keys()) if (filters.includes(name)) return 'partial';
  for (const o of a.operands) {
    if (WHOLE_SUITE.has(o)) continue;
    if (/[*?[]/.test(o)) return 'unknown';
    return 'partial';
  }
  return 'full';
}

const always = (): RunScope => 'full';

export const TOOLS: ToolEntry[] = [
  // Test runners.
  {
    id: 'vitest',
    programs: ['vitest'],
    kind: 'test',
    valueOptions: [
      '--reporter',
      '-c',
      '--config',
      '--root',
      '-r',
      '--dir',
      '--pool',
      '--environment',
      '--project',
      '-t',
      '--testNamePattern',
      '--shard',
    ],
    filters: ['-t', '--testNamePattern', '--changed', '--shard', '--project'],
    kindOf: (a) => (a.operands[0] === 'bench' ? 'other' : 'test'),
    scope: (a) =>
      a.operands[0] === 'related'
        ? 'partial'
        : filtered({ ...a, operands: a.operands.filter((o, i) => i > 0 || (o !== 'run' && o !== 'watch')) }, [
            '-t',
            '--testNamePattern',
            '--changed',
            '--shard',
            '--project',
          ]),
  },
  {
    id: 'jest',
    programs: ['jest'],
    kind: 'test',
    valueOptions: [
      '-c',
      '--config',
      '--reporters',
      '-w',
      '--maxWorkers',
      '-t',
      '--testNamePattern',
      '--testPathPattern',
      '--testPathPatterns',
      '--selectProjects',
      '--shard',
    ],
    filters: [
      '-t',
      '--testNamePattern',
      '--testPathPattern',
      '--testPathPatterns',
      '-o',
      '--onlyChanged',
      '--findRelatedTests',
      '--selectProjects',
      '--shard',
      '--changedSince',
      '--onlyFailures',
      '-f',
    ],
  },
  {
    id: 'mocha',
    programs: ['mocha'],
    kind: 'test',
    valueOptions: [
      '-g',
      '--grep',
      '-f',
      '--fgrep',
      '-R',
      '--reporter',
      '--config',
      '--require',
      '-r',
      '--timeout',
      '-t',
      '--spec',
    ],
    filters: ['-g', '--grep', '-f', '--fgrep', '--spec'],
  },
  {
    id: 'node-test',
    programs: ['node'],
    kind: 'test',
    when: (a) => a.options.has('--test'),
    valueOptions: ['--test-name-pattern', '--test-reporter', '--import', '--require', '-r'],
    filters: ['--test-name-pattern', '--test-only', '--test-shard'],
  },
  { id: 'ava', programs: ['ava'], kind: 'test', valueOptions: ['-m', '--match'], filters: ['-m', '--match'] },
  { id: 'jasmine', programs: ['jasmine'], kind: 'test', filters: ['--filter'] },
  {
    id: 'playwright',
    programs: ['playwright'],
    sub: ['test'],
    kind: 'test',
    valueOptions: [
      '-g',
      '--grep',
      '--grep-invert',
      '--project',
      '-c',
      '--config',
      '--reporter',
      '-j',
      '--workers',
      '--shard',
      '--retries',
    ],
    filters: ['-g', '--grep', '--grep-invert', '--project', '--shard', '--last-failed', '--only-changed'],
  },
  {
    id: 'cypress',
    programs: ['cypress'],
    sub: ['run'],
    kind: 'test',
    valueOptions: ['--spec', '-s', '--browser', '-b', '--config', '--env', '-e', '--project', '-P'],
    filters: ['--spec', '-s'],
  },
  {
    id: 'pytest',
    programs: ['pytest', 'py.test'],
    kind: 'test',
    valueOptions: [
      '-k',
      '-m',
      '-c',
      '--rootdir',
      '-n',
      '-p',
      '--tb',
      '--maxfail',
      '-o',
      '--junitxml',
      '--durations',
      '-W',
      '--deselect',
      '--ignore',
      '--cov-report',
      '--timeout',
    ],
    filters: ['-k', '-m', '--lf', '--last-failed', '--deselect', '--ignore', '--sw', '--stepwise'],
  },
  {
    id: 'unittest',
    programs: ['unittest'],
    kind: 'test',
    valueOptions: ['-k', '-s', '-p', '-t'],
    scope: (a) =>
      a.options.has('-k') ? 'partial' : a.operands.length === 0 || a.operands[0] === 'discover' ? 'full' : 'partial',
  },
  {
    id: 'tox',
    programs: ['tox'],
    kind: 'test',
    valueOptions: ['-e', '-c'],
    scope: (a) => (a.rest.length > 0 ? 'partial' : 'full'),
  },
  {
    id: 'nox',
    programs: ['nox'],
    kind: 'test',
    valueOptions: ['-s', '--session', '-k', '-f'],
    scope: (a) => (a.rest.length > 0 || a.options.has('-k') ? 'partial' : 'full'),
  },
  {
    id: 'go-test',
    programs: ['go'],
    sub: ['test'],
    kind: 'test',
    valueOptions: ['-run', '-count', '-timeout', '-p', '-coverprofile', '-tags', '-bench', '-parallel', '-skip'],
    scope: (a) =>
      a.options.has('-run') || a.options.has('-skip')
        ? 'partial'
        : a.operands.length === 0
          ? 'unknown'
          : a.operands.every((o) => o === './...' || o === '...')
            ? 'full'
            : 'partial',
  },
  {
    id: 'cargo-test',
    programs: ['cargo'],
    sub: ['test'],
    kind: 'test',
    valueOptions: ['-p', '--package', '--test', '--features', '-F', '-j', '--target', '--manifest-path', '--exclude'],
    filters: ['-p', '--package', '--test', '--lib', '--bin', '--doc'],
  },
  {
    id: 'nextest',
    programs: ['cargo'],
    sub: ['nextest', 'run'],
    kind: 'test',
    valueOptions: ['-p', '--package', '-E', '--filterset', '--profile', '-j', '--features', '-F'],
    filters: ['-p', '--package', '-E', '--filterset'],
  },
  {
    id: 'maven',
    programs: ['mvn', 'mvnw'],
    kind: 'test',
    valueOptions: ['-pl', '--projects', '-f', '--file', '-P', '-T', '-s'],
    when: (a) => a.operands.some((o) => MAVEN_PHASES.has(o)),
    kindOf: (a) =>
      a.operands.some((o) => o === 'test' || o === 'verify') && !a.options.has('-DskipTests')
        ? 'test'
        : a.operands.some((o) => MAVEN_PHASES.has(o))
          ? 'build'
          : 'other',
    scope: (a) =>
      a.options.has('-pl') ||
      a.options.has('--projects') ||
      [...a.options.keys()].some((k) => k.startsWith('-Dtest=') || k === '-Dtest')
        ? 'partial'
        : 'full',
  },
  {
    id: 'gradle',
    programs: ['gradle', 'gradlew'],
    kind: 'test',
    valueOptions: ['--tests', '-p', '--project-dir', '-x', '--exclude-task'],
    when: (a) => a.operands.length > 0,
    kindOf: (a) =>
      a.operands.some((o) => /(^|:)(test|check|connectedCheck|integrationTest)$/.test(o))
        ? 'test'
        : a.operands.some((o) => /(^|:)(build|assemble|compile\w*)$/.test(o))
          ? 'build'
          : a.operands.some((o) => /(^|:)(lint|detekt|ktlintCheck|spotlessCheck)$/.test(o))
            ? 'lint'
            : 'other',
    scope: (a) => (a.options.has('--tests') || a.operands.some((o) => /^:.+:/.test(o)) ? 'partial' : 'full'),
  },
  {
    id: 'dotnet-test',
    programs: ['dotnet'],
    sub: ['test'],
    kind: 'test',
    valueOptions: ['--filter', '-c', '--configuration', '-f', '--framework', '--logger', '-l'],
    scope: (a) => (a.options.has('--filter') ? 'partial' : a.operands.length > 0 ? 'unknown' : 'full'),
  },
  {
    id: 'rspec',
    programs: ['rspec'],
    kind: 'test',
    valueOptions: ['-e', '--example', '-t', '--tag', '-f', '--format', '--seed', '-r', '--require'],
    filters: ['-e', '--example', '-t', '--tag', '--only-failures', '--next-failure'],
  },
  {
    id: 'rails-test',
    programs: ['rails'],
    sub: ['test'],
    kind: 'test',
    valueOptions: ['-n', '--name', '-e'],
    filters: ['-n', '--name'],
  },
  {
    id: 'rake-test',
    programs: ['rake'],
    kind: 'test',
    when: (a) => a.operands.some((o) => o === 'test' || o === 'spec' || o.startsWith('test:')),
    scope: (a) => (a.operands.some((o) => o.startsWith('TEST=') || o.startsWith('test:')) ? 'partial' : 'full'),
  },
  {
    id: 'minitest',
    programs: ['ruby'],
    kind: 'test',
    valueOptions: ['-I', '-r'],
    when: (a) => a.operands.some((o) => /_test\.rb$|test_[^/]*\.rb$/.test(o)),
    scope: () => 'partial',
  },
  {
    id: 'phpunit',
    programs: ['phpunit', 'pest'],
    kind: 'test',
    valueOptions: ['--filter', '-c', '--configuration', '--testsuite', '--group'],
    filters: ['--filter', '--testsuite', '--group'],
  },
  {
    id: 'deno-test',
    programs: ['deno'],
    sub: ['test'],
    kind: 'test',
    valueOptions: ['--filter', '--config', '-c', '--reporter'],
    filters: ['--filter'],
  },
  {
    id: 'bun-test',
    programs: ['bun'],
    sub: ['test'],
    kind: 'test',
    valueOptions: ['-t', '--test-name-pattern', '--timeout', '--preload'],
    filters: ['-t', '--test-name-pattern'],
  },
  {
    id: 'django-test',
    programs: ['manage.py'],
    sub: ['test'],
    kind: 'test',
    valueOptions: ['--settings', '-k', '--parallel'],
    filters: ['-k'],
  },
  // Typecheckers.
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
  // Linters.
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
  // Builds.
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
  // Installs.
  {
    id: 'npm-install',
    programs: ['npm', 'pnpm', 'bun', 'yarn'],
    sub: [],
    kind: 'install',
    when: (a) => ['install', 'i', 'ci', 'add', 'in', 'isntall', 'update', 'up'].includes(a.operands[0] ?? ''),
    scope: always,
  },
  {
    id: 'pip-install',
    programs: ['pip', 'pip3', 'pipenv', 'conda', 'mamba'],
    sub: ['install'],
    kind: 'install',
    scope: always,
  },
  {
    id: 'uv-install',
    programs: ['uv'],
    kind: 'install',
    when: (a) => ['sync', 'add', 'pip', 'lock'].includes(a.operands[0] ?? ''),
    scope: always,
  },
  {
    id: 'poetry-install',
    programs: ['poetry', 'pdm', 'rye', 'hatch'],
    kind: 'install',
    when: (a) => ['install', 'add', 'sync', 'lock'].includes(a.operands[0] ?? ''),
    scope: always,
  },
  {
    id: 'cargo-fetch',
    programs: ['cargo'],
    kind: 'install',
    when: (a) => ['add', 'fetch', 'install'].includes(a.operands[0] ?? ''),
    scope: always,
  },
  {
    id: 'go-get',
    programs: ['go'],
    kind: 'install',
    when: (a) =>
      a.operands[0] === 'get' ||
      (a.operands[0] === 'mod' && (a.operands[1] === 'download' || a.operands[1] === 'tidy')),
    scope: always,
  },
  {
    id: 'bundle-install',
    programs: ['bundle', 'gem', 'composer', 'brew', 'apt-get', 'apt'],
    kind: 'install',
    when: (a) => ['install', 'add', 'require', 'update'].includes(a.operands[0] ?? ''),
    scope: always,
  },
  { id: 'dotnet-restore', programs: ['dotnet'], sub: ['restore'], kind: 'install', scope: always },
  // Migrations.
  {
    id: 'prisma',
    programs: ['prisma'],
    kind: 'migrate',
    when: (a) => a.operands[0] === 'migrate' || (a.operands[0] === 'db' && a.operands[1] === 'push'),
    scope: always,
  },
  {
    id: 'alembic',
    programs: ['alembic'],
    kind: 'migrate',
    when: (a) => a.operands[0] === 'upgrade' || a.operands[0] === 'downgrade',
    scope: always,
  },
  {
    id: 'rails-migrate',
    programs: ['rails', 'rake'],
    kind: 'migrate',
    when: (a) => a.operands.some((o) => o.startsWith('db:migrate') || o === 'db:rollback'),
    scope: always,
  },
  { id: 'django-migrate', programs: ['manage.py'], sub: ['migrate'], kind: 'migrate', scope: always },
  {
    id: 'knex',
    programs: ['knex', 'sequelize', 'typeorm', 'mikro-orm'],
    kind: 'migrate',
    when: (a) => a.operands.some((o) => /^(db:)?migrat/.test(o)),
    scope: always,
  },
  {
    id: 'drizzle-kit',
    programs: ['drizzle-kit'],
    kind: 'migrate',
    when: (a) => a.operands[0] === 'migrate' || a.operands[0] === 'push',
    scope: always,
  },
  {
    id: 'migrate-cli',
    programs: ['goose', 'dbmate', 'flyway', 'migrate'],
    kind: 'migrate',
    when: (a) => a.operands.some((o) => ['up', 'migrate', 'down', 'rollback'].includes(o)),
    scope: always,
  },
  {
    id: 'diesel',
    programs: ['diesel', 'sqlx'],
    kind: 'migrate',
    when: (a) => a.operands[0] === 'migration' || a.operands[0] === 'migrate',
    scope: always,
  },
  // Git and GitHub.
  { id: 'git-commit', programs: ['git'], sub: ['commit'], kind: 'commit', scope: always },
  { id: 'git-push', programs: ['git'], sub: ['push'], kind: 'push', scope: always },
  { id: 'gh-pr-create', programs: ['gh'], sub: ['pr', 'create'], kind: 'pr_create', scope: always },
];

const MAVEN_PHASES = new Set(['test', 'verify', 'install', 'package', 'compile', 'integration-test']);

/**
 * Names of package-manager scripts, make targets and task-runner tasks, and what running one is. The first
 * matching pattern wins; a script whose name says nothing is `other`.
 */
export const SCRIPT_KINDS: { pattern: RegExp; kind: RunKind }[] = [
  { pattern: /^(test|tests|t|tst|check:test|spec|e2e|unit|integration)$/, kind: 'test' },
  { pattern: /^(test|tests|e2e|spec)[:\-_.]|[:\-_.](test|tests|spec|e2e)$/, kind: 'test' },
  {
    pattern: /^(typecheck|type-check|types|check-types|tsc|check:types|types:check|typecheck:.*|mypy|pyright)$/,
    kind: 'typecheck',
  },
  { pattern: /^(lint|eslint|biome|ruff|clippy|stylelint)([:\-_.].*)?$|[:\-_.]lint$/, kind: 'lint' },
  { pattern: /^(build|compile|bundle|dist|all)([:\-_.].*)?$/, kind: 'build' },
  { pattern: /^(install|deps|bootstrap|setup)$/, kind: 'install' },
  { pattern: /^((db|database)[:\-_.])?(migrate|migrations?)([:\-_.].*)?$/, kind: 'migrate' },
];

/** A script or make target that runs the whole suite by its name, as opposed to one of several suites. */
const WHOLE_SCRIPTS = new Set(['test', 'tests', 't', 'tst', 'check', 'ci', 'typecheck', 'type-check', 'lint', 'build']);

export function scriptKind(name: string): RunKind {
  for (const { pattern, kind } of SCRIPT_KINDS) if (pattern.test(name)) return kind;
  return 'other';
}

/** Runners of a repository's scripts, make targets and tasks. */
export const SCRIPT_RUNNERS = ['npm-script', 'make', 'just', 'task', 'turbo', 'nx', 'composer-script'] as const;

export function scriptRun(runner: string, target: string, extra: string[]): Recognised {
  const kind = target === 'check' && (runner === 'make' || runner === 'just') ? 'test' : scriptKind(target);
  const scope: RunScope = extra.length > 0 ? 'partial' : WHOLE_SCRIPTS.has(target) ? 'full' : 'unknown';
  return { tool: runner, kind, scope, target };
}

// ---------------------------------------------------------------------------------------------------------
// Results read from output. Used only when the exit status does not speak for the run (a pipe, `|| true`,
// a `;`): the last summary line of a known runner decides. Failure signs are checked first.

export const OUTPUT_SIGNS: Partial<Record<RunKind, { fail: RegExp[]; pass: RegExp[] }>> = {
  test: {
    fail: [
      /\bTests?\s+\d+\s+failed\b/i, // vitest
      /\bTest Files\s+\d+\s+failed\b/i,
      /^Tests:\s+.*\b\d+ failed\b/m, // jest
      /^\s*\d+ failing\b/m, // mocha
      /=+ .*\b\d+ (failed|errors?)\b.* =+/, // pytest
      /^FAILED \S+/m,
      /^(FAIL|--- FAIL)\b/m, // go test, vitest/jest file lines
      /\btest result: FAILED\b/, // cargo test
      /^# fail [1-9]/m, // node --test
      /^\s*\d+ examples?, [1-9]\d* failures?/m, // rspec
      /\b[1-9]\d* (failures|errors), \d+ (errors|skips)\b/, // minitest
      /^(FAILURES!|ERRORS!)$/m, // phpunit
      /\bBUILD FAILED\b|\bTests run: \d+, Failures: [1-9]/, // gradle, maven
      /\bFailed!\s+- Failed:\s+[1-9]/, // dotnet test
      /^\s*\d+ failed\b/m, // playwright
      /\bnpm ERR! (Test failed|code ELIFECYCLE)|ELIFECYCLE\b.*\bTest failed/,
    ],
    pass: [
      /\bTests?\s+\d+\s+passed\b/i,
      /^Tests:\s+\d+ passed\b/m,
      /^\s*\d+ passing\b/m,
      /=+ \d+ passed\b.* =+/,
      /^ok\s+\S+/m,
      /\btest result: ok\b/,
      /^# pass \d+/m,
      /^\s*\d+ examples?, 0 failures/m,
      /\b\d+ runs?, \d+ assertions, 0 failures, 0 errors/,
      /^OK \(\d+ tests?/m,
      /\bBUILD SUCCESS(FUL)?\b/,
      /\bPassed!\s+- Failed:\s+0\b/,
      /^\s*\d+ passed\b/m,
      /^Ran \d+ tests? in [\d.]+s\s+OK/m, // unittest
    ],
  },
  typecheck: {
    fail: [
      /\berror TS\d+:/,
      /^Found [1-9]\d* errors?\b/m,
      /\b[1-9]\d* errors?, \d+ warnings?/,
      /^error(\[E\d+\])?:/m,
      /\bsvelte-check found [1-9]\d* errors?/,
    ],
    pass: [
      /^Success: no issues found/m,
      /\b0 errors, \d+ warnings?/,
      /^Found 0 errors\b/m,
      /\bFinished .* target\(s\)/,
    ],
  },
  lint: {
    fail: [
      /✖ \d+ problems? \([1-9]\d* errors?/,
      /^Found [1-9]\d* errors?\b/m,
      /^error(\[\w+\])?:/m,
      /\b[1-9]\d* offenses? detected\b/,
      /^Checked \d+ files? .*Found [1-9]\d* errors?/m,
    ],
    pass: [
      /^All checks passed!/m,
      /\bno offenses detected\b/,
      /^Checked \d+ files? in \S+\. No fixes applied\./m,
      /^0 problems\b/m,
    ],
  },
  build: {
    fail: [/\bBUILD FAILED\b/, /^error(\[E\d+\])?:/m, /\bBuild failed\b/i, /\berror TS\d+:/],
    pass: [
      /\bBUILD SUCCESS(FUL)?\b/,
      /\bbuilt in [\d.]+\s*m?s\b/,
      /\bFinished .* target\(s\)/,
      /\bCompiled successfully\b/i,
    ],
  },
};

/** Files an edit counts as test code: picomatch globs over repository-relative paths. */
export const TEST_FILE_GLOBS = [
  '**/{test,tests,__tests__,spec,specs,__mocks__,testdata,e2e}/**',
  '**/*.{test,spec}.{js,jsx,ts,tsx,mjs,cjs,mts,cts}',
  '**/*_test.{go,py,rb,exs}',
  '**/test_*.py',
  '**/*_spec.rb',
  '**/*{Test,Tests,IT}.{java,kt,scala,cs}',
  '**/*Test.php',
  '**/conftest.py',
];

/** Files whose edits never invalidate a test run: prose, not code. */
export const PROSE_FILE_GLOBS = [
  '**/*.{md,mdx,markdown,rst,txt,adoc}',
  '**/{docs,doc}/**',
  '**/{LICENSE,CHANGELOG,AUTHORS}*',
];
