import { describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { linkPullRequest, listLinkedPullRequests } from '../../../src/areas/work-items/service.js';
import { auth, factoryContextFor, keyWith, newItem } from './helpers.js';

describe('pull requests declared onto a work item', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s));

  it("declares a pull request (idempotently) and lists the item's pull requests", async () => {
    const item = await newItem(gw, a);
    const res = await gw.call('POST', `/v1/work-items/${item.number}/pull-requests`, {
      ...auth(a),
      body: { repository: 'acme/api', number: 12 },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      repository: 'acme/api',
      number: 12,
      url: 'https://github.com/acme/api/pull/12',
      linkedAt: new Date(gw.clock.now()).toISOString(),
    });
    gw.clock.advance(1000);
    const again = await gw.call('POST', `/v1/work-items/${item.id}/pull-requests`, {
      ...auth(a),
      body: { repository: 'acme/api', number: 12, url: 'https://ghe.example/acme/api/pull/12' },
    });
    expect(again.status).toBe(201);
    expect(again.body.data).toMatchObject({
      url: 'https://ghe.example/acme/api/pull/12',
      linkedAt: res.body.data.linkedAt,
    });
    await gw.call('POST', `/v1/work-items/${item.id}/pull-requests`, {
      ...auth(a),
      body: { repository: 'acme/web', number: 3 },
    });
    const list = await gw.call('GET', `/v1/work-items/${item.id}/pull-requests`, auth(a));
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { repository: string; number: number }) => `${p.repository}#${p.number}`)).toEqual([
      'acme/api#12',
      'acme/web#3',
    ]);
  });

  it('linkPullRequest and listLinkedPullRequests (code-host and evidence areas) stay in the factory', async () => {
    const item = await newItem(gw, a);
    const ctx = await factoryContextFor(gw, a);
    await linkPullRequest(ctx, item.id, {
      repository: 'acme/api',
      number: 99,
      url: 'https://github.com/acme/api/pull/99',
    });
    expect(await listLinkedPullRequests(ctx, item.id)).toEqual([
      { repository: 'acme/api', number: 99, url: 'https://github.com/acme/api/pull/99', linkedAt: gw.clock.now() },
    ]);
    const ctxB = await factoryContextFor(gw, b);
    await expect(
      linkPullRequest(ctxB, item.id, { repository: 'evil/x', number: 1, url: 'https://github.com/evil/x/pull/1' }),
    ).rejects.toMatchObject({ code: 'work_item_not_found' });
    expect(await listLinkedPullRequests(ctxB, item.id)).toEqual([]);
    expect(await listLinkedPullRequests(ctx, item.id)).toHaveLength(1);
  });

  it('validates, and refuses withdrawn items, other factories and missing permissions', async () => {
    const item = await newItem(gw, a);
    for (const body of [
      { repository: 'acme', number: 1 },
      { repository: 'acme/api', number: 0 },
      { repository: 'acme/api', number: 1, url: 'ftp://x' },
      { repository: 'acme/api' },
    ]) {
      const res = await gw.call('POST', `/v1/work-items/${item.id}/pull-requests`, { ...auth(a), body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request_body');
    }
    const cross = await gw.call('POST', `/v1/work-items/${item.id}/pull-requests`, {
      ...auth(b),
      body: { repository: 'acme/api', number: 1 },
    });
    expect(cross.status).toBe(404);
    expect(cross.body.error.code).toBe('work_item_not_found');
    expect((await gw.call('GET', `/v1/work-items/${item.id}/pull-requests`, auth(b))).status).toBe(404);
    expect(
      (await gw.call('GET', `/v1/work-items/${item.id}/pull-requests`, { token: b.factoryKey, appId: a.appId })).status,
    ).toBe(401);
    const readOnly = await keyWith(gw, a, ['work.read']);
    const denied = await gw.call('POST', `/v1/work-items/${item.id}/pull-requests`, {
      ...auth(a, readOnly),
      body: { repository: 'acme/api', number: 1 },
    });
    expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'work.write' });
    const noRead = await keyWith(gw, a, ['hosts.read']);
    expect(
      (await gw.call('GET', `/v1/work-items/${item.id}/pull-requests`, auth(a, noRead))).body.error.required_permission,
    ).toBe('work.read');
    await gw.call('POST', `/v1/work-items/${item.id}/withdraw`, auth(a));
    const withdrawn = await gw.call('POST', `/v1/work-items/${item.id}/pull-requests`, {
      ...auth(a),
      body: { repository: 'acme/api', number: 1 },
    });
    expect(withdrawn.status).toBe(409);
    expect(withdrawn.body.error.code).toBe('work_item_withdrawn');
    expect((await gw.call('GET', `/v1/work-items/${item.id}/pull-requests`, auth(a))).body.data).toEqual([]);
  });
});
