// The acceptance criteria of a work item: PUT replaces the list, GET reads it.
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data } from '../../server/schemas.js';
import { CriteriaBody, CriteriaList, MAX_CRITERIA } from './schema.js';
import { getCriteria, replaceCriteria } from './service.js';

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
        body: CriteriaBody,
        response: { 200: Data(CriteriaList) },
      },
    },
    async (req) => ({ data: await replaceCriteria(factoryContext(req.ctx), req.params.id, req.body.criteria) }),
  );
};
