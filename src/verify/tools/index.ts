// The one table of tools the verdict recognises. To teach it a new test runner, linter or build tool, add an
// entry to the table of its kind (./test-runners.ts, ./checks.ts, ./setup.ts; a new kind gets its file and a
// line in TOOLS below); scripts of package managers, make targets and task runners are named by SCRIPT_KINDS;
// OUTPUT_SIGNS reads a run's result from its output when a pipe hides the exit status; TEST_FILE_GLOBS says
// which edited files are tests.
import type { RunKind, RunScope } from '../schema.js';
import { BUILDS, LINTERS, TYPECHECKERS } from './checks.js';
import type { Recognised, ToolEntry } from './entry.js';
import { GIT_STEPS, INSTALLS, MIGRATIONS } from './setup.js';
import { TEST_RUNNERS } from './test-runners.js';

export { filtered, type Args, type Recognised, type ToolEntry } from './entry.js';

export const TOOLS: ToolEntry[] = [
  ...TEST_RUNNERS,
  ...TYPECHECKERS,
  ...LINTERS,
  ...BUILDS,
  ...INSTALLS,
  ...MIGRATIONS,
  ...GIT_STEPS,
];

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
