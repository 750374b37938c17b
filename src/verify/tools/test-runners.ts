// Test runners, by program. Part of the tool table: ./index.ts assembles it.
import { filtered, type ToolEntry } from './entry.js';

const MAVEN_PHASES = new Set(['test', 'verify', 'install', 'package', 'compile', 'integration-test']);

export const TEST_RUNNERS: ToolEntry[] = [
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
];
