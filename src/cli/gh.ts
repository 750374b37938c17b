// At `attest sync`, the state of the pull requests the sent sessions link to, read with the GitHub CLI and sent
// to POST /v1/prs/reported (issue 45 §4). A gateway without the GitHub App hears of no PR's state; a developer
// with `gh` installed and logged in can fill that gap from their own machine. Best effort and silent: without
// `gh`, logged out, or on any failure of it (or of the gateway's answer) nothing is sent and nothing is printed.
// `ATTEST_SYNC_GH=0` turns it off. The gateway keeps these reports only until the App's webhook speaks for a PR.
import { execFile } from 'node:child_process';
import type { AgentSessionV1 } from '../capture/types.js';
import { unwrap, type AttestClient, type Body } from '../client/index.js';
import { normalizeRepo } from '../codehost/repository-name.js';

/** The fields asked of `gh pr view --json` (docs/cli.md shows the answer this reads). */
export const GH_FIELDS =
  'number,url,title,state,author,headRefName,headRefOid,baseRefName,createdAt,updatedAt,closedAt,mergedAt';
/** At most this many PRs are read a sync: each is a request to GitHub. */
export const GH_MAX_PRS = 50;
const GH_TIMEOUT_MS = 15_000;
const REPORT_BATCH = 100;

/** One PR as POST /v1/prs/reported takes it (the type generated from the route's schema). */
export type ReportedPullRequest = Body<'/v1/prs/reported', 'post'>['pullRequests'][number];

export interface LinkedPr {
  /** owner/repo on github.com */
  repository: string;
  number: number;
}

/** owner/repo of a github.com repository (a remote URL in any spelling, or a PR's URL), else null. */
function githubRepository(raw: string | undefined): string | null {
  if (!raw) return null;
  const pull = /^https?:\/\/github\.com\/([^/\s]+\/[^/\s]+)\/pull\/\d+/i.exec(raw.trim());
  const repo = normalizeRepo(pull ? pull[1] : raw);
  return /^[a-z0-9_.-]+\/[a-z0-9_.-]+$/.test(repo) ? repo : null;
}

/** The github.com PRs the sessions link to (their outcome and pr_linked events), each once. */
export function linkedPullRequests(sessions: readonly AgentSessionV1[]): LinkedPr[] {
  const out = new Map<string, LinkedPr>();
  for (const s of sessions) {
    const own = githubRepository(s.env.gitRepo);
    const add = (prNumber: unknown, prUrl: unknown) => {
      if (typeof prNumber !== 'number' || !Number.isSafeInteger(prNumber) || prNumber <= 0) return;
      const repository = (typeof prUrl === 'string' ? githubRepository(prUrl) : null) ?? own;
      if (repository) out.set(`${repository}#${prNumber}`, { repository, number: prNumber });
    };
    add(s.outcome?.prNumber, s.outcome?.prUrl);
    for (const pr of s.outcome?.prs ?? []) add(pr.prNumber, pr.prUrl);
    for (const e of s.events) if (e.type === 'pr_linked') add(e.data?.prNumber, e.data?.prUrl);
  }
  return [...out.values()];
}

function gh(args: string[], env: NodeJS.ProcessEnv): Promise<string | null> {
  return new Promise((resolve) => {
    try {
      execFile(
        'gh',
        args,
        {
          env: { ...env, GH_PROMPT_DISABLED: '1', NO_COLOR: '1' },
          timeout: GH_TIMEOUT_MS,
          maxBuffer: 1024 * 1024,
          windowsHide: true,
        },
        (err, stdout) => {
          resolve(err ? null : stdout);
        },
      );
    } catch {
      resolve(null);
    }
  });
}

/** A date-time gh printed, or null (gh writes an unset time as null, or as the zero time of Go). */
function instant(v: unknown): string | null {
  if (typeof v !== 'string' || v.startsWith('0001-')) return null;
  return Number.isFinite(Date.parse(v)) ? new Date(Date.parse(v)).toISOString() : null;
}

/** One `gh pr view --json` answer as the gateway takes it, or null when it is not one. */
export function reportOf(pr: LinkedPr, json: string): ReportedPullRequest | null {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return null;
  }
  const state = typeof v.state === 'string' ? v.state.toLowerCase() : '';
  const openedAt = instant(v.createdAt);
  const updatedAt = instant(v.updatedAt);
  const str = (x: unknown) => (typeof x === 'string' ? x : null);
  const url = str(v.url);
  const headSha = str(v.headRefOid);
  if (
    (state !== 'open' && state !== 'closed' && state !== 'merged') ||
    !openedAt ||
    !updatedAt ||
    !url ||
    !headSha ||
    v.number !== pr.number
  )
    return null;
  const author =
    typeof v.author === 'object' && v.author !== null ? str((v.author as Record<string, unknown>).login) : null;
  return {
    repository: pr.repository,
    number: pr.number,
    url,
    title: str(v.title) ?? '',
    state,
    author,
    branch: str(v.headRefName) ?? '',
    baseBranch: str(v.baseRefName) ?? '',
    headSha,
    openedAt,
    updatedAt,
    closedAt: instant(v.closedAt),
    mergedAt: instant(v.mergedAt),
  };
}

/**
 * Reads the linked PRs with gh and sends what it read; returns how many PRs were read and sent (0 when gh is
 * missing, logged out, failing, turned off, or the gateway refused them).
 */
export async function reportLinkedPullRequests(
  client: AttestClient,
  sessions: readonly AgentSessionV1[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  if (env.ATTEST_SYNC_GH === '0') return 0;
  const prs = linkedPullRequests(sessions).slice(0, GH_MAX_PRS);
  if (prs.length === 0) return 0;
  if ((await gh(['auth', 'status', '--hostname', 'github.com'], env)) === null) return 0;
  const reports: ReportedPullRequest[] = [];
  for (const pr of prs) {
    const out = await gh(['pr', 'view', String(pr.number), '--repo', pr.repository, '--json', GH_FIELDS], env);
    const report = out === null ? null : reportOf(pr, out);
    if (report) reports.push(report);
  }
  let sent = 0;
  for (let i = 0; i < reports.length; i += REPORT_BATCH) {
    const batch = reports.slice(i, i + REPORT_BATCH);
    try {
      await unwrap(client.api.POST('/v1/prs/reported', { body: { pullRequests: batch } }));
      sent += batch.length;
    } catch {
      // An older gateway without the route, or a refusal: the sessions are synced; the PR state waits.
    }
  }
  return sent;
}
