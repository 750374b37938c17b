// GET /health: the process answers. The dependency checks live in /v1/health/ingestion and /v1/health/files.
import { Type } from 'typebox';
import type { AreaRoutes } from '../../server/context.js';

export const healthRoutes: AreaRoutes = (app) => {
  app.get('/health', {
    config: { guard: { credentials: 'public' } },
    schema: {
      summary: 'Liveness',
      response: { 200: Type.Object({ data: Type.Object({ status: Type.Literal('ok'), uptimeMs: Type.Integer() }) }) },
    },
  }, async (req) => ({ data: { status: 'ok' as const, uptimeMs: req.ctx.clock.now() - req.ctx.gateway.startedAt } }));
};
