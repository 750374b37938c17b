// The vocabulary of the tool table (./index.ts): what an entry says, and the scopes entries share.
import type { RunKind, RunScope } from '../schema.js';

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
export const WHOLE_SUITE = new Set([
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

export const always = (): RunScope => 'full';
