// Pull-request state reported by the CLI (issue 45 §4). A gateway without a GitHub App hears of no PR's state,
// merge or revert, so every PR reads "unknown". At sync the CLI reads the PRs its sessions link to with `gh pr
// view` and sends them here. They are stored as reported by the CLI until the App's webhook speaks for the same
// PR: a webhook always replaces a CLI report, a CLI report never replaces a webhook's state (store.ts,
// upsertPullRequest; docs/github-app.md). Also whether the factory has an App to hear from (githubAppStatus).
import type { FactoryContext } from '../../server/context.js';
import { isGitHubConfigured } from '../../codehost/github.js';
import { listBindings } from '../repositories/installations.js';
import type { ReportedPullRequest } from './schema.js';
import { applyPullRequest } from './state.js';

export interface ReportResult {
  /** Reports stored: a PR the gateway knew nothing of, or a newer report of one the CLI reported before. */
  stored: number;
  /** Reports left aside: the App's webhook state is stored for that PR, or a newer report is. */
  ignored: number;
}

const ms = (iso: string) => Date.parse(iso);

export async function reportPullRequests(
  ctx: FactoryContext,
  reports: readonly ReportedPullRequest[],
): Promise<ReportResult> {
  const result: ReportResult = { stored: 0, ignored: 0 };
  for (const r of reports) {
    const merged = r.state === 'merged';
    const outcome = await applyPullRequest(
      ctx,
      { orgId: ctx.orgId, appId: ctx.appId },
      {
        repository: r.repository,
        number: r.number,
        url: r.url,
        title: r.title,
        // The CLI sends no body: a revert is then recognised by GitHub's title `Revert "<title>"` alone.
        body: null,
        author: r.author,
        headBranch: r.branch,
        headSha: r.headSha,
        baseBranch: r.baseBranch,
        open: r.state === 'open',
        merged,
        createdAt: ms(r.openedAt),
        closedAt: r.closedAt === null ? (merged && r.mergedAt !== null ? ms(r.mergedAt) : null) : ms(r.closedAt),
        mergedAt: r.mergedAt === null ? null : ms(r.mergedAt),
        updatedAt: ms(r.updatedAt),
      },
      'cli',
    );
    if (outcome === 'stale') result.ignored += 1;
    else result.stored += 1;
  }
  return result;
}

/**
 * Whether PR state can come from the GitHub App here: `connected` (configured on the gateway and an
 * installation bound to this factory), `not_bound` (configured, no installation bound to this factory) or
 * `not_configured` (no App on this gateway).
 */
export type GithubAppStatus = 'connected' | 'not_bound' | 'not_configured';

export async function githubAppStatus(ctx: FactoryContext): Promise<GithubAppStatus> {
  if (!isGitHubConfigured(ctx.gateway)) return 'not_configured';
  return (await listBindings(ctx)).length > 0 ? 'connected' : 'not_bound';
}
