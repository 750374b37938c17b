// One log line per request, carrying what a failed request is traced by: method, route pattern, status,
// error code and duration, with the request id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
let t: Tenant;
const lines: Record<string, unknown>[] = [];
beforeAll(async () => {
  gw = await startGateway({
    logStream: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  t = await createTenant(gw);
});
afterAll(async () => {
  await gw.close();
});

function linesOf(reqId: string) {
  return lines.filter((l) => l.reqId === reqId);
}

describe('request log', () => {
  it('a 4xx line names method, route pattern, status, error code and duration, once', async () => {
    const res = await gw.call('GET', '/v1/work-items/999999', {
      token: t.factoryKey,
      appId: t.appId,
      headers: { 'x-request-id': 'trace-404' },
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('work_item_not_found');
    const mine = linesOf('trace-404');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      msg: 'request completed',
      method: 'GET',
      route: '/v1/work-items/:id',
      status: 404,
      code: 'work_item_not_found',
    });
    expect(typeof mine[0]!.ms).toBe('number');
    expect(mine[0]!.ms as number).toBeGreaterThanOrEqual(0);
  });

  it('a 2xx line has no error code; a guard refusal and an unknown path carry theirs', async () => {
    await gw.call('GET', '/v1/work-items', {
      token: t.factoryKey,
      appId: t.appId,
      headers: { 'x-request-id': 'trace-200' },
    });
    expect(linesOf('trace-200')).toEqual([
      expect.objectContaining({ method: 'GET', route: '/v1/work-items', status: 200, code: null }),
    ]);

    await gw.call('GET', '/v1/work-items', { headers: { 'x-request-id': 'trace-401' } });
    expect(linesOf('trace-401')).toEqual([
      expect.objectContaining({ method: 'GET', route: '/v1/work-items', status: 401, code: 'unauthorized' }),
    ]);

    await gw.call('DELETE', '/v1/no-such-thing?x=1', { headers: { 'x-request-id': 'trace-nf' } });
    expect(linesOf('trace-nf')).toEqual([
      expect.objectContaining({ method: 'DELETE', route: '/v1/no-such-thing', status: 404, code: 'route_not_found' }),
    ]);

    await gw.call('PATCH', `/v1/apps/${t.appId}`, {
      token: t.loginToken,
      appId: t.appId,
      body: { runner_updates: { mode: 'x' } },
      headers: { 'x-request-id': 'trace-400' },
    });
    expect(linesOf('trace-400')).toEqual([
      expect.objectContaining({ method: 'PATCH', route: '/v1/apps/:appId', status: 400, code: 'invalid_request_body' }),
    ]);
  });
});
