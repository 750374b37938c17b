// The verdict (issue 39, API.md §11): facts of a session, the repository's policy, and the evaluation of a
// pull request. Pure functions: nothing here reads files, the network or the clock, and nothing executes.
export * from './schema.js';
export { factsOfDocument, factsEvents } from './facts.js';
export { parsePolicy } from './policy.js';
export { DEFAULT_LEVELS } from './constants.js';
export { evaluate } from './evaluate.js';
export { MIN_SHA_CHARS, sameCommit, shaPrefix } from './commits.js';
