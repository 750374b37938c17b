// The PR comment worker, the high half of the living PR comment (the outbox it drains is src/areas/pr-comments):
// claims due jobs with a lease (one replica per pull request at a time), gathers the evidence through the
// areas' services, renders the body and creates or edits the one comment on GitHub, found again by its
// hidden marker. GitHub failures worth retrying (5xx, 429, secondary rate
// limits, network) come back from the GitHub client as 503 github_unavailable with Retry-After; the job
// then waits max(Retry-After, exponential backoff) and tries again. Problems that need a person (missing
// permission, repository not connected) are recorded on the job and shown in the factory's reads.
import crypto from 'node:crypto';
import os from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import { githubApp, isGitHubConfigured, type IssueComment } from '../../codehost/github.js';
import type { FactoryContext, Gateway } from '../../server/context.js';
import { ApiError } from '../../server/errors.js';
import { PeriodicTask } from '../../server/periodic.js';
import { signArtifactContentUrl } from '../../server/signed-urls.js';
import { prCheckModeOf, prCommentModeOf } from '../../areas/apps/service.js';
import type { Artifact } from '../../areas/artifacts/schema.js';
import { isActiveContent, listPullRequestArtifacts } from '../../areas/artifacts/service.js';
import { listCriteriaOf } from '../../areas/criteria/service.js';
import { listFindings } from '../../areas/findings/service.js';
import { getPullRequest, type PullRequestRead } from '../../areas/prs/service.js';
import { findConnectedRepository } from '../../areas/repositories/service.js';
import type { Check } from '../../areas/results/schema.js';
import { listChecks } from '../../areas/results/service.js';
import { syncCheckRun } from '../../areas/verdict/check-run.js';
import { pullRequestVerdict, readPullRequestInputs, type PrVerdict } from '../../areas/verdict/service.js';
import { workItemsOfPullRequest } from '../../areas/work-items/service.js';
import { hasEvidence, markerOf, renderComment, sessionPageUrl, type CommentData } from './render.js';
import * as store from '../../areas/pr-comments/store.js';

/** A run holds its pull request this long; a replica that dies mid-run frees it when the lease ends. */
export const LEASE_MS = 120_000;
const BACKOFF_BASE_MS = 10_000;
const BACKOFF_MAX_MS = 30 * 60_000;
/** After this many failed attempts in a row the job waits for the next trigger (the error stays shown). */
export const MAX_ATTEMPTS = 10;
const BATCH = 20;
/** Re-render an open pull request's comment this long before its signed image URLs expire. */
const REFRESH_MARGIN_MS = 24 * 3600_000;

export interface RunReport {
  claimed: number;
  posted: number;
  skipped: number;
  retried: number;
  failed: number;
}

type RunResult = 'posted' | 'skipped' | 'retried' | 'failed';

class Problem extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class PrCommentWorker {
  readonly owner = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
  private readonly loop: PeriodicTask<RunReport>;

  constructor(
    private readonly gateway: Gateway,
    private readonly log: FastifyBaseLogger,
  ) {
    this.loop = new PeriodicTask(
      () => this.runOnce(),
      (err) => this.log.error({ err }, 'PR comment worker run failed'),
    );
  }

  /** Poll every `intervalMs` (the server starts this; tests call runDueJobs themselves). */
  start(intervalMs: number): void {
    this.loop.start(intervalMs);
  }

  /** Stop polling and wait for the run in progress. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Run every job due now (by the gateway's clock), one at a time; concurrent calls share one run. */
  runDueJobs(): Promise<RunReport> {
    return this.loop.run();
  }

  private async runOnce(): Promise<RunReport> {
    const report: RunReport = { claimed: 0, posted: 0, skipped: 0, retried: 0, failed: 0 };
    const db = this.gateway.db;
    const due = await store.dueJobs(db, this.gateway.clock.now(), BATCH);
    for (const { id } of due) {
      if (this.loop.stopped && report.claimed > 0) break;
      const row = await store.claim(db, id, this.owner, this.gateway.clock.now(), LEASE_MS);
      if (!row) continue;
      report.claimed++;
      report[await this.run(row)]++;
    }
    return report;
  }

