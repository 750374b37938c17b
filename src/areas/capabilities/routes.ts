// GET /v1/capabilities (which areas and features this server has) and GET /v1/openapi.json (the OpenAPI
// 3.1 document generated from the route schemas). Both public.
import { Type, type Static } from 'typebox';
import type { AreaRoutes } from '../../server/context.js';
import { Data } from '../../server/schemas.js';
import { capabilities } from './service.js';
import { Capabilities } from './schema.js';

const OpenApiDocument = Type.Object(
  {
    openapi: Type.String({ description: '3.1.x' }),
    info: Type.Object({ title: Type.String(), version: Type.String() }, { additionalProperties: true }),
    components: Type.Object({}, { additionalProperties: true }),
    paths: Type.Object(
      {},
      { additionalProperties: true, description: 'Every operation, keyed by path template and method.' },
    ),
    servers: Type.Array(Type.Object({ url: Type.String() }, { additionalProperties: true })),
  },
  { additionalProperties: true, description: 'An OpenAPI 3.1 document (bare JSON, not in `data`).' },
);

export const capabilitiesRoutes: AreaRoutes = (app) => {
  app.get(
    '/capabilities',
    {
      schema: {
        summary: 'Which areas and features this server has',
        tags: ['capabilities'],
        response: {
          200: Data(Capabilities),
        },
      },
    },
    async (req) => ({ data: capabilities(req.ctx.gateway, req.server) }),
  );

  app.get(
    '/openapi.json',
    {
      schema: {
        summary: 'The OpenAPI 3.1 document of this API (bare, not in `data`)',
        tags: ['capabilities'],
        // Declared in the order @fastify/swagger builds the document, every level open: the serializer writes
        // the declared keys first, then the rest as JSON.stringify would, so the bytes are those of the document.
        response: {
          200: OpenApiDocument,
        },
      },
    },
    async (req, reply) => {
      reply.header('Cache-Control', 'public, max-age=300');
      // swagger() is typed for every OpenAPI version; this server's document is the 3.1 one configured in app.ts.
      return req.server.swagger() as Static<typeof OpenApiDocument>;
    },
  );
};
