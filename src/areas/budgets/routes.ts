// Budgets: /v1/budgets CRUD. Every read carries the current period's spend, forecast and burn-down.
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, NoContent, Ref, Uuid } from '../../server/schemas.js';
import { Budget, BudgetInput, BudgetPatch } from './schema.js';
import { createBudget, deleteBudget, getBudget, listBudgets, updateBudget } from './service.js';

const IdParams = Type.Object({ id: Uuid });
const tags = ['budgets'];
const about =
  'Spend is the stored cost of the sessions started in the period (subagent transcripts included, as the metrics ' +
  "count it), in the budget's time zone. Each threshold notifies the budget's channels once per period " +
  '(`budget.threshold`), and a forecast past the amount once (`budget.forecast`, marked as a projection).';

export const budgetsRoutes: AreaRoutes = (app) => {
  app.get(
    '/budgets',
    {
      config: { guard: { permission: 'budgets.read' } },
      schema: {
        summary: "The factory's budgets with their current period",
        tags,
        description: about,
        response: { 200: Data(Type.Array(Ref(Budget))) },
      },
    },
    async (req) => ({ data: await listBudgets(factoryContext(req.ctx)) }),
  );

  app.post(
    '/budgets',
    {
      config: { guard: { permission: 'budgets.write' } },
      schema: {
        summary: 'Create a budget',
        tags,
        description:
          `${about} Defaults: thresholds [50, 80, 100], time zone UTC, no channels. 400 invalid_time_zone, 400 ` +
          `unknown_notification_channel.`,
        body: BudgetInput,
        response: { 201: Data(Ref(Budget)) },
      },
    },
    async (req, reply) => reply.status(201).send({ data: await createBudget(factoryContext(req.ctx), req.body) }),
  );

  app.get(
    '/budgets/:id',
    {
      config: { guard: { permission: 'budgets.read' } },
      schema: {
        summary: 'One budget with its current period',
        tags,
        params: IdParams,
        response: { 200: Data(Ref(Budget)) },
      },
    },
    async (req) => ({ data: await getBudget(factoryContext(req.ctx), req.params.id) }),
  );

  app.patch(
    '/budgets/:id',
    {
      config: { guard: { permission: 'budgets.write' } },
      schema: {
        summary: 'Change a budget',
        tags,
        params: IdParams,
        body: BudgetPatch,
        response: { 200: Data(Ref(Budget)) },
      },
    },
    async (req) => ({ data: await updateBudget(factoryContext(req.ctx), req.params.id, req.body) }),
  );

  app.delete(
    '/budgets/:id',
    {
      config: { guard: { permission: 'budgets.write' } },
      schema: { summary: 'Delete a budget', tags, params: IdParams, response: { 204: NoContent } },
    },
    async (req, reply) => {
      await deleteBudget(factoryContext(req.ctx), req.params.id);
      return reply.status(204).send(null);
    },
  );
};
