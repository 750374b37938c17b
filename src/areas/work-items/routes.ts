// Work items and claims: list/read/upsert/patch/withdraw items, claim, renew and release leases, and
// declare pull requests onto an item. Shapes: spec part 2 (list entry) and API.md §5–§6.
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, DateTime, Nullable, NoContent, OffsetPageQuery, OffsetPage, Literals } from '../../server/schemas.js';
import {
  CLAIM_DEFAULT_TTL_SECONDS,
  CLAIM_MAX_TTL_SECONDS,
  ClaimBody,
  ClaimHistoryEntrySchema,
  ClaimSchema,
  DeclarePullRequestBody,
  PatchWorkItemBody,
  UpsertWorkItemBody,
  WorkItemListEntrySchema,
  WorkItemSchema,
} from './schema.js';
import { claimWorkItem, listClaimHistory, releaseClaim, renewClaim } from './claims.js';
import {
  claimToWire,
  declarePullRequest,
  getWorkItem,
  listPullRequestsOf,
  listWorkItems,
  patchWorkItem,
  toWire,
  upsertWorkItem,
  withdrawWorkItem,
} from './service.js';

const ItemParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'The work item uuid or its number in the factory.' }),
});
const LinkedPullRequestSchema = Type.Object({
  repository: Type.String(),
  number: Type.Integer(),
  url: Type.String(),
  linkedAt: DateTime,
});

const READ = { permission: 'work.read' } as const;
const WRITE = { permission: 'work.write' } as const;

