// Findings on a work item: POST records one, GET lists them oldest first (limit/offset).
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, Ref, OffsetPage, OffsetPageQuery } from '../../server/schemas.js';
import { Finding, FindingInput } from './schema.js';
import { listFindings, recordFinding } from './service.js';

const ItemParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'The work item uuid or its number in the factory.' }),
});

export const findingsRoutes: AreaRoutes = (app) => {
  app.post(
    '/work-items/:id/findings',
    {
      config: { guard: { permission: 'findings.write' } },
      schema: {
        summary: 'Record a finding on a work item',
        tags: ['findings'],
        description:
          'What an agent found wrong about a change under review (`about: change`) or about a rule it ran on ' +
          '(`about: rule`, which needs `rule`). `line` needs `path`. A withdrawn item answers 409 ' +
          'work_item_withdrawn.',
        params: ItemParams,
        body: FindingInput,
        response: { 201: Data(Ref(Finding)) },
      },
    },
    async (req, reply) =>
      reply.status(201).send({ data: await recordFinding(factoryContext(req.ctx), req.params.id, req.body) }),
  );

  app.get(
    '/work-items/:id/findings',
    {
      config: { guard: { permission: 'findings.read' } },
      schema: {
        summary: "List a work item's findings, oldest first",
        tags: ['findings'],
        params: ItemParams,
        querystring: OffsetPageQuery,
        response: {
          200: OffsetPage(Ref(Finding)),
        },
      },
    },
    async (req) => {
      const limit = req.query.limit ?? 50;
      const offset = req.query.offset ?? 0;
      const page = await listFindings(factoryContext(req.ctx), req.params.id, { limit, offset });
      return { data: page.findings, pagination: { total: page.total, limit, offset } };
    },
  );
};