  private contextOf(row: store.JobRow): FactoryContext {
    const g = this.gateway;
    return {
      gateway: g,
      db: g.db,
      clock: g.clock,
      config: g.config,
      requestId: `pr-comment-${row.id}`,
      log: this.log.child({ job: row.id, appId: row.app_id, repository: row.repository, number: Number(row.number) }),
      orgId: row.org_id,
      appId: row.app_id,
      principal: {
        kind: 'system',
        credentialId: 'pr-comment-worker',
        userId: null,
        orgId: row.org_id,
        orgName: null,
        plan: null,
        appId: row.app_id,
        workItemId: null,
        role: null,
        permissions: new Set(),
        label: 'PR comment worker',
      },
    };
  }

  private async run(row: store.JobRow): Promise<RunResult> {
    const ctx = this.contextOf(row);
    const version = Number(row.requested);
    const done = (o: Omit<store.Outcome, 'version' | 'now'>) =>
      store.finish(ctx.db, row.id, this.owner, { version, now: ctx.clock.now(), ...o });
    try {
      return await this.post(ctx, row, done);
    } catch (err) {
      if (err instanceof Problem) {
        ctx.log.warn({ code: err.code, message: err.message }, 'PR comment not posted');
        await done({ refreshAt: null, error: { code: err.code, message: err.message } });
        return 'failed';
      }
      const attempts = Number(row.attempts) + 1;
      const code = err instanceof ApiError ? err.code : 'internal_error';
      const message =
        err instanceof ApiError ? err.message : 'The PR comment could not be updated; it will be tried again.';
      if (err instanceof ApiError && err.code === 'repository_tokens_unavailable') {
        await done({ refreshAt: null, error: { code, message } });
        return 'failed';
      }
      if (!(err instanceof ApiError)) ctx.log.error({ err }, 'PR comment run failed');
      if (attempts >= MAX_ATTEMPTS) {
        ctx.log.warn({ code, attempts }, 'PR comment given up until the next change');
        await done({ refreshAt: null, error: { code, message: `Gave up after ${attempts} attempts: ${message}` } });
        return 'failed';
      }
      const retryAfterS = err instanceof ApiError ? Number(err.headers?.['Retry-After'] ?? 0) : 0;
      const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempts - 1));
      const retryAt = ctx.clock.now() + Math.max(backoff, Number.isFinite(retryAfterS) ? retryAfterS * 1000 : 0);
      ctx.log.info({ code, attempts, retryAt }, 'PR comment will be retried');
      await store.retryLater(ctx.db, row.id, this.owner, ctx.clock.now(), retryAt, { code, message });
      return 'retried';
    }
  }

  private async post(
    ctx: FactoryContext,
    row: store.JobRow,
    done: (o: Omit<store.Outcome, 'version' | 'now'>) => Promise<void>,
  ): Promise<RunResult> {
    const commentOn = (await prCommentModeOf(ctx.db, ctx.orgId, ctx.appId)) === 'on';
    const checkOn = (await prCheckModeOf(ctx.db, ctx.orgId, ctx.appId)) === 'on';
    // What the PR's reads show of GitHub (its commits, which link the sessions that made one; its changed files and
    // policy) is read here, on the PR's job, whatever the comment and check settings: the reads only read the store.
    // With both off, a failure is no problem of the comment's (the next webhook tries again).
    try {
      await readPullRequestInputs(ctx, row.repository, Number(row.number));
    } catch (err) {
      if (commentOn || checkOn) throw err;
      ctx.log.warn({ err }, "the PR's GitHub inputs could not be read");
    }
    if (!commentOn && !checkOn) {
      await done({ refreshAt: null });
      return 'skipped';
    }
    const repo = await findConnectedRepository(ctx, row.repository);
    if (!repo) {
      throw new Problem(
        'repository_not_connected',
        `${row.repository} is not connected to this factory (POST /v1/repositories), so the App cannot comment on ` +
          `its pull requests.`,
      );
    }
    const number = Number(row.number);
    const { data, state, exps } = await gather(ctx, repo.owner, repo.name, number);
    // The verdict (issue 39) opens the comment and decides the check run; a PR the factory does not know has none.
    let verdict: PrVerdict | null = null;
    try {
      verdict = await pullRequestVerdict(ctx, repo.owner, repo.name, number, { fetch: true });
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'pull_request_not_found')) throw err;
    }
    if (verdict) data.verdict = { view: verdict.wire, publicUrl: ctx.config.publicUrl };
    if (checkOn && verdict) {
      if (!isGitHubConfigured(ctx.gateway)) {
        throw new Problem(
          'repository_tokens_unavailable',
          'This gateway has no GitHub App configured (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY).',
        );
      }
      const checks = await githubApp(ctx.gateway).installation(repo.installationId);
      if (!checks)
        throw new Problem(
          'repository_not_in_installation',
          `The App installation ${repo.installationId} no longer exists.`,
        );
      const outcome = await syncCheckRun(ctx, row, checks, repo.owner, repo.name, verdict, data.dashboardUrl);
      ctx.log.info({ outcome }, 'PR check run');
    }
    if (!commentOn) {
      await done({ refreshAt: null });
      return verdict ? 'posted' : 'skipped';
    }
    if (!hasEvidence(data) && row.comment_id === null) {
      await done({ refreshAt: null });
      return 'skipped';
    }
    const body = renderComment(data);
    const sha256 = crypto.createHash('sha256').update(body).digest('hex');
    const refreshAt =
      exps.length > 0 && state !== 'closed' && state !== 'merged' ? Math.min(...exps) * 1000 - REFRESH_MARGIN_MS : null;
    if (row.comment_id !== null && row.body_sha256 === sha256) {
      await done({ refreshAt });
      return 'skipped';
    }
    if (!isGitHubConfigured(ctx.gateway)) {
      throw new Problem(
        'repository_tokens_unavailable',
        'This gateway has no GitHub App configured (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY).',
      );
    }
    const client = await githubApp(ctx.gateway).installation(repo.installationId);
    if (!client)
      throw new Problem(
        'repository_not_in_installation',
        `The App installation ${repo.installationId} no longer exists.`,
      );
    const noPermission = () =>
      new Problem(
        'missing_permission',
        `The GitHub App may not comment on ${repo.repository}: its installation needs pull requests write (or issues ` +
          `write). Accept the permission on the installation's page.`,
      );

    let comment: IssueComment | null = null;
    if (row.comment_id !== null) {
      const updated = await client.updateIssueComment(repo.owner, repo.name, Number(row.comment_id), body);
      if (updated === 'not_accessible') throw noPermission();
      if (updated === 'not_found') await store.forgetComment(ctx.db, row.id);
      else comment = updated;
    }
    if (!comment) {
      const all = await client.listIssueComments(repo.owner, repo.name, number);
      if (all === 'not_accessible') throw noPermission();
      if (all === 'not_found')
        throw new Problem(
          'pull_request_not_found',
          `GitHub has no pull request ${repo.repository}#${number} the App can see.`,
        );
      const marker = markerOf(ctx.appId);
      const ours = all.filter((c) => c.authorType === 'Bot' && c.body.includes(marker)).sort((a, b) => a.id - b.id);
      const [keep, ...extra] = ours;
      // A second comment can only come from a replica that lost its lease mid-create; keep the oldest.
      for (const c of extra) await client.deleteIssueComment(repo.owner, repo.name, c.id);
      if (keep) {
        const updated = await client.updateIssueComment(repo.owner, repo.name, keep.id, body);
        if (updated === 'not_accessible') throw noPermission();
        if (updated === 'not_found')
          throw new ApiError(
            503,
            'github_unavailable',
            'The comment vanished while it was edited; safe to retry.',
            {},
            { 'Retry-After': '5' },
          );
        comment = updated;
      } else {
        // Fencing: only the holder of a live lease creates, so two replicas never both create.
        if (!(await store.renewLease(ctx.db, row.id, this.owner, ctx.clock.now(), LEASE_MS))) {
          ctx.log.warn('lost the PR comment lease before creating the comment; another replica has it');
          return 'skipped';
        }
        const created = await client.createIssueComment(repo.owner, repo.name, number, body);
        if (created === 'not_accessible') throw noPermission();
        if (created === 'not_found')
          throw new Problem(
            'pull_request_not_found',
            `GitHub has no pull request ${repo.repository}#${number} the App can see.`,
          );
        comment = created;
      }
    }
    ctx.log.info({ commentId: comment.id, bytes: body.length }, 'PR comment posted');
    await done({ refreshAt, comment: { id: comment.id, url: comment.url, sha256 } });
    return 'posted';
  }
}

