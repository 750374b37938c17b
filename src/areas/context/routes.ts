// Context: POST /v1/context/sync, GET /v1/context/changes, GET /v1/context/source (API.md §6).
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, OffsetPage, Ref } from '../../server/schemas.js';
import { ChangesQuery, CommitSha, ContextCommit, ContextSource, ContextSyncResult, SyncBody } from './schema.js';
import { listChanges, readSource, syncContext } from './service.js';

/** A whole `.outerlayer/` tree travels base64-encoded in one body; the sync limit of API.md §8 applies. */
export const CONTEXT_SYNC_BODY_LIMIT = 8 * 1024 * 1024;

export const contextRoutes: AreaRoutes = (app) => {
  app.post(
    '/context/sync',
    {
      bodyLimit: CONTEXT_SYNC_BODY_LIMIT,
      config: { guard: { permission: 'context.write' } },
      schema: {
        summary: 'Store the whole .outerlayer/ tree at a commit',
        tags: ['context'],
        description:
          'Send every file of the tree (base64). Unchanged files are stored once (content-addressed). 201 when the ' +
          'commit is new; 200 when the same tree was already synced at this commit; 409 `conflict` when the commit ' +
          'was synced with other contents.',
        body: SyncBody,
        response: { 200: Data(Ref(ContextSyncResult)), 201: Data(Ref(ContextSyncResult)) },
      },
    },
    async (req, reply) => {
      const result = await syncContext(factoryContext(req.ctx), req.body);
      return reply.status(result.created ? 201 : 200).send({ data: result });
    },
  );

  app.get(
    '/context/changes',
    {
      config: { guard: { permission: 'context.read' }, rateLimit: 'observability-read' },
      schema: {
        summary: 'Synced-commit history, newest first, with per-file changes',
        tags: ['context'],
        description: 'Each commit lists the files added, modified or removed relative to the commit synced before it.',
        querystring: ChangesQuery,
        response: {
          200: OffsetPage(Ref(ContextCommit)),
        },
      },
    },
    async (req) => {
      const { branch } = req.query;
      // Optional with defaults (the validator fills them in); the fallbacks only satisfy the types.
      const limit = req.query.limit ?? 25;
      const offset = req.query.offset ?? 0;
      const page = await listChanges(factoryContext(req.ctx), {
        limit,
        offset,
        ...(branch !== undefined ? { branch } : {}),
      });
      return { data: page.data, pagination: { total: page.total, limit, offset } };
    },
  );

  app.get(
    '/context/source',
    {
      config: { guard: { permission: 'context.read' }, rateLimit: 'observability-read' },
      schema: {
        summary: 'The tree listing, a directory, or one file at a synced commit',
        tags: ['context'],
        description:
          'Without commitSha: the latest synced commit. Without path: the whole tree. A path naming a directory ' +
          'lists the files under it; a path naming a file returns its bytes (base64). 404 `context_not_found` for ' +
          'an unknown commit or path.',
        querystring: Type.Object(
          {
            commitSha: Type.Optional(CommitSha),
            path: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Data(Ref(ContextSource)) },
      },
    },
    async (req) => ({ data: await readSource(factoryContext(req.ctx), req.query.commitSha, req.query.path) }),
  );
};
