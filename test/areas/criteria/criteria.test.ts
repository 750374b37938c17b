import { describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { auth, keyWith, newItem } from '../work-items/helpers.js';

describe('criteria', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s));

  const put = (t: Tenant, item: string | number, criteria: unknown, token?: string) =>
    gw.call('PUT', `/v1/work-items/${item}/criteria`, { ...auth(t, token), body: { criteria } });

  it('starts empty, replaces the whole list in order, and reads it back', async () => {
    const item = await newItem(gw, a);
    const empty = await gw.call('GET', `/v1/work-items/${item.id}/criteria`, auth(a));
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual({ workItemId: item.id, criteria: [], updatedAt: null });

    const first = await put(a, item.number, [
      { id: 'c2', text: 'Second first', proof: 'video' },
      { id: 'c1', text: 'Login works' },
    ]);
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({
      workItemId: item.id,
      criteria: [
        { id: 'c2', text: 'Second first', proof: 'video' },
        { id: 'c1', text: 'Login works', proof: null },
      ],
      updatedAt: new Date(gw.clock.now()).toISOString(),
    });
    expect((await gw.call('GET', `/v1/work-items/${item.number}/criteria`, auth(a))).body.data).toEqual(
      first.body.data,
    );

    gw.clock.advance(1000);
    const second = await put(a, item.id, [{ id: 'c3', text: 'Only this one', proof: null }]);
    expect(second.body.data.criteria).toEqual([{ id: 'c3', text: 'Only this one', proof: null }]);
    const read = await gw.call('GET', `/v1/work-items/${item.id}/criteria`, auth(a));
    expect(read.body.data).toEqual(second.body.data);

    const cleared = await put(a, item.id, []);
    expect(cleared.body.data.criteria).toEqual([]);
    expect((await gw.call('GET', `/v1/work-items/${item.id}/criteria`, auth(a))).body.data.criteria).toEqual([]);
  });

  it('accepts 100 criteria and refuses 101 with 400', async () => {
    const item = await newItem(gw, a);
    const hundred = Array.from({ length: 100 }, (_, i) => ({ id: `c${i}`, text: `criterion ${i}` }));
    expect((await put(a, item.id, hundred)).status).toBe(200);
    const tooMany = await put(a, item.id, [...hundred, { id: 'c100', text: 'one more' }]);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('invalid_request_body');
    expect((await gw.call('GET', `/v1/work-items/${item.id}/criteria`, auth(a))).body.data.criteria).toHaveLength(100);
  });

  it('refuses duplicate ids with 400 duplicate_criterion_id and keeps the old list', async () => {
    const item = await newItem(gw, a);
    await put(a, item.id, [{ id: 'keep', text: 'kept' }]);
    const res = await put(a, item.id, [
      { id: 'x', text: 'one' },
      { id: 'y', text: 'two' },
      { id: 'x', text: 'three' },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'duplicate_criterion_id', details: [{ path: 'criteria.2.id' }] });
    expect((await gw.call('GET', `/v1/work-items/${item.id}/criteria`, auth(a))).body.data.criteria).toEqual([
      { id: 'keep', text: 'kept', proof: null },
    ]);
  });

  it('validates the body', async () => {
    const item = await newItem(gw, a);
    for (const body of [
      {},
      { criteria: 'x' },
      { criteria: [{ id: '', text: 't' }] },
      { criteria: [{ id: 'a', text: '' }] },
      { criteria: [{ id: 'a' }] },
      { criteria: [{ id: 'a', text: 't', extra: 1 }] },
      { criteria: [], more: 1 },
    ]) {
      const res = await gw.call('PUT', `/v1/work-items/${item.id}/criteria`, { ...auth(a), body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request_body');
    }
  });

  it('answers 404 for unknown items and other factories, 409 for withdrawn items', async () => {
    const item = await newItem(gw, a);
    await put(a, item.id, [{ id: 'mine', text: 'mine' }]);
    for (const id of ['9999', '00000000-0000-4000-8000-000000000000']) {
      expect((await put(a, id, [])).body.error.code).toBe('work_item_not_found');
      expect((await gw.call('GET', `/v1/work-items/${id}/criteria`, auth(a))).status).toBe(404);
    }
    const cross = await put(b, item.id, [{ id: 'evil', text: 'evil' }]);
    expect(cross.status).toBe(404);
    expect((await gw.call('GET', `/v1/work-items/${item.id}/criteria`, auth(b))).status).toBe(404);
    expect(
      (
        await gw.call('PUT', `/v1/work-items/${item.id}/criteria`, {
          token: b.factoryKey,
          appId: a.appId,
          body: { criteria: [] },
        })
      ).status,
    ).toBe(401);
    await gw.call('POST', `/v1/work-items/${item.id}/withdraw`, auth(a));
    const withdrawn = await put(a, item.id, []);
    expect(withdrawn.status).toBe(409);
    expect(withdrawn.body.error.code).toBe('work_item_withdrawn');
    // Still readable, unchanged.
    expect((await gw.call('GET', `/v1/work-items/${item.id}/criteria`, auth(a))).body.data.criteria).toEqual([
      { id: 'mine', text: 'mine', proof: null },
    ]);
  });

  it('needs criteria.write to replace and work.read to read', async () => {
    const item = await newItem(gw, a);
    expect(
      (await gw.call('PUT', `/v1/work-items/${item.id}/criteria`, { appId: a.appId, body: { criteria: [] } })).status,
    ).toBe(401);
    expect((await gw.call('GET', `/v1/work-items/${item.id}/criteria`, { appId: a.appId })).status).toBe(401);
    const workOnly = await keyWith(gw, a, ['work.read', 'work.write']);
    const denied = await put(a, item.id, [{ id: 'c', text: 't' }], workOnly);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'criteria.write' });
    const writer = await keyWith(gw, a, ['criteria.write']);
    expect((await put(a, item.id, [{ id: 'c', text: 't' }], writer)).status).toBe(200);
    const noRead = await gw.call('GET', `/v1/work-items/${item.id}/criteria`, auth(a, writer));
    expect(noRead.body.error).toMatchObject({ code: 'forbidden', required_permission: 'work.read' });
    expect((await gw.call('GET', `/v1/work-items/${item.id}/criteria`, auth(a, workOnly))).body.data.criteria).toEqual([
      { id: 'c', text: 't', proof: null },
    ]);
  });
});
