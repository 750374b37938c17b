// What the verdict reads from GitHub through the App: the PR's commits and changed files (cached per head
// commit) and the repository's policy files at the PR's base commit (cached per base commit, so a PR can never
// change the policy it is judged by). A read GitHub refuses (permission, not found) is cached as unreadable;
// a retryable failure is not cached and propagates as 503 github_unavailable. Only a `fetch` asks GitHub (the
// PR's webhook job and the verdict route); the PR read takes what is stored, and says when GitHub could have
// answered but has not been asked yet (`unread`).
import { githubApp, isGitHubConfigured, type InstallationClient } from '../../codehost/github.js';
import { contentsAt, pullRequestCommits, pullRequestFiles } from '../../codehost/github-verdict.js';
import type { FactoryContext } from '../../server/context.js';
import { ApiError } from '../../server/errors.js';
import { findConnectedRepository } from '../repositories/service.js';
import { recordPrCommits } from '../prs/commit-links.js';
import * as store from './store.js';

export const POLICY_FILE = '.attest/policy.yaml';
export const VALIDATORS_DIR = '.attest/validators';
/** At most this many validator files are read (each one GitHub call on a cache miss). */
const MAX_VALIDATOR_FILES = 50;

export interface PrInputs {
  commits: string[] | null;
  changedFiles: string[] | null;
  /** Not stored yet, and GitHub could answer: the PR's webhook job has not read them (a read without fetch). */
  unread?: boolean;
}

export interface PolicyFiles {
  /** `"default"` when no policy file could be read; `"<path>@<base sha>"` otherwise. */
  source: string;
  files: Array<{ path: string; text: string }>;
  /** Why the policy could not be read now (shown as a policy error). */
  unreadable?: string;
  /** As PrInputs.unread. */
  unread?: boolean;
}

/** GitHub answers that leave an input unread for now (not cached, so a later evaluation reads it). */
const TRANSIENT = new Set(['github_unavailable', 'repository_tokens_unavailable', 'repository_not_in_installation']);

async function orNow<T>(ctx: FactoryContext, read: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (!(err instanceof ApiError) || !TRANSIENT.has(err.code)) throw err;
    ctx.log.warn({ code: err.code }, 'the verdict could not read GitHub now');
    return fallback;
  }
}

async function clientOf(
  ctx: FactoryContext,
  repository: string,
): Promise<{ client: InstallationClient; owner: string; name: string } | null> {
  if (!isGitHubConfigured(ctx.gateway)) return null;
  const repo = await findConnectedRepository(ctx, repository);
  if (!repo) return null;
  const client = await githubApp(ctx.gateway).installation(repo.installationId);
  return client ? { client, owner: repo.owner, name: repo.name } : null;
}

/** Whether the App could read this repository (no GitHub call): configured here, and the repository connected. */
async function githubCouldAnswer(ctx: FactoryContext, repository: string): Promise<boolean> {
  return isGitHubConfigured(ctx.gateway) && (await findConnectedRepository(ctx, repository)) !== null;
}

/**
 * The PR's commits and changed files at this head commit; null for each when GitHub cannot say. Without
 * `fetch`, only what is stored (no GitHub call).
 */
