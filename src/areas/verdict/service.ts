// The verdict of a pull request (API.md §11): gathers what the pure module (src/verify) reads — the linked
// sessions' stored facts, CI at the head commit, the work item's criteria, findings, the PR's commits and
// changed files and the repository's policy at the base commit (through the App, cached) — evaluates it,
// and stores the evaluation when it differs from the PR's latest (so identical evaluations keep one row and
// one `evaluatedAt`, and the comment rendered from them stays byte-identical).
import crypto from 'node:crypto';
import { evaluate, parsePolicy, type SessionVerification, type VerdictInput } from '../../verify/index.js';
import type { FactoryContext } from '../../server/context.js';
import { listCriteriaOf } from '../criteria/service.js';
import { listFindings } from '../findings/service.js';
import { getPullRequest, pullRequestEvaluated, type PrDetailWire } from '../prs/service.js';
import { normalizeRepository } from '../../codehost/repository-name.js';
import { findPullRequest } from '../prs/store.js';
import { workItemsOfPullRequest } from '../work-items/service.js';
import { emitEvent } from '../notifications/service.js';
import { policyFiles, prInputs } from './github-inputs.js';
import type { VerdictWire } from './schema.js';
import * as store from './store.js';

/** A linked session that has not ended and started within this long is still expected to arrive whole. */
export const WAITING_WINDOW_MS = 6 * 3600_000;

/** First verdicts that are not announced: they say nothing about the PR yet. */
const UNANNOUNCED = new Set(['none', 'waiting']);

export interface PrVerdict {
  wire: VerdictWire;
  /** A block-level row did not pass (the check run fails). */
  blocked: boolean;
  detail: PrDetailWire;
}

const SEVERITIES = new Set(['info', 'low', 'medium', 'high', 'critical']);

function ciOf(detail: PrDetailWire): VerdictInput['ci'] {
  const failed = detail.results.filter((r) => r.result === 'fail').map((r) => r.name);
  if (detail.ci === 'red' || failed.length > 0) return { state: 'failure', failed: [...new Set(failed)].sort() };
  if (detail.ci === 'pending') return { state: 'pending', failed: [] };
  if (detail.ci === 'green' || detail.results.length > 0) return { state: 'success', failed: [] };
  return null;
}

/** Everything the evaluation reads, from this factory's data and the App's (cached) GitHub reads. */
async function gather(
  ctx: FactoryContext,
  detail: PrDetailWire,
  baseSha: string | null,
  fetch: boolean,
): Promise<{ input: VerdictInput; source: string; unread: boolean }> {
  const repository = detail.repository;
  const facts = await store.factsOfSessions(
    ctx.db,
    ctx.appId,
    detail.sessionList.map((s) => s.traceId),
  );
  const byId = new Map(facts.map((f) => [f.id, f]));
  const now = ctx.clock.now();
  const sessions: VerdictInput['sessions'] = [];
  let waiting = false;
  for (const s of detail.sessionList) {
    const f = byId.get(s.traceId);
    if (!f) continue;
    if (f.ended_at === null && now - f.started_at < WAITING_WINDOW_MS) waiting = true;
    sessions.push({
      traceId: s.traceId,
      sessionId: s.sessionId,
      startedAt: new Date(f.started_at).toISOString(),
      ...(f.ended_at === null ? {} : { endedAt: new Date(f.ended_at).toISOString() }),
      verification: f.verification === null ? null : (JSON.parse(f.verification) as SessionVerification),
    });
  }
  const items = await workItemsOfPullRequest(ctx, repository, detail.number);
  let criteria: VerdictInput['criteria'] = null;
  const findings: VerdictInput['findings'] = [];
  for (const item of items) {
    for (const c of await listCriteriaOf(ctx, item.id)) {
      criteria ??= [];
      criteria.push({ id: c.id, text: c.text, proven: detail.artifacts.some((a) => a.criterionId === c.id) });
    }
    for (let offset = 0; offset < 1000; offset += 100) {
      const page = await listFindings(ctx, item.id, { limit: 100, offset });
      for (const f of page.findings) {
        if ((f.prNumber === null || f.prNumber === detail.number) && SEVERITIES.has(f.severity)) {
          findings.push({
            id: f.id,
            severity: f.severity as VerdictInput['findings'][number]['severity'],
            title: f.title,
          });
        }
      }
      if (offset + 100 >= page.total) break;
    }
  }
  const [github, policy, history] = await Promise.all([
    prInputs(ctx, repository, detail.number, detail.headSha, fetch),
    policyFiles(ctx, repository, baseSha, fetch),
    store.repositoryHistory(ctx.db, ctx.appId, [...new Set([repository, detail.repository])]),
  ]);
  const input: VerdictInput = {
    sessions,
    waiting,
    commits: github.commits,
    changedFiles: github.changedFiles,
    ci: ciOf(detail),
    criteria,
    findings,
    history: {
      typecheck: history.typecheck || sessions.some((s) => s.verification?.runs.some((r) => r.kind === 'typecheck')),
      lint: history.lint || sessions.some((s) => s.verification?.runs.some((r) => r.kind === 'lint')),
    },
    emitted: [...new Set(detail.results.map((r) => r.name))].sort(),
    artifacts: [...new Set(detail.artifacts.map((a) => a.kind))].sort(),
    policy: parsePolicy(policy.files),
  };
  if (policy.unreadable) input.policy.errors.push({ file: '.attest/policy.yaml', message: policy.unreadable });
  return { input, source: policy.source, unread: github.unread === true || policy.unread === true };
}

