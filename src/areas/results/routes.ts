// Emitted results: POST /v1/emitted-results, GET /v1/emitted-results?repository=&prNumber=.
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, Ref } from '../../server/schemas.js';
import { Check, EmitBody, EmittedResult, PrNumber, Repository } from './schema.js';
import { emitResult, listChecks } from './service.js';

export const resultsRoutes: AreaRoutes = (app) => {
  app.post(
    '/emitted-results',
    {
      config: { guard: { permission: 'results.write' } },
      schema: {
        summary: 'Record the pass/fail result of a check run in your own CI',
        tags: ['emitted-results'],
        description:
          'Anchored to a pull request, with the run URL as proof (http/https only: 400 invalid_link). Idempotent on ' +
          'clientEmitId: ' +
          'the same result again answers 200 with the stored one; a different result under the same clientEmitId ' +
          'answers 409 conflict.',
        body: EmitBody,
        response: { 201: Data(Ref(EmittedResult)), 200: Data(Ref(EmittedResult)) },
      },
    },
    async (req, reply) => {
      const { result, created } = await emitResult(factoryContext(req.ctx), req.body.emit);
      return reply.status(created ? 201 : 200).send({ data: result });
    },
  );

  app.get(
    '/emitted-results',
    {
      config: { guard: { permission: 'results.read' } },
      schema: {
        summary: "A pull request's checks: the latest result of each check name, with its history",
        tags: ['emitted-results'],
        description:
          'One entry per check name: its latest result (by emittedAt) and `history`, the earlier ones newest first. ' +
          'Checks with the newest latest result come first.',
        querystring: Type.Object({ repository: Repository, prNumber: PrNumber }, { additionalProperties: false }),
        response: { 200: Data(Type.Array(Ref(Check))) },
      },
    },
    async (req) => ({ data: await listChecks(factoryContext(req.ctx), req.query.repository, req.query.prNumber) }),
  );
};
