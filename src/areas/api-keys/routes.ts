// Factory API keys: GET/POST /v1/api-keys, DELETE /v1/api-keys/{id}.
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, Limit, Offset, Uuid, NoContent, Ref } from '../../server/schemas.js';
import { ApiKey, CreatedApiKey, CreateKeyInput } from './schema.js';
import { createKey, listKeys, revokeKey } from './service.js';

export const apiKeysRoutes: AreaRoutes = (app) => {
  app.get(
    '/api-keys',
    {
      config: { guard: { permission: 'api_keys.read' } },
      schema: {
        summary: "List the factory's live API keys",
        tags: ['api-keys'],
        description: '`limit`/`offset` page the list (ordered as without them).',
        querystring: Type.Object(
          { limit: Type.Optional(Limit(500)), offset: Type.Optional(Offset()) },
          { additionalProperties: false },
        ),
        response: { 200: Data(Type.Array(Ref(ApiKey))) },
      },
    },
    async (req) => ({ data: await listKeys(factoryContext(req.ctx), req.query) }),
  );

  app.post(
    '/api-keys',
    {
      config: { guard: { permission: 'api_keys.write' } },
      schema: {
        summary: 'Create an API key (plaintext returned once)',
        tags: ['api-keys'],
        description:
          'Give `preset` (ingest, read-only, full-access) or an explicit `permissions` list; neither means ' +
          'read-only. A key never gets a permission its creator lacks.',
        body: CreateKeyInput,
        response: { 201: Data(CreatedApiKey) },
      },
    },
    async (req, reply) => reply.status(201).send({ data: await createKey(factoryContext(req.ctx), req.body) }),
  );

  app.delete(
    '/api-keys/:id',
    {
      config: { guard: { permission: 'api_keys.write' } },
      schema: {
        response: { 204: NoContent },
        summary: 'Revoke an API key',
        tags: ['api-keys'],
        params: Type.Object({ id: Uuid }),
      },
    },
    async (req, reply) => {
      await revokeKey(factoryContext(req.ctx), req.params.id);
      return reply.status(204).send(null);
    },
  );
};
