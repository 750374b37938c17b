// Session ↔ pull-request attribution and per-PR outcomes. A session links to a PR through what it names
// itself (outcome.prNumber/prUrl/prs and pr_linked events, kept by the sessions area as `pr_refs`), or by
// working on the PR's head branch in the same repository. PR state (open/closed/merged, reverted, CI) comes
// from the code host's webhooks (state.ts).
import type { Db } from '../../db/connection.js';
import type { CostStatus } from '../../pricing/cost.js';
import type { FactoryContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { listPullRequestArtifacts } from '../artifacts/service.js';
import { listChecks } from '../results/service.js';
import { normalizeRepository } from '../../codehost/repository-name.js';
import { describePullRequests, type CiVerdict, type DescribedPullRequest } from './state.js';
import type { Artifact } from '../artifacts/schema.js';
import type { Check } from '../results/schema.js';
import type { OutcomesQuery, PullRequestDetail, PullRequestOutcome, PullRequestSession } from './schema.js';
import * as store from './attribution-store.js';
import { sessionsLinkedByCommit, type CommitLinkRow } from './commit-links.js';
import { namedPrs, type PrKey } from './refs.js';
import * as spend from './spend-store.js';
import { refreshSessionSpend, spendOfDays } from './spend-aggregates.js';
import { outcomesByVerdict, refreshPrOutcomes, sessionsChanged, type LinkFields } from './outcome-aggregates.js';
import * as prStore from './store.js';

const DAY_MS = 86_400_000;

/** How a session is linked to a PR: it names it, it ran on its head branch, or it made one of its commits. */
export type LinkSource = 'session' | 'branch' | 'commit';

export const keyOf = (k: PrKey) => `${k.repository}#${k.number}`;

export { namedPrs };

export function defaultUrl(k: PrKey): string {
  return /^[^/]+\/[^/]+$/.test(k.repository)
    ? `https://github.com/${k.repository}/pull/${k.number}`
    : `https://${k.repository}/pull/${k.number}`;
}

/**
 * The pull requests sessions (by their own session ids) link to: the ones they name, and the known ones
 * whose head branch they worked on in the same repository. For triggers (the PR comment of a synced session).
 */
export async function pullRequestsOfSessions(ctx: FactoryContext, sessionIds: readonly string[]): Promise<PrKey[]> {
  const out = new Map<string, PrKey>();
  // 200 at a time: on SQLite the statement is a union of one select an id, and SQLite takes at most 500.
  for (let i = 0; i < sessionIds.length; i += 200) {
    const rows = await store.sessionsBySessionIds(ctx.db, ctx.appId, [...new Set(sessionIds.slice(i, i + 200))]);
    for (const row of rows)
      for (const k of namedPrs(row)) out.set(keyOf(k), { repository: k.repository, number: k.number });
    const repos = [...new Set(rows.map((r) => r.repo).filter(Boolean))];
    for (const pr of await store.pullRequestsOnBranches(
      ctx.db,
      ctx.appId,
      repos,
      rows.map((r) => r.branch),
    )) {
      const onIt = rows.some(
        (r) =>
          r.repo === pr.repository &&
          r.branch === pr.head_branch &&
          (pr.closed_at === null || Number(r.started_at) <= Number(pr.closed_at)),
      );
      if (onIt) out.set(keyOf(pr), { repository: pr.repository, number: Number(pr.number) });
    }
  }
  return [...out.values()];
}

// ---- outcome labels (the session list's prOutcomes, spec part 2) ------------------------------------------
// Each outcome is { label, score } with score in [0, 1]: 1 the good outcome, 0 the bad one, 0.5 not decided
// yet or not known (so averages over sessions are not pulled either way by missing data).

export interface Scored {
  label: string;
  score: number;
}

export interface PrOutcome {
  prNumber: number;
  prUrl: string;
  ciGreen: Scored;
  merged: Scored;
  reverted: Scored;
}

const CI_SCORES: Record<CiVerdict, Scored> = {
  green: { label: 'green', score: 1 },
  red: { label: 'red', score: 0 },
  pending: { label: 'pending', score: 0.5 },
  unknown: { label: 'unknown', score: 0.5 },
};

export function outcomeOf(key: PrKey, url: string | null, state: DescribedPullRequest | undefined): PrOutcome {
  const prUrl = state?.url ?? url ?? defaultUrl(key);
  if (!state) {
    const unknown = { label: 'unknown', score: 0.5 };
    return { prNumber: key.number, prUrl, ciGreen: unknown, merged: unknown, reverted: unknown };
  }
  return {
    prNumber: key.number,
    prUrl,
    ciGreen: CI_SCORES[state.ci],
    merged: state.merged
      ? { label: 'merged', score: 1 }
      : state.state === 'open'
        ? { label: 'open', score: 0.5 }
        : { label: 'closed', score: 0 },
    reverted: !state.merged
      ? { label: 'unknown', score: 0.5 }
      : state.reverted
        ? { label: 'reverted', score: 0 }
        : { label: 'kept', score: 1 },
  };
}

/** What prOutcomesForRows needs of a session: the summary row's fields that link it to PRs. */
export type PrOutcomeSession = Pick<store.SessionLinkRow, 'id' | 'repo' | 'branch' | 'pr_refs' | 'started_at'>;

/**
 * `prOutcomes` of each session of a page the caller has just read in this factory (the session list's):
 * session row id (traceId) → the outcomes of every PR the session links to, ordered by PR number ([] for
 * none). The rows are not read a second time: 0.3-0.5 ms of every list request at 100k sessions.
 */
export async function prOutcomesForRows(
  ctx: FactoryContext,
  sessions: readonly PrOutcomeSession[],
  linked?: store.PageLinks,
): Promise<Map<string, PrOutcome[]>> {
  const out = new Map<string, PrOutcome[]>(sessions.map((r) => [r.id, []]));
  const rows = [...new Map(sessions.map((r) => [r.id, r])).values()];
  if (rows.length === 0) return out;
  const ownNamed = new Map(rows.map((r) => [r.id, namedPrs(r)]));
  const ownKeys = [...ownNamed.values()].flat();
  const { commitLinks, pullRequests: read } = linked
    ? await withNamed(ctx, linked, ownKeys)
    : await store.pageLinks(
        ctx.db,
        ctx.appId,
        rows.map((r) => r.id),
        [...new Set([...ownKeys.map((k) => k.repository), ...rows.map((r) => r.repo).filter(Boolean)])],
        ownKeys.map((k) => k.number),
        rows.map((r) => r.branch),
      );
  // No session of the page names a PR, links to one by commit or ran on a PR's head branch: every list is empty.
  if (ownKeys.length === 0 && commitLinks.length === 0 && read.length === 0) return out;
  const byCommit = new Map<string, PrKey[]>();
  for (const l of commitLinks) {
    const list = byCommit.get(l.session_id) ?? [];
    list.push({ repository: l.repository, number: l.number });
    byCommit.set(l.session_id, list);
  }
  const named = new Map(
    rows.map((r) => [r.id, [...ownNamed.get(r.id)!, ...(byCommit.get(r.id) ?? []).map((k) => ({ ...k, url: null }))]]),
  );
  const keys = [...named.values()].flat();
  const namedKeys = new Set(keys.map(keyOf));
  const rowBranches = new Set(rows.map((r) => `${r.repo}\u0000${r.branch}`));
  // The statement's repository × number and repository × branch sets hold more than was asked: keep the PRs a
  // session names, and those on the head branch of a listed session's repository.
  const onBranch = (p: (typeof read)[number]) =>
    p.repository !== '' && p.head_branch !== '' && rowBranches.has(`${p.repository}\u0000${p.head_branch}`);
  const byBranch = read.filter(onBranch);
  const prRows = new Map(
    read.filter((p) => namedKeys.has(keyOf(p)) || onBranch(p)).map((p) => [`${p.repository}#${p.number}`, p]),
  );
  const states = await describePullRequests(ctx, ctx.appId, [...prRows.values()]);
  for (const row of rows) {
    const links = new Map<string, PrOutcome>();
    for (const k of named.get(row.id) ?? [])
      if (!links.has(keyOf(k))) links.set(keyOf(k), outcomeOf(k, k.url, states.get(keyOf(k))));
    for (const pr of byBranch) {
      if (pr.repository !== row.repo || pr.head_branch !== row.branch) continue;
      if (pr.closed_at !== null && row.started_at > pr.closed_at) continue;
      const k = { repository: pr.repository, number: pr.number };
      if (!links.has(keyOf(k))) links.set(keyOf(k), outcomeOf(k, pr.url, states.get(keyOf(k))));
    }
    out.set(
      row.id,
      [...links.values()].sort((a, b) => a.prNumber - b.prNumber),
    );
  }
  return out;
}

/**
 * The links a page's read brought (store.pageLinksOfRelation: commit links, PRs by branch and by commit) and the
 * rows of the PRs its sessions name that were not among them, read here only when there are such.
 */
async function withNamed(
  ctx: FactoryContext,
  linked: store.PageLinks,
  named: readonly PrKey[],
): Promise<store.PageLinks> {
  const have = new Set(linked.pullRequests.map(keyOf));
  const missing = named.filter((k) => !have.has(keyOf(k)));
  if (missing.length === 0) return linked;
  const more = await store.pullRequestsNumbered(
    ctx.db,
    ctx.appId,
    [...new Set(missing.map((k) => k.repository))],
    missing.map((k) => k.number),
  );
  return {
    commitLinks: linked.commitLinks,
    pullRequests: [...linked.pullRequests, ...more.filter((p) => !have.has(keyOf(p)))],
  };
}

// ---- PR outcomes list and one PR --------------------------------------------------------------------------

interface Attributed {
  key: PrKey;
  url: string | null;
  sessions: Map<string, { row: store.SessionLinkRow; via: Set<LinkSource> }>;
}

function attribute(
  named: readonly store.SessionLinkRow[],
  onBranch: readonly store.BranchLinkRow[],
  byCommit: readonly CommitLinkRow[],
): Map<string, Attributed> {
  const prs = new Map<string, Attributed>();
  const add = (key: PrKey, url: string | null, row: store.SessionLinkRow, via: LinkSource) => {
    const k = keyOf(key);
    let pr = prs.get(k);
    if (!pr) {
      pr = { key, url, sessions: new Map() };
      prs.set(k, pr);
    }
    if (!pr.url && url) pr.url = url;
    const s = pr.sessions.get(row.id) ?? { row, via: new Set<LinkSource>() };
    s.via.add(via);
    pr.sessions.set(row.id, s);
  };
  for (const row of named)
    for (const k of namedPrs(row)) add({ repository: k.repository, number: k.number }, k.url, row, 'session');
  for (const row of onBranch)
    add({ repository: row.pr_repository, number: Number(row.pr_number) }, null, row, 'branch');
  for (const row of byCommit) add({ repository: row.pr_repository, number: row.pr_number }, null, row, 'commit');
  return prs;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const usd = (micros: number) => Math.round(micros) / 1_000_000;

/**
 * The cost status of a sum of sessions' costs, in the sessions' own terms (costStatus, docs/spec/API.md):
 * complete when every session's is (none: nothing is missing), unpriced when every session's is, else
 * partial: part of the sum is known.
 */
function combinedCostStatus(statuses: readonly string[]): CostStatus {
  if (statuses.every((s) => s === 'complete')) return 'complete';
  if (statuses.every((s) => s === 'unpriced')) return 'unpriced';
  return 'partial';
}

function toOutcome(a: Attributed, state: DescribedPullRequest | undefined): PrOutcomeWire {
  let cost = 0;
  let first: number | null = null;
  let last: number | null = null;
  const statuses: string[] = [];
  const unpriced = new Set<string>();
  for (const { row } of a.sessions.values()) {
    cost += Number(row.cost_micros);
    statuses.push(row.cost_status);
    for (const model of JSON.parse(row.unpriced_models) as string[]) unpriced.add(model);
    const t = Number(row.started_at);
    if (first === null || t < first) first = t;
    if (last === null || t > last) last = t;
  }
  return {
    repository: a.key.repository,
    number: a.key.number,
    url: state?.url ?? a.url ?? defaultUrl(a.key),
    title: state?.title ?? null,
    branch: state?.branch ?? null,
    state: state?.state ?? 'unknown',
    merged: state ? state.merged : null,
    reverted: state ? state.reverted : null,
    ciGreen: state ? state.ciGreen : null,
    sessions: a.sessions.size,
    costUsd: usd(cost),
    costMicros: cost,
    costStatus: combinedCostStatus(statuses),
    unpricedModels: [...unpriced].sort(),
    firstSessionAt: iso(first),
    lastSessionAt: iso(last),
    openedAt: state?.openedAt ?? null,
    mergedAt: state?.mergedAt ?? null,
    stateSource: state?.stateSource ?? null,
  };
}

/** PRs with at least one attributed session, most recent session first. */
export async function listOutcomes(
  ctx: FactoryContext,
  query: OutcomesQuery,
): Promise<{ data: PrOutcomeWire[]; total: number }> {
  const [named, onBranch, byCommit, prRows] = await Promise.all([
    store.sessionsNamingPrs(ctx.db, ctx.appId),
    store.sessionsOnPrBranches(ctx.db, ctx.appId),
    sessionsLinkedByCommit(ctx.db, ctx.appId),
    store.allPullRequests(ctx.db, ctx.appId),
  ]);
  const attributed = attribute(named, onBranch, byCommit);
  const states = await describePullRequests(
    ctx,
    ctx.appId,
    prRows.filter((p) => attributed.has(`${p.repository}#${p.number}`)),
  );
  const repo = query.repo === undefined ? undefined : normalizeRepository(query.repo);
  const all = [...attributed.values()]
    .map((a) => toOutcome(a, states.get(keyOf(a.key))))
    .filter(
      (o) => (repo === undefined || o.repository === repo) && (query.state === undefined || o.state === query.state),
    )
    .sort((a, b) =>
      a.lastSessionAt === b.lastSessionAt
        ? a.repository === b.repository
          ? b.number - a.number
          : a.repository < b.repository
            ? -1
            : 1
        : (a.lastSessionAt ?? '') < (b.lastSessionAt ?? '')
          ? 1
          : -1,
    );
  return { total: all.length, data: all.slice(query.offset, query.offset + query.limit) };
}

export function prSessionWire(s: store.SessionLinkRow, linkedBy: LinkSource[]): PullRequestSession {
  return {
    traceId: s.id,
    sessionId: s.session_id,
    title: s.title,
    agentType: s.agent_type,
    startedAt: new Date(Number(s.started_at)).toISOString(),
    costUsd: usd(Number(s.cost_micros)),
    costStatus: s.cost_status as CostStatus,
    unpricedModels: JSON.parse(s.unpriced_models) as string[],
    linkedBy,
  };
}

/**
 * One pull request as the service reads it: the answer (PullRequestDetail) with its artifacts and checks
 * whole, as the export and the PR comment need them (the answer's schema shows a part of each).
 */
/** A PR outcome as this area computes it; the verdict area adds `verdict` and `flagged` (verdict/outcomes.ts). */
export type PrOutcomeWire = Omit<PullRequestOutcome, 'verdict' | 'flagged'>;
/**
 * One PR as this area reads it, with its artifacts and checks whole (the export and the PR comment use their extra
 * fields; the answer's serializer strips them). The route adds the verdict and the GitHub App status.
 */
export type PullRequestRead = Omit<PullRequestDetail, 'artifacts' | 'results' | 'verdict' | 'flagged' | 'githubApp'> & {
  artifacts: Artifact[];
  results: Check[];
};
/** The name the verdict area reads one PR by. */
export type PrDetailWire = PullRequestRead;

export async function getPullRequest(
  ctx: FactoryContext,
  owner: string,
  repo: string,
  number: number,
): Promise<PullRequestRead> {
  const repository = normalizeRepository(`${owner}/${repo}`);
  const key = { repository, number };
  // Only this PR's links, each by its index: never the factory's sessions that name any PR.
  const [named, onBranch, byCommit, row] = await Promise.all([
    store.sessionsNamingPr(ctx.db, ctx.appId, key),
    store.sessionsOnPrBranches(ctx.db, ctx.appId, key),
    sessionsLinkedByCommit(ctx.db, ctx.appId, key),
    prStore.findPullRequest(ctx.db, ctx.appId, repository, number),
  ]);
  const attributed = attribute(named, onBranch, byCommit).get(keyOf(key));
  // Evidence is stored with the repository as its sender spelled it; ask for both spellings.
  const spellings = [...new Set([`${owner}/${repo}`, repository])];
  const [artifactLists, resultLists] = await Promise.all([
    Promise.all(spellings.map((r) => listPullRequestArtifacts(ctx, r, number))),
    Promise.all(spellings.map((r) => listChecks(ctx, r, number))),
  ]);
  const artifacts = artifactLists.flat();
  const results = resultLists.flat();
  // A PR is known from its sessions, its webhook state, or its evidence alone (artifacts, emitted results).
  if (!row && !attributed && artifacts.length === 0 && results.length === 0) {
    throw apiError('pull_request_not_found', `No pull request ${repository}#${number} is known to this factory.`);
  }
  const state = row ? (await describePullRequests(ctx, ctx.appId, [row])).get(keyOf(key)) : undefined;
  const base = toOutcome(attributed ?? { key, url: null, sessions: new Map() }, state);
  const sessionList = [...(attributed?.sessions.values() ?? [])]
    .sort((a, b) => Number(a.row.started_at) - Number(b.row.started_at))
    .map(({ row, via }) => prSessionWire(row, [...via].sort()));
  return {
    ...base,
    baseBranch: state?.baseBranch ?? null,
    headSha: state?.headSha ?? null,
    author: state?.author ?? null,
    revertedBy: state?.revertedBy ?? null,
    ci: state?.ci ?? 'unknown',
    closedAt: state?.closedAt ?? null,
    sessionList,
    artifacts,
    results,
  };
}

// ---- PR spend (the metrics' cost-per-merged-PR and unshipped-spend tiles) ---------------------------------

export type { PrSpend } from './spend-store.js';

/**
 * The PR spend of each window (the metrics area calls this): PRs merged in the window that have linked
 * sessions, the cost of those sessions, and the cost of the window's sessions linked to no merged PR.
 */
export async function prSpendOfWindows(
  ctx: FactoryContext,
  scope: { repo?: string },
  windows: readonly { from: number; to: number }[],
): Promise<spend.PrSpend[]> {
  const s: spend.SpendScope = scope.repo === undefined ? { appId: ctx.appId } : { appId: ctx.appId, repo: scope.repo };
  // Never a memo (it could answer stale on another replica): whole days read the sums kept in step with every
  // write (spend-aggregates.ts), a window with partial days is computed from the rows.
  return Promise.all(
    windows.map((w) =>
      w.from % DAY_MS === 0 && w.to % DAY_MS === 0
        ? spendOfDays(ctx.db, s, { first: w.from / DAY_MS, end: w.to / DAY_MS })
        : spend.prSpend(ctx.db, s, w),
    ),
  );
}

/**
 * Keep `session_pr_refs` in step with the PRs the stored sessions name (the sessions ingest calls this inside
 * its transaction, with every session it wrote; calling it again replaces their rows). `replaced`: the sessions
 * that may have rows already (all by default; the ingest passes only those it did not insert just now).
 */
export async function recordSessionPrRefs(
  db: Db,
  appId: string,
  sessions: readonly { id: string; repo: string; pr_refs: string }[],
  replaced: readonly string[] = sessions.map((s) => s.id),
): Promise<void> {
  const rows = sessions.flatMap((s) =>
    namedPrs(s).map((k) => ({ app_id: appId, session_id: s.id, repository: k.repository, number: k.number })),
  );
  await spend.replaceSessionPrRefs(db, appId, replaced, rows);
}

/**
 * Recount the PR spend sums of these top-level sessions (the sessions ingest calls this inside its transaction,
 * after their rows and named PRs are written). `known`: false when every one was inserted just now.
 */
export function recordSessionSpend(
  db: Db,
  appId: string,
  sessionIds: readonly string[],
  known: boolean,
): Promise<void> {
  return refreshSessionSpend(db, appId, sessionIds, known);
}

// ---- PRs by verdict (the Overview's comparison; outcome-aggregates.ts) ------------------------------------

/**
 * Sessions were written or deleted (`before` as stored, null when new; `after` null when deleted): the PR outcomes
 * by verdict follow, inside the caller's transaction (the sessions ingest and deletion call this).
 */
export function recordSessionPrOutcomes(
  db: Db,
  appId: string,
  changes: readonly { before: LinkFields | null; after: LinkFields | null }[],
): Promise<void> {
  return sessionsChanged(db, appId, changes);
}

/** A PR's evaluation was stored: its row takes its latest verdict (inside the verdict's transaction). */
export function pullRequestEvaluated(db: Db, appId: string, key: PrKey): Promise<void> {
  return refreshPrOutcomes(db, appId, [key]);
}

/** The factory's PRs opened in the window by stored verdict (null: none yet), from the rows kept at write. */
export function prOutcomesByVerdict(
  ctx: FactoryContext,
  window: { from: number; to: number },
  repo: string | undefined,
): ReturnType<typeof outcomesByVerdict> {
  return outcomesByVerdict(ctx.db, ctx.appId, window, repo === undefined ? undefined : normalizeRepository(repo));
}