export const workItemsRoutes: AreaRoutes = (app) => {
  const minTtl = app.attest.config.claimMinTtlSeconds;

  app.get(
    '/work-items',
    {
      config: { guard: READ },
      schema: {
        summary: "List the factory's live (or withdrawn) work items",
        tags: ['work-items'],
        description:
          'Live (not withdrawn) items by number, up to 100 a page; `withdrawn=true` lists the withdrawn items ' +
          'instead (same entries, same paging). Send `pagination.cursor` back as `cursor` for the next page; a ' +
          'malformed cursor answers 400 invalid_cursor.',
        querystring: Type.Object(
          {
            cursor: Type.Optional(Type.String({ maxLength: 400 })),
            withdrawn: Type.Optional(
              Literals(['true', 'false', '1', '0'], {
                description: 'true (or 1): the withdrawn items instead of the live ones. Default false.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            data: Type.Array(WorkItemListEntrySchema),
            pagination: Type.Object({ cursor: Nullable(Type.String()) }),
          }),
        },
      },
    },
    async (req) => {
      const withdrawn = req.query.withdrawn === 'true' || req.query.withdrawn === '1';
      const page = await listWorkItems(factoryContext(req.ctx), req.query.cursor, withdrawn);
      return { data: page.items, pagination: { cursor: page.cursor } };
    },
  );

  app.post(
    '/work-items',
    {
      config: { guard: WRITE },
      schema: {
        summary: 'Create or update a work item (upsert by tracker + trackerKey)',
        tags: ['work-items'],
        description:
          '201 when the item was created (it gets the next number in the factory), 200 when an item with the same ' +
          'tracker and trackerKey was updated. Fields left out keep their value (on create: stage backlog, section ' +
          '"", blockClass none, specRepository = repository or "", specNumber 0). Re-stating a withdrawn item ' +
          'makes it active again.',
        body: UpsertWorkItemBody,
        response: { 200: Data(WorkItemSchema), 201: Data(WorkItemSchema) },
      },
    },
    async (req, reply) => {
      const { item, created } = await upsertWorkItem(factoryContext(req.ctx), req.body);
      return reply.status(created ? 201 : 200).send({ data: toWire(item) });
    },
  );

  app.get(
    '/work-items/:id',
    {
      config: { guard: READ },
      schema: {
        summary: 'Read one work item by id or number',
        tags: ['work-items'],
        params: ItemParams,
        response: { 200: Data(WorkItemSchema) },
      },
    },
    async (req) => ({ data: toWire(await getWorkItem(factoryContext(req.ctx), req.params.id)) }),
  );

  app.patch(
    '/work-items/:id',
    {
      config: { guard: WRITE },
      schema: {
        summary: 'Change stage, section, blockClass, title or repository',
        tags: ['work-items'],
        description: 'A withdrawn item answers 409 work_item_withdrawn. `repository: null` clears it.',
        params: ItemParams,
        body: PatchWorkItemBody,
        response: { 200: Data(WorkItemSchema) },
      },
    },
    async (req) => ({ data: toWire(await patchWorkItem(factoryContext(req.ctx), req.params.id, req.body)) }),
  );

  app.post(
    '/work-items/:id/withdraw',
    {
      config: { guard: WRITE },
      schema: {
        summary: 'Withdraw a work item',
        tags: ['work-items'],
        description:
          'Idempotent. A withdrawn item leaves the list, cannot be claimed or changed, and its claim key gets 409 ' +
          'work_item_withdrawn.',
        params: ItemParams,
        response: { 200: Data(WorkItemSchema) },
      },
    },
    async (req) => ({ data: toWire(await withdrawWorkItem(factoryContext(req.ctx), req.params.id)) }),
  );

  app.post(
    '/work-items/:id/claims',
    {
      config: { guard: WRITE },
      schema: {
        summary: 'Claim a work item for a branch (returns the item key once)',
        tags: ['work-items'],
        description:
          `Exactly one live claim per item: another live claim answers 409 work_item_claimed. The lease lasts ` +
          `ttlSeconds (${minTtl}–${CLAIM_MAX_TTL_SECONDS}, default ${CLAIM_DEFAULT_TTL_SECONDS}); an expired lease ` +
          `frees the item. \`itemKey\` (oli_) is shown only here; it authenticates only as this item.`,
        params: ItemParams,
        body: ClaimBody(minTtl),
        response: { 201: Data(Type.Object({ claim: ClaimSchema, itemKey: Type.String() })) },
      },
    },
    async (req, reply) => {
      const { claim, itemKey } = await claimWorkItem(factoryContext(req.ctx), req.params.id, req.body);
      return reply.status(201).send({ data: { claim: claimToWire(claim), itemKey } });
    },
  );

  app.get(
    '/work-items/:id/claims',
    {
      config: { guard: READ },
      schema: {
        summary: "The work item's claim history, newest first",
        tags: ['work-items'],
        description:
          'Every claim the item ever had (withdrawn items too): `state` live, released (let go while its lease ran) ' +
          'or expired (the lease ran out; `endedAt` is set once a later claim or a release ended it). Item keys ' +
          'are never shown. limit 1–100 (default 50), offset.',
        params: ItemParams,
        querystring: OffsetPageQuery,
        response: {
          200: OffsetPage(ClaimHistoryEntrySchema),
        },
      },
    },
    async (req) => {
      const limit = req.query.limit ?? 50;
      const offset = req.query.offset ?? 0;
      const page = await listClaimHistory(factoryContext(req.ctx), req.params.id, { limit, offset });
      return { data: page.claims, pagination: { total: page.total, limit, offset } };
    },
  );

  app.put(
    '/work-items/:id/claims/current',
    {
      config: { guard: { credentials: ['item_key'] } },
      schema: {
        summary: "Renew the caller's claim",
        tags: ['work-items'],
        description:
          "Item key only. Moves expiresAt to now + the claim's ttlSeconds. 410 claim_expired once the lease has run " +
          'out (claim again).',
        params: ItemParams,
        response: { 200: Data(Type.Object({ claim: ClaimSchema })) },
      },
    },
    async (req) => ({ data: { claim: claimToWire(await renewClaim(factoryContext(req.ctx), req.params.id)) } }),
  );

  app.delete(
    '/work-items/:id/claims/current',
    {
      config: { guard: { credentials: ['item_key', 'factory_key', 'login_token'] } },
      schema: {
        response: { 204: NoContent },
        summary: 'Release the claim',
        tags: ['work-items'],
        description:
          "The claim's item key releases its own claim; a factory key or login token needs work.write and releases " +
          'whatever claim is open. The item key is revoked. 204.',
        params: ItemParams,
      },
    },
    async (req, reply) => {
      await releaseClaim(factoryContext(req.ctx), req.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/work-items/:id/pull-requests',
    {
      config: { guard: WRITE },
      schema: {
        summary: 'Declare a pull request onto the work item',
        tags: ['work-items'],
        description:
          'Idempotent per repository + number. Artifacts anchored to a declared pull request count as evidence of ' +
          'the item. `url` defaults to the github.com pull request page.',
        params: ItemParams,
        body: DeclarePullRequestBody,
        response: { 201: Data(LinkedPullRequestSchema) },
      },
    },
    async (req, reply) => {
      const pr = await declarePullRequest(factoryContext(req.ctx), req.params.id, req.body);
      return reply.status(201).send({ data: { ...pr, linkedAt: new Date(pr.linkedAt).toISOString() } });
    },
  );

  app.get(
    '/work-items/:id/pull-requests',
    {
      config: { guard: READ },
      schema: {
        summary: 'Pull requests declared onto the work item',
        tags: ['work-items'],
        params: ItemParams,
        response: { 200: Data(Type.Array(LinkedPullRequestSchema)) },
      },
    },
    async (req) => ({
      data: (await listPullRequestsOf(factoryContext(req.ctx), req.params.id)).map((p) => ({
        ...p,
        linkedAt: new Date(p.linkedAt).toISOString(),
      })),
    }),
  );
};