export function prInputs(
  ctx: FactoryContext,
  repository: string,
  number: number,
  headSha: string | null,
  fetch: boolean,
): Promise<PrInputs> {
  return orNow(
    ctx,
    async (): Promise<PrInputs> => {
      if (headSha === null) return { commits: null, changedFiles: null };
      const cached = await store.findPrInputs(ctx.db, ctx.appId, repository, number, headSha);
      const parse = (v: string | null) => (v === null ? null : (JSON.parse(v) as string[]));
      if (cached) return { commits: parse(cached.commits), changedFiles: parse(cached.files) };
      if (!fetch) return { commits: null, changedFiles: null, unread: await githubCouldAnswer(ctx, repository) };
      const gh = await clientOf(ctx, repository);
      if (!gh) return { commits: null, changedFiles: null };
      const [commits, files] = await Promise.all([
        pullRequestCommits(gh.client, gh.owner, gh.name, number),
        pullRequestFiles(gh.client, gh.owner, gh.name, number),
      ]);
      const out: PrInputs = {
        commits: Array.isArray(commits) ? commits : null,
        changedFiles: Array.isArray(files) ? files : null,
      };
      await store.savePrInputs(ctx.db, {
        app_id: ctx.appId,
        repository,
        number,
        head_sha: headSha,
        commits: out.commits && JSON.stringify(out.commits),
        files: out.changedFiles && JSON.stringify(out.changedFiles),
        fetched_at: ctx.clock.now(),
      });
      // The sessions that made one of these commits are linked to the PR from now on (prs/commit-links.ts).
      if (out.commits) await recordPrCommits(ctx.db, ctx.appId, { repository, number }, out.commits);
      return out;
    },
    { commits: null, changedFiles: null },
  );
}

/**
 * `.attest/policy.yaml` and `.attest/validators/*.yaml` at the base commit; none (the default policy) without
 * one. Without `fetch`, only what is stored (no GitHub call).
 */
export function policyFiles(
  ctx: FactoryContext,
  repository: string,
  baseSha: string | null,
  fetch: boolean,
): Promise<PolicyFiles> {
  // Unread for now: the default policy, saying why (a policy error row), until a later evaluation reads it.
  const unread: PolicyFiles = {
    source: 'default',
    files: [],
    unreadable: 'GitHub could not be read just now; the default policy applies until it can',
  };
  return orNow(ctx, () => readPolicyFiles(ctx, repository, baseSha, fetch), unread);
}

async function readPolicyFiles(
  ctx: FactoryContext,
  repository: string,
  baseSha: string | null,
  fetch: boolean,
): Promise<PolicyFiles> {
  if (baseSha === null) return { source: 'default', files: [] };
  const cached = await store.findPolicy(ctx.db, ctx.appId, repository, baseSha);
  const sourceOf = (files: PolicyFiles['files']) =>
    files.length === 0
      ? 'default'
      : `${files.some((f) => f.path === POLICY_FILE) ? POLICY_FILE : VALIDATORS_DIR}@${baseSha}`;
  if (cached) {
    const files = JSON.parse(cached.files) as PolicyFiles['files'];
    return { source: sourceOf(files), files };
  }
  if (!fetch) return { source: 'default', files: [], unread: await githubCouldAnswer(ctx, repository) };
  const gh = await clientOf(ctx, repository);
  if (!gh) return { source: 'default', files: [] };
  const files: PolicyFiles['files'] = [];
  const policy = await contentsAt(gh.client, gh.owner, gh.name, POLICY_FILE, baseSha);
  if (policy !== null && policy !== 'not_accessible' && policy.kind === 'file')
    files.push({ path: POLICY_FILE, text: policy.text });
  const dir =
    policy === 'not_accessible' ? null : await contentsAt(gh.client, gh.owner, gh.name, VALIDATORS_DIR, baseSha);
  if (dir && dir !== 'not_accessible' && dir.kind === 'dir') {
    const yamls = dir.entries
      .filter((e) => e.type === 'file' && /\.ya?ml$/i.test(e.path))
      .map((e) => e.path)
      .sort()
      .slice(0, MAX_VALIDATOR_FILES);
    for (const path of yamls) {
      const file = await contentsAt(gh.client, gh.owner, gh.name, path, baseSha);
      if (file && file !== 'not_accessible' && file.kind === 'file') files.push({ path, text: file.text });
    }
  }
  await store.savePolicy(ctx.db, {
    app_id: ctx.appId,
    repository,
    base_sha: baseSha,
    files: JSON.stringify(files),
    fetched_at: ctx.clock.now(),
  });
  return { source: sourceOf(files), files };
}
