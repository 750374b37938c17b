// Factory API keys: GET/POST /v1/api-keys, DELETE /v1/api-keys/{id}.
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, DateTime, Limit, Nullable, Offset, Uuid, NoContent } from '../../server/schemas.js';
import { KEY_PRESETS, PERMISSIONS } from '../../server/permissions.js';
import { createKey, listKeys, revokeKey } from './service.js';

const Permission = Type.Union(PERMISSIONS.map((p) => Type.Literal(p)));
const ApiKey = Type.Object({
  id: Uuid,
  name: Type.String(),
  permissions: Type.Array(Type.String()),
  key_prefix: Type.String(),
  created_at: DateTime,
  created_by: Nullable(Type.String()),
  expires_at: Nullable(DateTime),
});

export const apiKeysRoutes: AreaRoutes = (app) => {
  app.get('/api-keys', {
    config: { guard: { permission: 'api_keys.read' } },
    schema: {
      summary: "List the factory's live API keys", tags: ['api-keys'],
      description: '`limit`/`offset` page the list (ordered as without them).',
      querystring: Type.Object({ limit: Type.Optional(Limit(500)), offset: Type.Optional(Offset()) }, { additionalProperties: false }),
      response: { 200: Data(Type.Array(ApiKey)) },
    },
  }, async (req) => ({ data: await listKeys(factoryContext(req.ctx), req.query) }));

  app.post('/api-keys', {
    config: { guard: { permission: 'api_keys.write' } },
    schema: {
      summary: 'Create an API key (plaintext returned once)', tags: ['api-keys'],
      description: 'Give `preset` (ingest, read-only, full-access) or an explicit `permissions` list; neither means read-only. A key never gets a permission its creator lacks.',
      body: Type.Object({
        name: Type.String({ minLength: 1, maxLength: 100 }),
        preset: Type.Optional(Type.Union(KEY_PRESETS.map((p) => Type.Literal(p)))),
        permissions: Type.Optional(Type.Array(Permission, { minItems: 1, maxItems: PERMISSIONS.length })),
        expiresAt: Type.Optional(DateTime),
      }, { additionalProperties: false }),
      response: { 201: Data(Type.Object({ ...ApiKey.properties, plaintext_key: Type.String() })) },
    },
  }, async (req, reply) => reply.status(201).send({ data: await createKey(factoryContext(req.ctx), req.body) }));

  app.delete('/api-keys/:id', {
    config: { guard: { permission: 'api_keys.write' } },
    schema: { response: { 204: NoContent }, summary: 'Revoke an API key', tags: ['api-keys'], params: Type.Object({ id: Uuid }) },
  }, async (req, reply) => {
    await revokeKey(factoryContext(req.ctx), req.params.id);
    return reply.status(204).send(null);
  });
};
