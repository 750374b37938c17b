// The house rule's cross-tenant half for every route under /v1/work-items/{id} (work items, claims,
// declared pull requests, criteria, findings, item artifacts, the item-key pull-request route): another
// org's factory and a second factory of the SAME org, each with full credentials on its own factory, see
// nothing of an item (404 work_item_not_found, by uuid and by number) and change nothing (the item, its
// claim, criteria, findings and pull requests read back unchanged through the owner's API).
import { beforeAll, describe, expect, it } from 'vitest';
import type { CallResult, Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { newItem } from './helpers.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

describe('work-item routes across factories and orgs', () => {
  let gw: TestGateway;
  let a: Tenant;
  /** Tenant A's org, a second factory: A's owner's login token and a key of that factory. */
  let sibling: { appId: string; factoryKey: string; loginToken: string };
  let b: Tenant;
  let item: { id: string; number: number };
  let itemKeyOfA: string;
  let itemKeyOfB: string;
  let bItem: { id: string; number: number };

  const ownRead = async (): Promise<string[]> => {
    const own = { token: a.factoryKey, appId: a.appId };
    const reads = await Promise.all([
      gw.call('GET', `/v1/work-items/${item.id}`, own),
      gw.call('GET', `/v1/work-items/${item.id}/criteria`, own),
      gw.call('GET', `/v1/work-items/${item.id}/findings`, own),
      gw.call('GET', `/v1/work-items/${item.id}/pull-requests`, own),
      gw.call('GET', `/v1/work-items/${item.id}/artifacts`, own),
      gw.call('GET', `/v1/work-items/${item.id}/claims`, own),
    ]);
    for (const r of reads) expect(r.status).toBe(200);
    return reads.map((r) => r.text);
  };
  let before: string[];

  withGatewayAndTenants((s) => ({ gw, a, b } = s));
  beforeAll(async () => {
    const created = await gw.call('POST', '/v1/apps', {
      token: a.loginToken,
      appId: a.appId,
      body: { name: 'second' },
    });
    expect(created.status).toBe(201);
    const key = await gw.call('POST', '/v1/api-keys', {
      token: a.loginToken,
      appId: created.body.data.id,
      body: { name: 'full', preset: 'full-access' },
    });
    expect(key.status).toBe(201);
    sibling = { appId: created.body.data.id, factoryKey: key.body.data.plaintext_key, loginToken: a.loginToken };

    item = await newItem(gw, a, { title: 'secret item of A' });
    const own = { token: a.factoryKey, appId: a.appId };
    expect(
      (
        await gw.call('PUT', `/v1/work-items/${item.id}/criteria`, {
          ...own,
          body: { criteria: [{ id: 'c1', text: 'works' }] },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await gw.call('POST', `/v1/work-items/${item.id}/findings`, {
          ...own,
          body: { source: 'rev', about: 'change', severity: 'low', title: 'nit of A' },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await gw.call('POST', `/v1/work-items/${item.id}/pull-requests`, {
          ...own,
          body: { repository: 'acme/api', number: 3 },
        })
      ).status,
    ).toBe(201);
    const claimed = await gw.call('POST', `/v1/work-items/${item.id}/claims`, {
      ...own,
      body: { source: 'runner-a', branch: 'feat/a' },
    });
    expect(claimed.status).toBe(201);
    itemKeyOfA = claimed.body.data.itemKey;

    bItem = await newItem(gw, b, { title: 'item of B' });
    const bClaim = await gw.call('POST', `/v1/work-items/${bItem.id}/claims`, {
      token: b.factoryKey,
      appId: b.appId,
      body: { source: 'runner-b', branch: 'feat/b' },
    });
    expect(bClaim.status).toBe(201);
    itemKeyOfB = bClaim.body.data.itemKey;
    before = await ownRead();
  });

  // Every route on one item, with a body that would succeed for the owner.
  const itemRoutes: Array<[Method, string, unknown]> = [
    ['GET', '', undefined],
    ['PATCH', '', { title: 'taken over' }],
    ['POST', '/withdraw', undefined],
    ['POST', '/claims', { source: 'intruder', branch: 'feat/x' }],
    ['DELETE', '/claims/current', undefined],
    ['GET', '/claims', undefined],
    ['POST', '/pull-requests', { repository: 'evil/repo', number: 9 }],
    ['GET', '/pull-requests', undefined],
    ['GET', '/criteria', undefined],
    ['PUT', '/criteria', { criteria: [] }],
    ['POST', '/findings', { source: 'x', about: 'change', severity: 'high', title: 'planted' }],
    ['GET', '/findings', undefined],
    ['GET', '/artifacts', undefined],
  ];

  const notFound = (r: CallResult) => {
    expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status: 404, code: 'work_item_not_found' });
    expect(r.text).not.toContain('secret item of A');
    expect(r.text).not.toContain(a.appId);
  };

  const callers = () =>
    [
      ['another org, factory key', { token: b.factoryKey, appId: b.appId }],
      ['another org, login token', { token: b.loginToken, appId: b.appId }],
      ['a sibling factory of the same org, factory key', { token: sibling.factoryKey, appId: sibling.appId }],
      ['a sibling factory of the same org, login token', { token: sibling.loginToken, appId: sibling.appId }],
    ] as const;

  describe.each(itemRoutes.map(([m, suffix, body]) => [`${m} /v1/work-items/{id}${suffix}`, m, suffix, body] as const))(
    '%s',
    (_n, method, suffix, body) => {
      it('by uuid: every other factory answers 404 work_item_not_found', async () => {
        for (const [, auth] of callers()) {
          notFound(
            await gw.call(method, `/v1/work-items/${item.id}${suffix}`, {
              ...auth,
              ...(body !== undefined ? { body } : {}),
            }),
          );
        }
      });
      it("by number: another org's factory (which has no such number) answers 404, not A's item", async () => {
        // B's only item has number 1 like A's first item; use a number only A has.
        const numberOnlyA = item.number + 1000;
        const extra = await newItem(gw, a, { title: 'secret item of A' });
        expect(extra.number).toBeGreaterThan(bItem.number);
        notFound(
          await gw.call(method, `/v1/work-items/${extra.number}${suffix}`, {
            token: b.factoryKey,
            appId: b.appId,
            ...(body !== undefined ? { body } : {}),
          }),
        );
        notFound(
          await gw.call(method, `/v1/work-items/${numberOnlyA}${suffix}`, {
            token: b.factoryKey,
            appId: b.appId,
            ...(body !== undefined ? { body } : {}),
          }),
        );
      });
    },
  );

  it("POST /v1/work-items with the owner's tracker and key: the caller's own item (201), owner's intact", async () => {
    const own = await gw.call('GET', `/v1/work-items/${item.id}`, { token: a.factoryKey, appId: a.appId });
    const seen = new Set<string>();
    for (const [, auth] of callers()) {
      const r = await gw.call('POST', '/v1/work-items', {
        ...auth,
        body: {
          tracker: own.body.data.tracker,
          trackerKey: own.body.data.trackerKey,
          title: 'upserted by another factory',
        },
      });
      // The first call in each factory creates that factory's item; the second (other credential, same factory) updates
      // it.
      expect(r.status).toBe(seen.has(auth.appId) ? 200 : 201);
      seen.add(auth.appId);
      expect(r.body.data.id).not.toBe(item.id);
    }
    const after = await gw.call('GET', `/v1/work-items/${item.id}`, { token: a.factoryKey, appId: a.appId });
    expect(after.body.data.title).toBe('secret item of A');
  });

  it("the lists of other factories do not show A's items", async () => {
    for (const [, auth] of callers()) {
      const r = await gw.call('GET', '/v1/work-items', auth);
      expect(r.status).toBe(200);
      expect(r.body.data.map((i: { id: string }) => i.id)).not.toContain(item.id);
      expect(r.text).not.toContain('secret item of A');
    }
  });

  it("B's item key cannot renew, release or open a PR for A's item (403/404); A's claim stays", async () => {
    const renew = await gw.call('PUT', `/v1/work-items/${item.id}/claims/current`, { token: itemKeyOfB });
    expect([403, 404]).toContain(renew.status);
    expect(renew.body.data).toBeUndefined();
    const release = await gw.call('DELETE', `/v1/work-items/${item.id}/claims/current`, { token: itemKeyOfB });
    expect([403, 404]).toContain(release.status);
    const pr = await gw.call('PUT', `/v1/work-items/${item.id}/pull-request`, {
      token: itemKeyOfB,
      body: { title: 't', body: 'b' },
    });
    expect([403, 404]).toContain(pr.status);
    expect(pr.body.data).toBeUndefined();
    // A's own item key still renews: its claim was not released.
    const ownRenew = await gw.call('PUT', `/v1/work-items/${item.id}/claims/current`, { token: itemKeyOfA });
    expect(ownRenew.status).toBe(200);
    expect(ownRenew.body.data.claim.branch).toBe('feat/a');
  });

  it("an item key of A's item naming another factory in the header is refused (401)", async () => {
    const r = await gw.call('PUT', `/v1/work-items/${item.id}/claims/current`, { token: itemKeyOfA, appId: b.appId });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthorized');
  });

  it("nothing of A's item changed (item, criteria, findings, PRs, artifacts read back the same)", async () => {
    const after = await ownRead();
    // The item's claim was renewed above (its expiry moved); compare everything but the item itself by text.
    expect(after.slice(1)).toEqual(before.slice(1));
    const itemAfter = JSON.parse(after[0] as string).data;
    const itemBefore = JSON.parse(before[0] as string).data;
    expect({ title: itemAfter.title, stage: itemAfter.stage, withdrawn: itemAfter.withdrawnAt ?? null }).toEqual({
      title: itemBefore.title,
      stage: itemBefore.stage,
      withdrawn: itemBefore.withdrawnAt ?? null,
    });
    expect(itemAfter.title).toBe('secret item of A');
  });
});
