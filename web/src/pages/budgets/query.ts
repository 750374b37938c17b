// Reads and writes of the budgets page: GET/POST/PATCH/DELETE /v1/budgets, and the channels a budget can name.
import { queryOptions } from '@tanstack/react-query';
import { api, factory, unwrap, type paths } from '../../api/client';

export { budgetsQuery } from '../../api/queries';

export type Budget = paths['/v1/budgets']['get']['responses'][200]['content']['application/json']['data'][number];
export type BudgetBody = paths['/v1/budgets']['post']['requestBody']['content']['application/json'];
export type BudgetPatch = paths['/v1/budgets/{id}']['patch']['requestBody']['content']['application/json'];
export type Channel =
  paths['/v1/notification-channels']['get']['responses'][200]['content']['application/json']['data'][number];

export const channelsQuery = (appId: string) =>
  queryOptions({
    queryKey: ['notification-channels', appId],
    queryFn: () => unwrap(api.GET('/v1/notification-channels', factory(appId))).then((r) => r.data),
    retry: false,
  });

export async function createBudget(appId: string, body: BudgetBody): Promise<Budget> {
  return (await unwrap(api.POST('/v1/budgets', { body, ...factory(appId) }))).data;
}

export async function updateBudget(appId: string, id: string, body: BudgetPatch): Promise<Budget> {
  return (await unwrap(api.PATCH('/v1/budgets/{id}', { params: { path: { id } }, body, ...factory(appId) }))).data;
}

export async function deleteBudget(appId: string, id: string): Promise<void> {
  // 204: no body to unwrap (an error answer throws in the client's middleware).
  await api.DELETE('/v1/budgets/{id}', { params: { path: { id } }, ...factory(appId) });
}
