// The evaluation of a pull request: rows from the validators, then the verdict.
import type { Evaluation, VerdictInput } from './schema.js';

/** Pure and deterministic: the same input gives the same evaluation, rows in the same order. */
export function evaluate(input: VerdictInput): Evaluation {
  void input;
  throw new Error('evaluate: not implemented yet');
}
