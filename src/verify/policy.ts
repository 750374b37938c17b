// The repository's policy: `.attest/policy.yaml` and `.attest/validators/*.yaml`, text in, Policy out.
import type { Policy, PolicyLevel } from './schema.js';

export const DEFAULT_LEVELS: Readonly<Record<string, PolicyLevel>> = {};

/** Reads the policy files (paths as in the repository); a broken file becomes an error, never a throw. */
export function parsePolicy(files: { path: string; text: string }[]): Policy {
  void files;
  throw new Error('parsePolicy: not implemented yet');
}
