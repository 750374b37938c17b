// When two commit SHAs name the same commit, as a session and a pull request spell them: a session often knows
// only the abbreviated SHA git printed (`[main 1a2b3c4] …`), GitHub the whole one. The verdict's commit
// provenance and the link of a session to the PR that holds its commit (issue 41) both match by this.

/** Characters of a SHA at least, below which a prefix says too little to match. */
export const MIN_SHA_CHARS = 7;

/** The first MIN_SHA_CHARS of a SHA, lower-case: what the stores index commits by. */
export const shaPrefix = (sha: string): string => sha.slice(0, MIN_SHA_CHARS).toLowerCase();

/** One SHA is a prefix of the other (case aside), and both have at least MIN_SHA_CHARS characters. */
export function sameCommit(a: string, b: string): boolean {
  if (a.length < MIN_SHA_CHARS || b.length < MIN_SHA_CHARS) return false;
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x.startsWith(y) || y.startsWith(x);
}
