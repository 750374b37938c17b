// The acceptance criteria of a work item: PUT replaces the list, GET reads it.
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, DateTime, Nullable, Uuid } from '../../server/schemas.js';
import { MAX_CRITERIA, getCriteria, replaceCriteria } from './service.js';

const StringOrNull = (opts: { minLength?: number; maxLength?: number; pattern?: string } = {}) =>
  Nullable(Type.String(opts));

const CriterionId = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]*$' });
const Criterion = Type.Object({
  id: CriterionId,
  text: Type.String({ minLength: 1, maxLength: 4000 }),
  proof: Nullable(Type.String({ maxLength: 4000 })),
});
const CriteriaList = Type.Object({ workItemId: Uuid, criteria: Type.Array(Criterion), updatedAt: Nullable(DateTime) });
const ItemParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'The work item uuid or its number in the factory.' }),
});

export const criteriaRoutes: AreaRoutes = (app) => {
  app.get(
    '/work-items/:id/criteria',
    {
      config: { guard: { permission: 'work.read' } },
      schema: {
        summary: "Read a work item's acceptance criteria",
        tags: ['criteria'],
        params: ItemParams,
        response: { 200: Data(CriteriaList) },
      },
    },
    async (req) => ({ data: await getCriteria(factoryContext(req.ctx), req.params.id) }),
  );

  app.put(
    '/work-items/:id/criteria',
    {
      config: { guard: { permission: 'criteria.write' } },
      schema: {
        summary: "Replace a work item's acceptance criteria",
        tags: ['criteria'],
        description:
          `The whole list, in order: at most ${MAX_CRITERIA} criteria with unique ids (400 ` +
          `duplicate_criterion_id). An empty list clears it. A withdrawn item answers 409 work_item_withdrawn.`,
        params: ItemParams,
        body: Type.Object(
          {
            criteria: Type.Array(
              Type.Object(
                {
                  id: CriterionId,
                  text: Type.String({ minLength: 1, maxLength: 4000 }),
                  proof: Type.Optional(StringOrNull({ maxLength: 4000 })),
                },
                { additionalProperties: false },
              ),
              { maxItems: MAX_CRITERIA },
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Data(CriteriaList) },
      },
    },
    async (req) => ({ data: await replaceCriteria(factoryContext(req.ctx), req.params.id, req.body.criteria) }),
  );
};
