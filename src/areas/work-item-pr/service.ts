// PUT /v1/work-items/{workItemId}/pull-request (spec part 3 and part 4): open the item's pull request
// from its live claim's branch into the repository's default branch as the factory's GitHub App, or edit
// the title and body of the pull request already open on that branch (whoever opened it). The checks run
// in the order of the spec's status table, cheapest (our own store) first, GitHub last.
//
// Retried and concurrent calls never open two pull requests: the open pull request on the branch is
// looked up first, and when GitHub refuses a create because one already exists (another call won the
// race), it is read again and edited instead.
import { githubApp, type InstallationClient, type PullRequestSnapshot } from '../../codehost/github.js';
import type { FactoryContext } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { recordAudit } from '../../server/audit.js';
import { applyPullRequest } from '../prs/state.js';
import { findConnectedRepository } from '../repositories/service.js';
import { getClaimForItemKey, getWorkItem, linkPullRequest } from '../work-items/service.js';
import type { PullRequestInput, PullRequestResult } from './schema.js';

export async function putPullRequest(
  ctx: FactoryContext,
  workItemId: string,
  input: PullRequestInput,
): Promise<PullRequestResult> {
  const item = await getWorkItem(ctx, workItemId);
  if (ctx.principal.kind !== 'item_key' || ctx.principal.workItemId !== item.id) {
    throw apiError('forbidden', 'Only the item key of this work item may open its pull request.', {
      required_permission: 'item_key',
    });
  }
  if (item.withdrawn) throw apiError('work_item_withdrawn', 'The work item is withdrawn.');

  // The claim this key was minted for: the key never reaches a later claim of someone else.
  const claim = await getClaimForItemKey(ctx, ctx.principal.credentialId);
  const now = ctx.clock.now();
  if (!claim || claim.workItemId !== item.id || claim.endedAt !== null || claim.expiresAt <= now) {
    throw apiError('claim_expired', 'The work item has no live lease for this key; claim it again.');
  }
  if (claim.branch === null) {
    throw apiError(
      'claim_has_no_branch',
      'The lease names no branch (it was recorded before claims named a branch); claim the item again with a branch.',
    );
  }
  const branch = claim.branch;

  if (!item.repository) throw apiError('work_item_has_no_repository', 'The work item names no repository.');
  // Without an App nothing below can be done (a connection made while one was configured is useless).
  const github = githubApp(ctx.gateway);
  const repo = await findConnectedRepository(ctx, item.repository);
  if (!repo)
    throw apiError('repository_not_connected', `The factory has not connected ${item.repository}.`, {
      repository: item.repository,
    });

  const notInInstallation = () =>
    apiError(
      'repository_not_in_installation',
      `The App installation ${repo.installationId} does not include ${repo.repository}.`,
      { repository: repo.repository },
    );
  let client: InstallationClient | null = await github.installation(repo.installationId);
  if (!client) throw notInInstallation();
  const seen = await client.repository(repo.owner, repo.name);
  if (!seen) throw notInInstallation();
  if (!client.pullRequestWrite) {
    // A cached token carries the permissions of its minting; the installation may have accepted since.
    client = await github.installation(repo.installationId, true);
    if (!client) throw notInInstallation();
    if (!client.pullRequestWrite) {
      throw apiError(
        'repository_permissions_pending',
        `The installation has not accepted the App's pull request write permission on ${repo.repository}.`,
        { repository: repo.repository },
      );
    }
  }
  const [owner, name] = seen.fullName.split('/') as [string, string];
  const base = seen.defaultBranch;

  const notPushed = () =>
    apiError('branch_not_pushed', `The branch ${branch} is not on ${seen.fullName}; push it first.`, { branch });
  const noCommits = () =>
    apiError('branch_has_no_commits', `The branch ${branch} has nothing ${base} lacks.`, { branch, base });
  if ((await client.branchHead(owner, name, branch)) === null) throw notPushed();
  if ((await client.aheadBy(owner, name, base, branch)) === 0) throw noCommits();

  const text = { title: input.title, body: input.body };
  let pull: PullRequestSnapshot;
  let created = false;
  const open = await client.openPullRequest(owner, name, branch);
  // An installation token reads every public repository; only a write shows the installation does not
  // include it (GitHub: 403 "Resource not accessible by integration").
  const edit = async (number: number): Promise<PullRequestSnapshot> => {
    const edited = await client.updatePullRequest(owner, name, number, text);
    if (edited === 'not_accessible') throw notInInstallation();
    return edited;
  };
  if (open) {
    pull = await edit(open.number);
  } else {
    const made = await client.createPullRequest(owner, name, { head: branch, base, ...text });
    if (made === 'no_commits') throw noCommits();
    if (made === 'no_branch') throw notPushed();
    if (made === 'not_accessible') throw notInInstallation();
    if (made === 'exists') {
      const winner = await client.openPullRequest(owner, name, branch);
      if (!winner) {
        throw apiError(
          'github_unavailable',
          'GitHub reports an open pull request on the branch that it does not list yet; retry.',
          {},
          { 'Retry-After': '1' },
        );
      }
      pull = await edit(winner.number);
    } else {
      pull = made;
      created = true;
    }
  }
  const result: PullRequestResult = { repository: seen.fullName, number: pull.number, url: pull.url, created };

  await linkPullRequest(ctx, item.id, { repository: result.repository, number: result.number, url: result.url });
  // PR state as GitHub just answered it, so attribution (GET /v1/prs/...) knows the pull request before
  // its webhook arrives; a later webhook with newer facts wins (applyPullRequest keeps the newest).
  await applyPullRequest(
    ctx,
    { orgId: ctx.orgId, appId: ctx.appId },
    {
      repository: result.repository,
      number: pull.number,
      url: pull.url,
      title: pull.title,
      body: pull.body,
      author: pull.author,
      headBranch: pull.headRef,
      headSha: pull.headSha,
      baseBranch: pull.baseRef,
      open: pull.open,
      merged: pull.merged,
      createdAt: pull.createdAt,
      closedAt: pull.closedAt,
      mergedAt: pull.mergedAt,
      updatedAt: pull.updatedAt,
    },
  );
  await recordAudit(ctx.db, ctx.clock, {
    orgId: ctx.orgId,
    actionType: result.created ? 'work_item.pull_request_opened' : 'work_item.pull_request_edited',
    actor: ctx.principal,
    targetType: 'work_item',
    targetId: item.id,
    targetIdentifier: `#${item.number}`,
    details: { repository: result.repository, number: result.number, branch },
  });
  return result;
}
