// Pull-request state as the code host reports it: apply webhook facts (a PR opened, edited, closed,
// merged; a check suite or run finished), detect reverts, and derive each PR's CI verdict.
import crypto from 'node:crypto';
import type { RequestContext } from '../../server/context.js';
import { normalizeRepository } from '../../codehost/repository-name.js';
import * as store from './store.js';
import type { Db } from '../../db/connection.js';
import { checksChanged, refreshPrOutcomes, revertsChanged } from './outcome-aggregates.js';
import { ciVerdict, type CiVerdict } from './ci-verdict.js';

export { ciVerdict, type CiVerdict };

export interface FactoryRef {
  orgId: string;
  appId: string;
}

export interface PullRequestFact {
  /** `owner/repo` (compared case-insensitively). */
  repository: string;
  number: number;
  url: string;
  title: string;
  body: string | null;
  author: string | null;
  headBranch: string;
  headSha: string;
  baseBranch: string;
  /** The base commit GitHub reports (the verdict reads the repository's policy there); absent from older facts. */
  baseSha?: string | null;
  open: boolean;
  merged: boolean;
  createdAt: number;
  closedAt: number | null;
  mergedAt: number | null;
  updatedAt: number;
}

export interface CheckFact {
  repository: string;
  kind: 'suite' | 'run';
  id: string;
  headSha: string;
  name: string;
  status: string;
  conclusion: string | null;
}

export interface RevertTarget {
  number: number | null;
  title: string | null;
}

const REVERT_NUMBER = /\brevert(?:s|ing|ed)?:?\s+(?:(?:pr|pull request)\s+)?(?:([\w.-]+\/[\w.-]+))?#(\d+)/gi;
const REVERT_TITLE = /^Revert\s+"(.+)"\s*$/;

/**
 * What a merged PR says it reverts: `Reverts owner/repo#12` / `reverts #12` in its title or body (GitHub's
 * revert button writes the first), or a title `Revert "<title of the reverted PR>"`.
 */
export function revertTargets(repository: string, title: string, body: string | null): RevertTarget[] {
  const out: RevertTarget[] = [];
  const repo = normalizeRepository(repository);
  for (const text of [title, body ?? '']) {
    for (const m of text.matchAll(REVERT_NUMBER)) {
      if (m[1] && normalizeRepository(m[1]) !== repo) continue;
      const n = Number(m[2]);
      if (Number.isSafeInteger(n) && n > 0 && !out.some((t) => t.number === n)) out.push({ number: n, title: null });
    }
  }
  const titled = REVERT_TITLE.exec(title.trim());
  if (titled?.[1]) out.push({ number: null, title: titled[1] });
  return out;
}

export async function applyPullRequest(
  ctx: RequestContext,
  factory: FactoryRef,
  fact: PullRequestFact,
  source: store.PullRequestStateSource = 'app',
): Promise<'inserted' | 'updated' | 'stale'> {
  // The PR's row, what it reverts and the aggregates that count them change in one transaction.
  return ctx.db.isTransaction
    ? applyPullRequestIn(ctx.db, ctx.clock.now(), factory, fact, source)
    : ctx.db.transaction().execute((trx) => applyPullRequestIn(trx, ctx.clock.now(), factory, fact, source));
}

