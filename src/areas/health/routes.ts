// GET /health: the process answers. GET /v1/health/ingestion and /v1/health/files: each dependency with its
// status and latency; 503 store_unavailable (with the checks and Retry-After) when a critical one is down.
import { Type } from 'typebox';
import type { AreaRoutes } from '../../server/context.js';
import { Data } from '../../server/schemas.js';
import { HealthReport } from './schema.js';
import { filesHealth, ingestionHealth } from './service.js';

const Report = Data(HealthReport);

export const healthRoutes: AreaRoutes = (app) => {
  app.get(
    '/health',
    {
      schema: {
        summary: 'Liveness',
        tags: ['health'],
        response: { 200: Type.Object({ data: Type.Object({ status: Type.Literal('ok'), uptimeMs: Type.Integer() }) }) },
      },
    },
    async (req) => ({ data: { status: 'ok' as const, uptimeMs: req.ctx.clock.now() - req.ctx.gateway.startedAt } }),
  );

  app.get(
    '/v1/health/ingestion',
    {
      schema: {
        summary: 'Can the gateway take ingest (database, rate-limit store, blob store)',
        tags: ['health'],
        description:
          'The database is critical (503 `store_unavailable` with `checks` and `Retry-After` when it is down); a ' +
          'down rate-limit store (limits fail open) or blob store makes the status `degraded`.',
        response: { 200: Report },
      },
    },
    async (req, reply) => {
      reply.header('Cache-Control', 'no-store');
      return { data: await ingestionHealth(req.ctx.gateway) };
    },
  );

  app.get(
    '/v1/health/files',
    {
      schema: {
        summary: 'Can the gateway store and serve files (blob store write-read round trip)',
        tags: ['health'],
        description:
          'The blob store is critical: 503 `store_unavailable` with `checks` and `Retry-After` when it is down.',
        response: { 200: Report },
      },
    },
    async (req, reply) => {
      reply.header('Cache-Control', 'no-store');
      return { data: await filesHealth(req.ctx.gateway) };
    },
  );
};