/**
 * Read from GitHub, through the App, what the verdict of this PR reads at its head and base commits (its commits,
 * which link the sessions that made one, its changed files, the policy), unless stored already. The PR's webhook
 * job calls this whatever the factory's comment and check settings, so the PR read never has to.
 */
export async function readPullRequestInputs(ctx: FactoryContext, repository: string, number: number): Promise<void> {
  const row = await findPullRequest(ctx.db, ctx.appId, normalizeRepository(repository), number);
  if (!row) return;
  await Promise.all([
    prInputs(ctx, row.repository, number, row.head_sha || null, true),
    policyFiles(ctx, row.repository, row.base_sha ?? null, true),
  ]);
}

/**
 * The verdict of the PR as of now (404 pull_request_not_found as the PR read). Stored when it differs from
 * the PR's latest evaluation; `evaluatedAt` is when this evaluation was first made. `fetch`: what the verdict
 * reads from GitHub is read now when not stored yet (the PR's job, the verdict route); without it (the PR read,
 * the lists) no GitHub call is made, and an evaluation missing what GitHub has not been asked yet is shown but
 * not stored (the PR's job stores the whole one).
 */
export async function pullRequestVerdict(
  ctx: FactoryContext,
  owner: string,
  repo: string,
  number: number,
  { fetch }: { fetch: boolean },
): Promise<PrVerdict> {
  const repository = normalizeRepository(`${owner}/${repo}`);
  const row = await findPullRequest(ctx.db, ctx.appId, repository, number);
  // The PR's commits first (read from GitHub once a head commit, then stored): the sessions that made one of
  // them are among the PR's sessions this read lists.
  if (fetch && row?.head_sha) await prInputs(ctx, repository, number, row.head_sha, true);
  const detail = await getPullRequest(ctx, owner, repo, number);
  const baseSha = row?.base_sha ?? null;
  const { input, source, unread } = await gather(ctx, detail, baseSha, fetch);
  const evaluation = evaluate(input);
  const policy = { source, errors: input.policy.errors };
  const digest = crypto
    .createHash('sha256')
    .update(
      JSON.stringify([
        detail.headSha,
        evaluation.verdict,
        evaluation.flagged,
        evaluation.blocked,
        evaluation.rows,
        policy,
      ]),
    )
    .digest('hex');
  const latest = await store.latestEvaluation(ctx.db, ctx.appId, repository, number);
  let evaluatedAt = latest?.evaluated_at ?? ctx.clock.now();
  if (unread && latest?.digest !== digest) evaluatedAt = ctx.clock.now();
  else if (!latest || latest.digest !== digest) {
    evaluatedAt = ctx.clock.now();
    // A change of the verdict itself (not of its rows) is announced; a first verdict too, unless it says
    // nothing yet (`none`: a human PR; `waiting`: its sessions are on their way). Queued before the row is
    // stored and named by the evaluation it follows, so a crash in between, or a replica evaluating the same
    // change at once, queues nothing twice.
    const changed = latest ? latest.verdict !== evaluation.verdict : !UNANNOUNCED.has(evaluation.verdict);
    if (changed)
      await emitEvent(
        ctx.db,
        { orgId: ctx.orgId, appId: ctx.appId },
        'pr.verdict',
        `${repository}#${number}|${latest?.id ?? 'first'}|${evaluation.verdict}`,
        {
          repository,
          number,
          title: detail.title,
          headSha: detail.headSha,
          verdict: evaluation.verdict,
          previousVerdict: latest?.verdict ?? null,
          flagged: evaluation.flagged,
          rows: evaluation.rows
            .filter((r) => r.status !== 'pass' && r.level !== 'info')
            .map((r) => ({ validator: r.validator, status: r.status, level: r.level, sentence: r.sentence })),
          evaluatedAt: new Date(evaluatedAt).toISOString(),
          url: `${ctx.config.publicUrl}/f/${ctx.appId}/prs/${repository}/${number}`,
        },
        evaluatedAt,
      );
    const row = {
      id: crypto.randomUUID(),
      org_id: ctx.orgId,
      app_id: ctx.appId,
      repository,
      number,
      head_sha: detail.headSha,
      verdict: evaluation.verdict,
      flagged: evaluation.flagged,
      blocked: evaluation.blocked ? 1 : 0,
      rows: JSON.stringify(evaluation.rows),
      policy: JSON.stringify(policy),
      digest,
      evaluated_at: evaluatedAt,
    };
    // The Overview's PRs by verdict take it in the same transaction.
    const write = async (db: typeof ctx.db) => {
      await store.insertEvaluation(db, row);
      await pullRequestEvaluated(db, ctx.appId, { repository, number });
    };
    await (ctx.db.isTransaction ? write(ctx.db) : ctx.db.transaction().execute(write));
  }
  return {
    wire: {
      repository,
      number,
      headSha: detail.headSha,
      verdict: evaluation.verdict,
      flagged: evaluation.flagged,
      rows: evaluation.rows,
      policy,
      evaluatedAt: new Date(Number(evaluatedAt)).toISOString(),
    },
    blocked: evaluation.blocked,
    detail,
  };
}