async function applyPullRequestIn(
  db: Db,
  now: number,
  factory: FactoryRef,
  fact: PullRequestFact,
  source: store.PullRequestStateSource,
): Promise<'inserted' | 'updated' | 'stale'> {
  const repository = normalizeRepository(fact.repository);
  const outcome = await store.upsertPullRequest(db, {
    id: crypto.randomUUID(),
    org_id: factory.orgId,
    app_id: factory.appId,
    repository,
    number: fact.number,
    url: fact.url,
    title: fact.title,
    author: fact.author,
    head_branch: fact.headBranch,
    head_sha: fact.headSha.toLowerCase(),
    base_branch: fact.baseBranch,
    base_sha: fact.baseSha?.toLowerCase() ?? null,
    state: fact.merged ? 'merged' : fact.open ? 'open' : 'closed',
    merged: fact.merged ? 1 : 0,
    opened_at: fact.createdAt,
    closed_at: fact.closedAt,
    merged_at: fact.mergedAt,
    source_updated_at: fact.updatedAt,
    updated_at: now,
    state_source: source,
  });
  if (outcome === 'stale') return outcome;
  if (fact.merged) {
    const refs = revertTargets(repository, fact.title, fact.body).map((t) => ({
      id: crypto.randomUUID(),
      app_id: factory.appId,
      repository,
      reverting_number: fact.number,
      target_number: t.number,
      target_title: t.title,
      merged_at: fact.mergedAt ?? fact.updatedAt,
    }));
    const before = await store.replaceRevertRefs(db, factory.appId, repository, fact.number, refs);
    await revertsChanged(db, factory.appId, repository, [...before, ...refs]);
  }
  await refreshPrOutcomes(db, factory.appId, [{ repository, number: fact.number }]);
  return outcome;
}

export async function applyCheck(ctx: RequestContext, factory: FactoryRef, fact: CheckFact): Promise<void> {
  const repository = normalizeRepository(fact.repository);
  const row = {
    app_id: factory.appId,
    repository,
    check_id: `${fact.kind}:${fact.id}`,
    head_sha: fact.headSha.toLowerCase(),
    name: fact.name,
    status: fact.status,
    conclusion: fact.conclusion,
    updated_at: ctx.clock.now(),
  };
  // The CI of the PRs at the check's head (and at the head it moved from) moves with it, in one transaction.
  const write = async (db: Db) => {
    const was = await store.upsertCheck(db, row);
    await checksChanged(db, factory.appId, repository, [row.head_sha, ...(was ? [was] : [])]);
  };
  await (ctx.db.isTransaction ? write(ctx.db) : ctx.db.transaction().execute(write));
}

/** A stored pull request with its derived revert and CI state (what the PR answers are built from). */
export interface DescribedPullRequest {
  repository: string;
  number: number;
  url: string;
  title: string;
  author: string | null;
  branch: string;
  baseBranch: string;
  headSha: string;
  state: store.PullRequestState;
  merged: boolean;
  reverted: boolean;
  revertedBy: number | null;
  ciGreen: boolean | null;
  ci: CiVerdict;
  openedAt: string;
  closedAt: string | null;
  mergedAt: string | null;
  /** Who reported this state: the GitHub App (`github_app`) or the CLI at sync (`cli`). */
  stateSource: 'github_app' | 'cli';
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The stored PRs with their derived revert and CI state. */
export async function describePullRequests(
  ctx: RequestContext,
  appId: string,
  rows: readonly store.PullRequestRow[],
): Promise<Map<string, DescribedPullRequest>> {
  const { summaries, reverts } = await store.checksAndReverts(ctx.db, appId, rows);
  const out = new Map<string, DescribedPullRequest>();
  for (const r of rows) {
    const key = `${r.repository}#${r.number}`;
    const ci = ciVerdict(summaries, r.repository, r.head_sha);
    out.set(key, {
      repository: r.repository,
      number: r.number,
      url: r.url,
      title: r.title,
      author: r.author,
      branch: r.head_branch,
      baseBranch: r.base_branch,
      headSha: r.head_sha,
      state: r.state,
      merged: r.merged === 1,
      reverted: reverts.has(key),
      revertedBy: reverts.get(key) ?? null,
      ciGreen: ci === 'green' ? true : ci === 'red' ? false : null,
      ci,
      openedAt: new Date(r.opened_at).toISOString(),
      closedAt: iso(r.closed_at),
      mergedAt: iso(r.merged_at),
      stateSource: r.state_source === 'cli' ? 'cli' : 'github_app',
    });
  }
  return out;
}

export async function pullRequestState(
  ctx: RequestContext,
  appId: string,
  repository: string,
  number: number,
): Promise<DescribedPullRequest | null> {
  const row = await store.findPullRequest(ctx.db, appId, normalizeRepository(repository), number);
  if (!row) return null;
  return (await describePullRequests(ctx, appId, [row])).get(`${row.repository}#${row.number}`) ?? null;
}
