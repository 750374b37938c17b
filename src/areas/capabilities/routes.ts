// GET /v1/capabilities (which areas and features this server has) and GET /v1/openapi.json (the OpenAPI
// 3.1 document generated from the route schemas). Both public.
import { Type } from 'typebox';
import type { AreaRoutes } from '../../server/context.js';
import { Data } from '../../server/schemas.js';
import { capabilities } from './service.js';

export const capabilitiesRoutes: AreaRoutes = (app) => {
  app.get('/v1/capabilities', {
    config: { guard: { credentials: 'public' } },
    schema: {
      summary: 'Which areas and features this server has', tags: ['capabilities'],
      response: {
        200: Data(Type.Object({
          version: Type.String({ description: 'Gateway version.' }),
          apiVersion: Type.Literal('1.0'),
          areas: Type.Array(Type.String(), { description: 'Areas whose routes this server registered.' }),
          features: Type.Object({
            redisRateLimits: Type.Boolean(),
            s3Blobs: Type.Boolean(),
            githubApp: Type.Boolean(),
            mcp: Type.Boolean(),
            oauth: Type.Boolean(),
          }),
          stores: Type.Object({
            database: Type.String({ description: 'sqlite | postgres' }),
            rateLimits: Type.String({ description: 'memory | redis' }),
            blobs: Type.String({ description: 'fs | s3' }),
          }),
        })),
      },
    },
  }, async (req) => ({ data: capabilities(req.ctx.gateway, req.server) }));

  app.get('/v1/openapi.json', {
    config: { guard: { credentials: 'public' } },
    // The document describes itself as a bare JSON object; no response schema, it is served as built.
    schema: { summary: 'The OpenAPI 3.1 document of this API (bare, not in `data`)', tags: ['capabilities'] },
  }, async (req, reply) => {
    reply.header('Cache-Control', 'public, max-age=300');
    return req.server.swagger();
  });
};
