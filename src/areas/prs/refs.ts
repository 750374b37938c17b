// The pull requests a session names itself (outcome.prNumber/prUrl, outcome.prs[], pr_linked events), parsed
// from the sessions area's `pr_refs` JSON. Pure: used by attribution at read time, by the ingest that keeps
// `session_pr_refs` (the same links as rows, for SQL) and by the migration that backfilled it.
import { normalizeRepository } from '../../codehost/repository-name.js';

export interface PrKey {
  repository: string;
  number: number;
}

const PR_URL = /^https?:\/\/[^/]+\/([^/\s]+)\/([^/\s]+)\/pulls?\/(\d+)/i;

/** The PRs a session names itself: the repository from the PR URL when given, else the session's own. */
export function namedPrs(row: { repo: string; pr_refs: string }): (PrKey & { url: string | null })[] {
  let refs: unknown;
  try {
    refs = JSON.parse(row.pr_refs);
  } catch {
    return [];
  }
  if (!Array.isArray(refs)) return [];
  const out: (PrKey & { url: string | null })[] = [];
  for (const ref of refs) {
    if (!ref || typeof ref !== 'object') continue;
    const { prNumber, prUrl } = ref as { prNumber?: unknown; prUrl?: unknown };
    if (typeof prNumber !== 'number' || !Number.isSafeInteger(prNumber) || prNumber <= 0) continue;
    const url = typeof prUrl === 'string' ? prUrl : null;
    const m = url ? PR_URL.exec(url) : null;
    const repository = m ? normalizeRepository(`${m[1]}/${m[2]}`) : row.repo;
    if (!repository) continue;
    if (!out.some((o) => o.repository === repository && o.number === prNumber))
      out.push({ repository, number: prNumber, url });
  }
  return out;
}
