import { describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { auth, keyWith, newItem } from '../work-items/helpers.js';

describe('findings', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s));

  const post = (t: Tenant, item: string | number, body: Record<string, unknown>, token?: string) =>
    gw.call('POST', `/v1/work-items/${item}/findings`, { ...auth(t, token), body });
  const change = {
    source: 'reviewer-bot',
    about: 'change',
    severity: 'high',
    title: 'SQL built by string concatenation',
  };

  it('records findings about a change and about a rule, and lists them oldest first', async () => {
    const item = await newItem(gw, a);
    const first = await post(a, item.number, {
      ...change,
      body: 'Use parameters.',
      path: 'src/db.ts',
      line: 42,
      prNumber: 7,
    });
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      workItemId: item.id,
      source: 'reviewer-bot',
      about: 'change',
      severity: 'high',
      title: 'SQL built by string concatenation',
      body: 'Use parameters.',
      path: 'src/db.ts',
      line: 42,
      rule: null,
      prNumber: 7,
      createdAt: new Date(gw.clock.now()).toISOString(),
    });
    gw.clock.advance(1000);
    const rule = await post(a, item.id, {
      source: 'linter',
      about: 'rule',
      severity: 'info',
      title: 'Rule fires on generated code',
      rule: 'no-any',
    });
    expect(rule.status).toBe(201);
    expect(rule.body.data).toMatchObject({
      about: 'rule',
      rule: 'no-any',
      body: null,
      path: null,
      line: null,
      prNumber: null,
    });

    const list = await gw.call('GET', `/v1/work-items/${item.id}/findings`, auth(a));
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      data: [first.body.data, rule.body.data],
      pagination: { total: 2, limit: 50, offset: 0 },
    });
    const page = await gw.call('GET', `/v1/work-items/${item.number}/findings?limit=1&offset=1`, auth(a));
    expect(page.body).toEqual({ data: [rule.body.data], pagination: { total: 2, limit: 1, offset: 1 } });
  });

  it('validates the body and the query', async () => {
    const item = await newItem(gw, a);
    const bad = [
      { ...change, about: 'mood' },
      { ...change, severity: 'urgent' },
      { ...change, title: '' },
      { about: 'change', severity: 'low', title: 't' },
      { ...change, line: 0, path: 'a' },
      { ...change, prNumber: 0 },
      { ...change, extra: true },
    ];
    for (const body of bad) {
      const res = await post(a, item.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request_body');
    }
    const noRule = await post(a, item.id, { ...change, about: 'rule' });
    expect(noRule.body.error).toMatchObject({ code: 'invalid_request_body', details: [{ path: 'rule' }] });
    const lineWithoutPath = await post(a, item.id, { ...change, line: 3 });
    expect(lineWithoutPath.body.error).toMatchObject({ code: 'invalid_request_body', details: [{ path: 'path' }] });
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'sort=x']) {
      const res = await gw.call('GET', `/v1/work-items/${item.id}/findings?${q}`, auth(a));
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe('invalid_query_params');
    }
    expect((await gw.call('GET', `/v1/work-items/${item.id}/findings`, auth(a))).body.pagination.total).toBe(0);
  });

  it('answers 404 for unknown items and other factories, 409 for withdrawn items', async () => {
    const item = await newItem(gw, a);
    await post(a, item.id, change);
    expect((await post(a, '31337', change)).body.error.code).toBe('work_item_not_found');
    expect((await gw.call('GET', '/v1/work-items/31337/findings', auth(a))).status).toBe(404);
    const cross = await post(b, item.id, change);
    expect(cross.status).toBe(404);
    expect((await gw.call('GET', `/v1/work-items/${item.id}/findings`, auth(b))).status).toBe(404);
    expect(
      (await gw.call('GET', `/v1/work-items/${item.id}/findings`, { token: b.factoryKey, appId: a.appId })).status,
    ).toBe(401);
    await gw.call('POST', `/v1/work-items/${item.id}/withdraw`, auth(a));
    const withdrawn = await post(a, item.id, change);
    expect(withdrawn.status).toBe(409);
    expect(withdrawn.body.error.code).toBe('work_item_withdrawn');
    expect((await gw.call('GET', `/v1/work-items/${item.id}/findings`, auth(a))).body.pagination.total).toBe(1);
  });

  it('needs findings.write to record and findings.read to list', async () => {
    const item = await newItem(gw, a);
    expect((await gw.call('POST', `/v1/work-items/${item.id}/findings`, { appId: a.appId, body: change })).status).toBe(
      401,
    );
    expect((await gw.call('GET', `/v1/work-items/${item.id}/findings`, { appId: a.appId })).status).toBe(401);
    const workOnly = await keyWith(gw, a, ['work.read', 'work.write']);
    expect((await post(a, item.id, change, workOnly)).body.error).toMatchObject({
      code: 'forbidden',
      required_permission: 'findings.write',
    });
    expect((await gw.call('GET', `/v1/work-items/${item.id}/findings`, auth(a, workOnly))).body.error).toMatchObject({
      code: 'forbidden',
      required_permission: 'findings.read',
    });
    const findings = await keyWith(gw, a, ['findings.read', 'findings.write']);
    expect((await post(a, item.id, change, findings)).status).toBe(201);
    expect((await gw.call('GET', `/v1/work-items/${item.id}/findings`, auth(a, findings))).body.pagination.total).toBe(
      1,
    );
  });
});