interface Gathered {
  data: CommentData;
  state: PullRequestRead['state'] | null;
  /** Expiries (Unix seconds) of the signed image URLs in the body. */
  exps: number[];
}

/** Everything the comment shows, from the areas' services, scoped to the job's factory. */
async function gather(ctx: FactoryContext, owner: string, name: string, number: number): Promise<Gathered> {
  let detail: PullRequestRead | null = null;
  try {
    detail = await getPullRequest(ctx, owner, name, number);
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 'pull_request_not_found')) throw err;
  }
  const repository = `${owner}/${name}`;
  let artifacts: Artifact[];
  let checks: Check[];
  if (detail) {
    artifacts = detail.artifacts;
    checks = detail.results;
  } else {
    const spellings = [...new Set([repository, repository.toLowerCase()])];
    artifacts = (await Promise.all(spellings.map((r) => listPullRequestArtifacts(ctx, r, number)))).flat();
    checks = (await Promise.all(spellings.map((r) => listChecks(ctx, r, number)))).flat();
  }
  const items = await workItemsOfPullRequest(ctx, repository, number);
  const criteria: CommentData['criteria'][number][] = [];
  const findings: CommentData['findings'][number][] = [];
  for (const item of items) {
    for (const c of await listCriteriaOf(ctx, item.id)) {
      criteria.push({
        workItemNumber: item.number,
        id: c.id,
        text: c.text,
        provenBy: artifacts.filter((a) => a.criterionId === c.id).map((a) => a.id),
      });
    }
    for (let offset = 0; offset < 1000; offset += 100) {
      const page = await listFindings(ctx, item.id, { limit: 100, offset });
      for (const f of page.findings) {
        if (f.prNumber === null || f.prNumber === number)
          findings.push({ severity: f.severity, title: f.title, source: f.source, path: f.path, line: f.line });
      }
      if (offset + 100 >= page.total) break;
    }
  }
  const exps: number[] = [];
  const now = ctx.clock.now();
  const agentTypes = new Map<string, number>();
  for (const s of detail?.sessionList ?? []) agentTypes.set(s.agentType, (agentTypes.get(s.agentType) ?? 0) + 1);
  const data: CommentData = {
    appId: ctx.appId,
    dashboardUrl: `${ctx.config.publicUrl.replace(/\/+$/, '')}/f/${ctx.appId}/prs/${owner}/${name}/${number}`,
    sessions: {
      count: detail?.sessionList.length ?? 0,
      agentTypes: [...agentTypes]
        .map(([agentType, count]) => ({ agentType, count }))
        .sort((a, b) => b.count - a.count || a.agentType.localeCompare(b.agentType)),
      costUsd: detail?.costUsd ?? 0,
      costStatus: detail?.costStatus ?? 'complete',
      unpricedModels: detail?.unpricedModels ?? [],
      list: (detail?.sessionList ?? []).map((s) => ({
        title: s.title,
        pageUrl: sessionPageUrl(ctx.config.publicUrl, ctx.appId, s.traceId),
        costUsd: s.costUsd,
        costStatus: s.costStatus,
      })),
    },
    artifacts: artifacts.map((a) => {
      let imageUrl: string | null = null;
      if (a.kind === 'screenshot' && !isActiveContent(a.mediaType)) {
        const signed = signArtifactContentUrl(ctx.config.publicUrl, ctx.gateway.pepper, ctx.appId, a.id, now);
        imageUrl = signed.url;
        exps.push(signed.exp);
      }
      return {
        id: a.id,
        kind: a.kind,
        caption: a.caption,
        filename: a.filename,
        criterionId: a.criterionId,
        pageUrl: a.url,
        imageUrl,
      };
    }),
    checks: checks.map((c) => ({ name: c.name, result: c.result, link: c.link, emittedAt: c.emittedAt })),
    criteria,
    findings,
  };
  return { data, state: detail?.state ?? null, exps };
}
