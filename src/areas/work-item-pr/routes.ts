// PUT /v1/work-items/{workItemId}/pull-request: only an item key, only its own item (spec part 4).
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data } from '../../server/schemas.js';
import { PullRequestInput, PullRequestResult } from './schema.js';
import { putPullRequest } from './service.js';

export const workItemPullRequestRoutes: AreaRoutes = (app) => {
  app.put(
    '/work-items/:workItemId/pull-request',
    {
      config: {
        // Any other credential, even a full-access key, is refused as if it lacked the permission (403).
        guard: { credentials: ['item_key'], wrongKindStatus: 403, wrongKindPermission: 'item_key' },
      },
      schema: {
        summary: "Open the work item's pull request, or edit the open one",
        tags: ['work-items'],
        description: [
          "Opens a pull request from the branch of the item's live claim into the repository's default branch as the " +
            'GitHub App (201, created=true), or edits only the title and body of the pull request already open on ' +
            'that branch, whoever opened it (200, created=false). The pull request is linked to the item. Retried ' +
            'calls never open a second pull request.',
          "Only the item key a claim returned may call it; another item's key gets 403.",
          'Errors: 404 work_item_not_found; 409 work_item_withdrawn, claim_has_no_branch, ' +
            'repository_permissions_pending; 410 claim_expired; 422 work_item_has_no_repository, ' +
            'repository_not_connected, repository_not_in_installation, branch_not_pushed, branch_has_no_commits; 503 ' +
            'repository_tokens_unavailable, github_unavailable (Retry-After).',
        ].join('\n\n'),
        params: Type.Object({ workItemId: Type.String({ minLength: 1, maxLength: 64 }) }),
        body: PullRequestInput,
        response: { 200: Data(PullRequestResult), 201: Data(PullRequestResult) },
      },
    },
    async (req, reply) => {
      const result = await putPullRequest(factoryContext(req.ctx), req.params.workItemId, req.body);
      return reply.status(result.created ? 201 : 200).send({ data: result });
    },
  );
};
