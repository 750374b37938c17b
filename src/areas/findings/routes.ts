// Findings on a work item: POST records one, GET lists them oldest first (limit/offset).
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, DateTime, Nullable, Uuid, Int32, PrNumber, Limit, Offset } from '../../server/schemas.js';
import { ABOUT, SEVERITIES, listFindings, recordFinding } from './service.js';

const Finding = Type.Object({
  id: Uuid,
  workItemId: Uuid,
  source: Type.String(),
  about: Type.String(),
  severity: Type.String(),
  title: Type.String(),
  body: Nullable(Type.String()),
  path: Nullable(Type.String()),
  line: Nullable(Type.Integer()),
  rule: Nullable(Type.String()),
  prNumber: Nullable(Type.Integer()),
  createdAt: DateTime,
});
const ItemParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: 'The work item uuid or its number in the factory.' }) });

export const findingsRoutes: AreaRoutes = (app) => {
  app.post('/work-items/:id/findings', {
    config: { guard: { permission: 'findings.write' } },
    schema: {
      summary: 'Record a finding on a work item', tags: ['findings'],
      description: 'What an agent found wrong about a change under review (`about: change`) or about a rule it ran on (`about: rule`, which needs `rule`). `line` needs `path`. A withdrawn item answers 409 work_item_withdrawn.',
      params: ItemParams,
      body: Type.Object({
        source: Type.String({ minLength: 1, maxLength: 200 }),
        about: Type.Union(ABOUT.map((a) => Type.Literal(a))),
        severity: Type.Union(SEVERITIES.map((s) => Type.Literal(s))),
        title: Type.String({ minLength: 1, maxLength: 500 }),
        body: Type.Optional(Type.String({ maxLength: 65536 })),
        path: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
        line: Type.Optional(Int32({ minimum: 1 })),
        rule: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        prNumber: Type.Optional(PrNumber()),
      }, { additionalProperties: false }),
      response: { 201: Data(Finding) },
    },
  }, async (req, reply) => reply.status(201).send({ data: await recordFinding(factoryContext(req.ctx), req.params.id, req.body) }));

  app.get('/work-items/:id/findings', {
    config: { guard: { permission: 'findings.read' } },
    schema: {
      summary: "List a work item's findings, oldest first", tags: ['findings'],
      params: ItemParams,
      querystring: Type.Object({
        limit: Type.Optional(Limit(100, undefined, { description: 'default 50' })),
        offset: Type.Optional(Offset({ description: 'default 0' })),
      }, { additionalProperties: false }),
      response: { 200: Type.Object({ data: Type.Array(Finding), pagination: Type.Object({ total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }) }) },
    },
  }, async (req) => {
    const limit = req.query.limit ?? 50;
    const offset = req.query.offset ?? 0;
    const page = await listFindings(factoryContext(req.ctx), req.params.id, { limit, offset });
    return { data: page.findings, pagination: { total: page.total, limit, offset } };
  });
};
