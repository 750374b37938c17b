// A pull request's evidence for download (GET /v1/prs/{owner}/{repo}/{number}/export): its state, its linked
// sessions streamed in keyset pages, its artifacts and emitted results.
import { normalizeRepository } from '../../codehost/repository-name.js';
import type { FactoryContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { listPullRequestArtifacts } from '../artifacts/service.js';
import { listChecks } from '../results/service.js';
import * as store from './attribution-store.js';
import type { PrEvidence, PullRequestSession } from './schema.js';
import { defaultUrl, keyOf, prSessionWire } from './service.js';
import { describePullRequests } from './state.js';
import * as prStore from './store.js';

/** A PR's evidence with its linked sessions read from the store a page at a time, oldest first. */
export type PrEvidenceExport = Omit<PrEvidence, 'sessions'> & { sessions: AsyncIterable<PullRequestSession> };

export const PR_EXPORT_BATCH = 500;

/**
 * A PR's evidence for download: its state, its linked sessions (streamed by keyset pages), its artifacts and
 * emitted results. 404 pull_request_not_found as GET /v1/prs/{owner}/{repo}/{number}, decided before any byte.
 */
export async function exportPullRequest(
  ctx: FactoryContext,
  owner: string,
  repo: string,
  number: number,
): Promise<PrEvidenceExport> {
  const repository = normalizeRepository(`${owner}/${repo}`);
  const key = { repository, number };
  const row = await prStore.findPullRequest(ctx.db, ctx.appId, repository, number);
  const linkPr = row
    ? { head_branch: row.head_branch, closed_at: row.closed_at === null ? null : Number(row.closed_at) }
    : null;
  const spellings = [...new Set([`${owner}/${repo}`, repository])];
  const [firstPage, artifactLists, resultLists] = await Promise.all([
    store.linkedSessionsAfter(ctx.db, ctx.appId, key, linkPr, null, PR_EXPORT_BATCH),
    Promise.all(spellings.map((r) => listPullRequestArtifacts(ctx, r, number))),
    Promise.all(spellings.map((r) => listChecks(ctx, r, number))),
  ]);
  // Known from its sessions, its webhook state, or its evidence alone, as GET /v1/prs/{owner}/{repo}/{number}.
  if (
    !row &&
    firstPage.length === 0 &&
    artifactLists.every((l) => l.length === 0) &&
    resultLists.every((l) => l.length === 0)
  ) {
    throw apiError('pull_request_not_found', `No pull request ${repository}#${number} is known to this factory.`);
  }
  const state = row ? (await describePullRequests(ctx, ctx.appId, [row])).get(keyOf(key)) : undefined;
  const wire = (s: store.LinkedSessionRow) =>
    prSessionWire(s, [
      ...(Number(s.by_branch) ? ['branch' as const] : []),
      ...(Number(s.by_commit) ? ['commit' as const] : []),
      ...(Number(s.by_name) ? ['session' as const] : []),
    ]);
  const sessions = (async function* pages() {
    let page = firstPage;
    for (;;) {
      for (const s of page) yield wire(s);
      if (page.length < PR_EXPORT_BATCH) return;
      const last = page[page.length - 1]!;
      page = await store.linkedSessionsAfter(
        ctx.db,
        ctx.appId,
        key,
        linkPr,
        { startedAt: Number(last.started_at), id: last.id },
        PR_EXPORT_BATCH,
      );
    }
  })();
  return {
    pullRequest: {
      repository,
      number,
      url: state?.url ?? defaultUrl(key),
      state: state?.state ?? 'unknown',
      title: state?.title ?? null,
      branch: state?.branch ?? null,
      baseBranch: state?.baseBranch ?? null,
      headSha: state?.headSha ?? null,
      author: state?.author ?? null,
      merged: state ? state.merged : null,
      reverted: state ? state.reverted : null,
      revertedBy: state?.revertedBy ?? null,
      ci: state?.ci ?? 'unknown',
      openedAt: state?.openedAt ?? null,
      closedAt: state?.closedAt ?? null,
      mergedAt: state?.mergedAt ?? null,
    },
    sessions,
    artifacts: artifactLists.flat(),
    results: resultLists.flat(),
  };
}
