// Emitted results: POST /v1/emitted-results, GET /v1/emitted-results?repository=&prNumber=.
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, DateTime, Nullable, Uuid, PrNumber as PrNumberSchema } from '../../server/schemas.js';
import { emitResult, listChecks } from './service.js';


const Repository = Type.String({ minLength: 3, maxLength: 200, pattern: '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$' });
const PrNumber = PrNumberSchema();
const Result = Type.Union([Type.Literal('pass'), Type.Literal('fail')]);
const CiFacts = Type.Record(Type.String(), Type.Unknown(), { description: 'Free-form facts about the CI run (provider, workflow, job, attempt...), at most 4096 characters of JSON.' });
const Ci = Type.Union([CiFacts, Type.Boolean({ description: 'Whether it ran in CI (the OuterLayer CLI sends a boolean).' })]);

const EmittedResult = Type.Object({
  id: Uuid,
  clientEmitId: Type.String(),
  name: Type.String(),
  result: Result,
  link: Type.String(),
  repository: Type.String(),
  prNumber: Type.Integer(),
  headSha: Nullable(Type.String()),
  ci: Nullable(Ci),
  emittedAt: DateTime,
  createdAt: DateTime,
});

const Check = Type.Object({
  ...EmittedResult.properties,
  history: Type.Array(EmittedResult, { description: 'Earlier results of the same check name, newest first.' }),
});

const EmitBody = Type.Object(
  {
    schemaVersion: Type.Literal(1),
    emit: Type.Object(
      {
        clientEmitId: Type.String({ minLength: 1, maxLength: 200 }),
        name: Type.String({ minLength: 1, maxLength: 200 }),
        result: Result,
        link: Type.String({ minLength: 1, maxLength: 2048, description: 'The run URL (http or https): the proof.' }),
        emittedAt: DateTime,
        prNumber: PrNumber,
        repository: Type.Optional(Repository),
        gitRepo: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'The normalized git remote (github.com/acme/api); stands in for a missing repository.' })),
        headSha: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{7,64}$' })),
        ci: Type.Optional(Ci),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const resultsRoutes: AreaRoutes = (app) => {
  app.post('/emitted-results', {
    config: { guard: { permission: 'results.write' } },
    schema: {
      summary: 'Record the pass/fail result of a check run in your own CI',
      tags: ['emitted-results'],
      description:
        'Anchored to a pull request, with the run URL as proof (http/https only: 400 invalid_link). Idempotent on clientEmitId: ' +
        'the same result again answers 200 with the stored one; a different result under the same clientEmitId answers 409 conflict.',
      body: EmitBody,
      response: { 201: Data(EmittedResult), 200: Data(EmittedResult) },
    },
  }, async (req, reply) => {
    const { result, created } = await emitResult(factoryContext(req.ctx), req.body.emit);
    return reply.status(created ? 201 : 200).send({ data: result });
  });

  app.get('/emitted-results', {
    config: { guard: { permission: 'results.read' } },
    schema: {
      summary: "A pull request's checks: the latest result of each check name, with its history",
      tags: ['emitted-results'],
      description: 'One entry per check name: its latest result (by emittedAt) and `history`, the earlier ones newest first. Checks with the newest latest result come first.',
      querystring: Type.Object({ repository: Repository, prNumber: PrNumber }, { additionalProperties: false }),
      response: { 200: Data(Type.Array(Check)) },
    },
  }, async (req) => ({ data: await listChecks(factoryContext(req.ctx), req.query.repository, req.query.prNumber) }));
};
