// The verdict's constants, apart from its TypeBox schemas (schema.ts re-exports them): what runs at capture and
// in `attest verify` needs these values, and the schemas' types only, so neither loads TypeBox.
import type { Policy, PolicyLevel, RunKind, Verdict } from './schema.js';

export const RUN_KINDS: readonly RunKind[] = [
  'test',
  'typecheck',
  'lint',
  'build',
  'install',
  'migrate',
  'commit',
  'push',
  'pr_create',
  'other',
];

// The facts as session-document events (data only, kept at the redacted tier); docs/spec/API.md §11.
export const FACTS_EVENT = {
  /** Marks a document whose facts were computed at capture: absent runs then mean none ran. */
  marker: 'verify_facts',
  run: 'verify_run',
  edit: 'verify_edit',
  commit: 'verify_commit',
  bypass: 'verify_bypass',
} as const;

export const BUILTIN_VALIDATORS = [
  'tests-after-last-edit',
  'red-then-green',
  'no-test-tampering',
  'hooks-kept',
  'typecheck-after-last-edit',
  'lint-after-last-edit',
  'commit-provenance',
  'ci-green',
  'criteria-proven',
  'findings-settled',
] as const;
export type BuiltinValidator = (typeof BUILTIN_VALIDATORS)[number];

export const VERDICTS: readonly Verdict[] = ['clean', 'review', 'unverifiable', 'waiting', 'none'];

/** The level of each built-in validator when the policy says nothing of it. */
export const DEFAULT_LEVELS: Readonly<Record<string, PolicyLevel>> = {
  'tests-after-last-edit': 'warn',
  'red-then-green': 'info',
  'no-test-tampering': 'warn',
  'hooks-kept': 'warn',
  'typecheck-after-last-edit': 'warn',
  'lint-after-last-edit': 'warn',
  'commit-provenance': 'warn',
  'ci-green': 'warn',
  'criteria-proven': 'warn',
  'findings-settled': 'warn',
};

/** The policy of a repository without policy files: every built-in validator at its default level. */
export function defaultPolicy(): Policy {
  return { levels: { ...DEFAULT_LEVELS }, custom: [], errors: [] };
}
