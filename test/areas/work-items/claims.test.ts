import { describe, expect, it } from 'vitest';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { recordLegacyClaim } from '../../../src/areas/work-items/claims.js';
import { getLatestClaim, getLiveClaim, getWorkItem } from '../../../src/areas/work-items/service.js';
import { auth, claim, factoryContextFor, keyWith, newItem } from './helpers.js';

const MIN = 60_000;

describe('claims', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s));

  describe('POST /v1/work-items/{id}/claims', () => {
    it('claims an item for a branch and returns the claim and an item key once', async () => {
      const item = await newItem(gw, a, { stage: 'ready' });
      const now = gw.clock.now();
      const res = await claim(gw, a, item.number, { source: 'runner-7', branch: 'attest/item-1', ttlSeconds: 600 });
      expect(res.status).toBe(201);
      expect(res.body.data).toEqual({
        claim: {
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          source: 'runner-7',
          branch: 'attest/item-1',
          claimedAt: new Date(now).toISOString(),
          expiresAt: new Date(now + 600_000).toISOString(),
        },
        itemKey: expect.stringMatching(/^oli_[0-9A-Za-z]{42}$/),
      });
      const read = await gw.call('GET', `/v1/work-items/${item.id}`, auth(a));
      expect(read.body.data.claim).toEqual(res.body.data.claim);
      expect(read.body.data.startable).toBe(false);
      const list = await gw.call('GET', '/v1/work-items', auth(a));
      const entry = list.body.data.find((i: { id: string }) => i.id === item.id);
      expect(entry).toMatchObject({ claim: res.body.data.claim, startable: false });
      // The plaintext is not stored: only a digest of it is.
      const stored = await gw.app.attest.db
        .selectFrom('credentials')
        .selectAll()
        .where('work_item_id', '=', item.id)
        .execute();
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({ kind: 'item_key', app_id: a.appId, revoked_at: null });
      expect(JSON.stringify(stored)).not.toContain(res.body.data.itemKey);
    });

    it('defaults ttlSeconds to 3600 and bounds it by ATTEST_CLAIM_MIN_TTL_SECONDS and 86400', async () => {
      const item = await newItem(gw, a);
      for (const ttlSeconds of [59, 86401, 0, 1.5]) {
        const res = await claim(gw, a, item.id, { ttlSeconds });
        expect(res.status, String(ttlSeconds)).toBe(400);
        expect(res.body.error.code).toBe('invalid_request_body');
      }
      const res = await claim(gw, a, item.id);
      expect(Date.parse(res.body.data.claim.expiresAt) - Date.parse(res.body.data.claim.claimedAt)).toBe(3_600_000);
      const other = await newItem(gw, a);
      expect((await claim(gw, a, other.id, { ttlSeconds: 60 })).status).toBe(201);
      const longest = await newItem(gw, a);
      expect((await claim(gw, a, longest.id, { ttlSeconds: 86400 })).status).toBe(201);
    });

    it('requires source and branch (new claims always name a branch)', async () => {
      const item = await newItem(gw, a);
      for (const body of [
        { source: 'r' },
        { branch: 'b' },
        { source: 'r', branch: null },
        { source: 'r', branch: '' },
        { source: 'r', branch: 'b', extra: true },
      ]) {
        const res = await gw.call('POST', `/v1/work-items/${item.id}/claims`, { ...auth(a), body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.code).toBe('invalid_request_body');
      }
      expect((await gw.call('GET', `/v1/work-items/${item.id}`, auth(a))).body.data.claim).toBeNull();
    });

    it('answers 409 work_item_claimed while a live claim holds the item, to the millisecond it expires', async () => {
      const item = await newItem(gw, a);
      const first = await claim(gw, a, item.id, { ttlSeconds: 60 });
      const expiresAt = Date.parse(first.body.data.claim.expiresAt);
      const second = await claim(gw, a, item.id, { source: 'runner-b' });
      expect(second.status).toBe(409);
      expect(second.body.error.code).toBe('work_item_claimed');

      gw.clock.set(expiresAt - 1);
      expect((await claim(gw, a, item.id)).body.error.code).toBe('work_item_claimed');
      expect((await gw.call('GET', `/v1/work-items/${item.id}`, auth(a))).body.data.claim.id).toBe(
        first.body.data.claim.id,
      );

      gw.clock.set(expiresAt);
      // Expired: the item shows no claim and is startable again before anyone claims it.
      const freed = await gw.call('GET', `/v1/work-items/${item.id}`, auth(a));
      expect(freed.body.data).toMatchObject({ claim: null, startable: true });
      // The expired holder's key still reaches the item and hears 410 until someone else claims it.
      const late = await gw.call('PUT', `/v1/work-items/${item.id}/claims/current`, { token: first.body.data.itemKey });
      expect(late.status).toBe(410);
      expect(late.body.error.code).toBe('claim_expired');

      const third = await claim(gw, a, item.id, { source: 'runner-c', branch: 'feat/c' });
      expect(third.status).toBe(201);
      expect((await gw.call('GET', `/v1/work-items/${item.id}`, auth(a))).body.data.claim).toEqual(
        third.body.data.claim,
      );
      // Once the item is claimed again the old key is revoked.
      const revoked = await gw.call('PUT', `/v1/work-items/${item.id}/claims/current`, {
        token: first.body.data.itemKey,
      });
      expect(revoked.status).toBe(401);
    });

    it('answers 409 work_item_withdrawn on a withdrawn item', async () => {
      const item = await newItem(gw, a);
      await gw.call('POST', `/v1/work-items/${item.id}/withdraw`, auth(a));
      const res = await claim(gw, a, item.id);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('work_item_withdrawn');
      expect((await gw.call('GET', `/v1/work-items/${item.id}`, auth(a))).body.data.claim).toBeNull();
    });

    it("answers 404 for unknown items and another factory's items, 401/403 for bad credentials", async () => {
      const item = await newItem(gw, a);
      for (const id of ['424242', '00000000-0000-4000-8000-000000000000']) {
        const res = await claim(gw, a, id);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('work_item_not_found');
      }
      const cross = await claim(gw, b, item.id);
      expect(cross.status).toBe(404);
      expect(
        (
          await gw.call('POST', `/v1/work-items/${item.id}/claims`, {
            token: b.factoryKey,
            appId: a.appId,
            body: { source: 's', branch: 'b' },
          })
        ).status,
      ).toBe(401);
      expect(
        (
          await gw.call('POST', `/v1/work-items/${item.id}/claims`, {
            appId: a.appId,
            body: { source: 's', branch: 'b' },
          })
        ).status,
      ).toBe(401);
      const readOnly = await keyWith(gw, a, ['work.read']);
      const denied = await gw.call('POST', `/v1/work-items/${item.id}/claims`, {
        ...auth(a, readOnly),
        body: { source: 's', branch: 'b' },
      });
      expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'work.write' });
      expect((await gw.call('GET', `/v1/work-items/${item.id}`, auth(a))).body.data.claim).toBeNull();
      // An item key cannot claim (not even another item).
      const held = await claim(gw, a, (await newItem(gw, a)).id);
      const byKey = await gw.call('POST', `/v1/work-items/${item.id}/claims`, {
        token: held.body.data.itemKey,
        body: { source: 's', branch: 'b' },
      });
      expect(byKey.status).toBe(401);
    });

    it('lets exactly one of 20 concurrent claims win', async () => {
      const item = await newItem(gw, a);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => claim(gw, a, item.id, { source: `runner-${i}` })),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      const losers = results.filter((r) => r.status !== 201);
      expect(losers).toHaveLength(19);
      for (const r of losers) expect([r.status, r.body.error.code]).toEqual([409, 'work_item_claimed']);
      const winner = results.find((r) => r.status === 201)!;
      expect((await gw.call('GET', `/v1/work-items/${item.id}`, auth(a))).body.data.claim).toEqual(
        winner.body.data.claim,
      );
      const keys = await gw.app.attest.db
        .selectFrom('credentials')
        .select('id')
        .where('work_item_id', '=', item.id)
        .execute();
      expect(keys).toHaveLength(1);
    });

    it('exactly one of 20 concurrent claims wins across two replicas, also right after a lease expired', async () => {
      const replica = await startGateway({ replicaOf: gw });
      try {
        const item = await newItem(gw, a);
        const race = () =>
          Promise.all(
            Array.from({ length: 20 }, (_, i) =>
              claim(i % 2 ? replica : gw, a, item.id, { source: `runner-${i}`, ttlSeconds: 60 }),
            ),
          );
        const first = await race();
        expect(first.filter((r) => r.status === 201)).toHaveLength(1);
        expect(first.filter((r) => r.status === 409 && r.body.error.code === 'work_item_claimed')).toHaveLength(19);

        gw.clock.advance(MIN);
        const second = await race();
        expect(second.filter((r) => r.status === 201)).toHaveLength(1);
        expect(second.filter((r) => r.status === 409 && r.body.error.code === 'work_item_claimed')).toHaveLength(19);
        const winner = second.find((r) => r.status === 201)!;
        expect((await replica.call('GET', `/v1/work-items/${item.id}`, auth(a))).body.data.claim).toEqual(
          winner.body.data.claim,
        );
        const open = await gw.app.attest.db
          .selectFrom('claims')
          .select('id')
          .where('work_item_id', '=', item.id)
          .where('ended_at', 'is', null)
          .execute();
        expect(open.map((c) => c.id)).toEqual([winner.body.data.claim.id]);
      } finally {
        await replica.close();
      }
    });
  });

  it('takes its shortest lease from ATTEST_CLAIM_MIN_TTL_SECONDS, so a lease can expire in a second', async () => {
    const quick = await startGateway({ env: { ATTEST_CLAIM_MIN_TTL_SECONDS: '1' } });
    try {
      const t = await createTenant(quick);
      const item = await newItem(quick, t);
      const zero = await claim(quick, t, item.id, { ttlSeconds: 0 });
      expect(zero.status).toBe(400);
      expect(zero.body.error.code).toBe('invalid_request_body');
      const held = await claim(quick, t, item.id, { ttlSeconds: 1 });
      expect(held.status).toBe(201);
      expect((await claim(quick, t, item.id)).status).toBe(409);
      quick.clock.advance(1000);
      expect(
        (await quick.call('PUT', `/v1/work-items/${item.id}/claims/current`, { token: held.body.data.itemKey })).status,
      ).toBe(410);
      expect((await claim(quick, t, item.id)).status).toBe(201);
    } finally {
      await quick.close();
    }
  });

  describe('PUT /v1/work-items/{id}/claims/current (renew)', () => {
    it('moves expiresAt to now + ttl with the item key; 410 claim_expired once the lease ran out', async () => {
      const item = await newItem(gw, a);
      const res = await claim(gw, a, item.id, { ttlSeconds: 120 });
      const key = res.body.data.itemKey;
      gw.clock.advance(100_000);
      const renewed = await gw.call('PUT', `/v1/work-items/${item.id}/claims/current`, { token: key });
      expect(renewed.status).toBe(200);
      expect(renewed.body.data.claim).toEqual({
        ...res.body.data.claim,
        expiresAt: new Date(gw.clock.now() + 120_000).toISOString(),
      });
      expect((await gw.call('GET', `/v1/work-items/${item.id}`, auth(a))).body.data.claim).toEqual(
        renewed.body.data.claim,
      );
      // Past the old expiry the claim still holds, thanks to the renewal.
      gw.clock.advance(100_000);
      expect((await claim(gw, a, item.id)).status).toBe(409);
      // With the factory header too, and by number.
      expect(
        (await gw.call('PUT', `/v1/work-items/${item.number}/claims/current`, { token: key, appId: a.appId })).status,
      ).toBe(200);
      gw.clock.advance(120_000);
      const expired = await gw.call('PUT', `/v1/work-items/${item.id}/claims/current`, { token: key });
      expect(expired.status).toBe(410);
      expect(expired.body.error.code).toBe('claim_expired');
      expect((await gw.call('GET', `/v1/work-items/${item.id}`, auth(a))).body.data.claim).toBeNull();
    });

    it('takes only the item key of this item', async () => {
      const item = await newItem(gw, a);
      const other = await newItem(gw, a);
      const mine = await claim(gw, a, item.id);
      const theirs = await claim(gw, a, other.id);
      const wrongItem = await gw.call('PUT', `/v1/work-items/${item.id}/claims/current`, {
        token: theirs.body.data.itemKey,
      });
      expect(wrongItem.status).toBe(403);
      expect(wrongItem.body.error.code).toBe('forbidden');
      const factoryKey = await gw.call('PUT', `/v1/work-items/${item.id}/claims/current`, auth(a));
      expect(factoryKey.status).toBe(401);
      expect((await gw.call('PUT', `/v1/work-items/${item.id}/claims/current`, {})).status).toBe(401);
      expect(
        (await gw.call('PUT', `/v1/work-items/${item.id}/claims/current`, { token: `oli_${'x'.repeat(42)}` })).status,
      ).toBe(401);
      // The key with another factory's header is refused.
      expect(
        (
          await gw.call('PUT', `/v1/work-items/${item.id}/claims/current`, {
            token: mine.body.data.itemKey,
            appId: b.appId,
          })
        ).status,
      ).toBe(401);
      // Unknown item: 404.
      const unknown = await gw.call('PUT', '/v1/work-items/999999/claims/current', { token: mine.body.data.itemKey });
      expect(unknown.status).toBe(404);
      // Nothing moved.
      expect((await gw.call('GET', `/v1/work-items/${item.id}`, auth(a))).body.data.claim).toEqual(
        mine.body.data.claim,
      );
    });

    it('answers 409 work_item_withdrawn once the item is withdrawn', async () => {
      const item = await newItem(gw, a);
      const held = await claim(gw, a, item.id);
      await gw.call('POST', `/v1/work-items/${item.id}/withdraw`, auth(a));
      const res = await gw.call('PUT', `/v1/work-items/${item.id}/claims/current`, { token: held.body.data.itemKey });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('work_item_withdrawn');
    });
  });

  describe('DELETE /v1/work-items/{id}/claims/current (release)', () => {
    it('the holder releases with its item key; the key is revoked and the item is free', async () => {
      const item = await newItem(gw, a);
      const held = await claim(gw, a, item.id);
      const key = held.body.data.itemKey;
      // The key works before release (the cache is warm), and not after.
      expect((await gw.call('PUT', `/v1/work-items/${item.id}/claims/current`, { token: key })).status).toBe(200);
      const res = await gw.call('DELETE', `/v1/work-items/${item.id}/claims/current`, { token: key });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect((await gw.call('PUT', `/v1/work-items/${item.id}/claims/current`, { token: key })).status).toBe(401);
      expect((await gw.call('DELETE', `/v1/work-items/${item.id}/claims/current`, { token: key })).status).toBe(401);
      expect((await gw.call('GET', `/v1/work-items/${item.id}`, auth(a))).body.data).toMatchObject({
        claim: null,
        startable: true,
      });
      const cred = await gw.app.attest.db
        .selectFrom('credentials')
        .select('revoked_at')
        .where('work_item_id', '=', item.id)
        .executeTakeFirstOrThrow();
      expect(cred.revoked_at).toBe(gw.clock.now());
      expect((await claim(gw, a, item.id)).status).toBe(201);
    });

    it('a credential with work.write releases whatever claim is open; without it, 403', async () => {
      const item = await newItem(gw, a);
      const held = await claim(gw, a, item.id);
      const readOnly = await keyWith(gw, a, ['work.read']);
      const denied = await gw.call('DELETE', `/v1/work-items/${item.id}/claims/current`, auth(a, readOnly));
      expect(denied.status).toBe(403);
      expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'work.write' });
      const cross = await gw.call('DELETE', `/v1/work-items/${item.id}/claims/current`, auth(b));
      expect(cross.status).toBe(404);
      expect(cross.body.error.code).toBe('work_item_not_found');
      expect(
        (await gw.call('DELETE', `/v1/work-items/${item.id}/claims/current`, { token: b.factoryKey, appId: a.appId }))
          .status,
      ).toBe(401);
      expect((await gw.call('DELETE', `/v1/work-items/${item.id}/claims/current`, { appId: a.appId })).status).toBe(
        401,
      );
      expect((await gw.call('GET', `/v1/work-items/${item.id}`, auth(a))).body.data.claim).toEqual(
        held.body.data.claim,
      );

      const res = await gw.call('DELETE', `/v1/work-items/${item.id}/claims/current`, {
        token: a.loginToken,
        appId: a.appId,
      });
      expect(res.status).toBe(204);
      const audit = await gw.app.attest.db
        .selectFrom('audit_log')
        .selectAll()
        .where('org_id', '=', a.orgId)
        .where('target_id', '=', item.id)
        .execute();
      expect(audit.map((r) => [r.action_type, r.actor_type, JSON.parse(r.details).claimId])).toEqual([
        ['work_item.claim_released', 'user', held.body.data.claim.id],
      ]);
      const none = await gw.call('DELETE', `/v1/work-items/${item.id}/claims/current`, auth(a));
      expect(none.status).toBe(404);
      expect(none.body.error.code).toBe('claim_not_found');
    });

    it("an item key cannot release another item's claim", async () => {
      const item = await newItem(gw, a);
      const other = await newItem(gw, a);
      const mine = await claim(gw, a, item.id);
      const theirs = await claim(gw, a, other.id);
      const res = await gw.call('DELETE', `/v1/work-items/${other.id}/claims/current`, {
        token: mine.body.data.itemKey,
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect((await gw.call('GET', `/v1/work-items/${other.id}`, auth(a))).body.data.claim).toEqual(
        theirs.body.data.claim,
      );
    });

    it('releasing an expired lease ends it too', async () => {
      const item = await newItem(gw, a);
      const held = await claim(gw, a, item.id, { ttlSeconds: 60 });
      gw.clock.advance(MIN);
      const res = await gw.call('DELETE', `/v1/work-items/${item.id}/claims/current`, {
        token: held.body.data.itemKey,
      });
      expect(res.status).toBe(204);
      const row = await gw.app.attest.db
        .selectFrom('claims')
        .selectAll()
        .where('id', '=', held.body.data.claim.id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ end_reason: 'expired', ended_at: gw.clock.now() });
    });
  });

  describe('service exports other areas use', () => {
    it('getWorkItem, getLiveClaim, getLatestClaim tell live, expired, released, never claimed apart', async () => {
      const ctx = await factoryContextFor(gw, a);
      const item = await newItem(gw, a);
      expect(await getLatestClaim(ctx, item.id)).toBeNull();
      expect(await getLiveClaim(ctx, item.id)).toBeNull();
      const held = await claim(gw, a, item.id, { ttlSeconds: 60 });
      const record = await getWorkItem(ctx, String(item.number));
      expect(record).toMatchObject({
        id: item.id,
        number: item.number,
        repository: 'acme/api',
        withdrawn: false,
        claim: { id: held.body.data.claim.id, branch: 'feat/x' },
      });
      expect(await getLatestClaim(ctx, item.id)).toMatchObject({
        id: held.body.data.claim.id,
        live: true,
        expired: false,
        released: false,
      });
      gw.clock.advance(MIN);
      expect(await getLiveClaim(ctx, item.id)).toBeNull();
      expect(await getLatestClaim(ctx, item.id)).toMatchObject({ live: false, expired: true, released: false });
      const again = await claim(gw, a, item.id);
      await gw.call('DELETE', `/v1/work-items/${item.id}/claims/current`, { token: again.body.data.itemKey });
      expect(await getLatestClaim(ctx, item.id)).toMatchObject({
        id: again.body.data.claim.id,
        live: false,
        expired: false,
        released: true,
      });
      await expect(getWorkItem(ctx, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
        status: 404,
        code: 'work_item_not_found',
      });
      const ctxB = await factoryContextFor(gw, b);
      await expect(getWorkItem(ctxB, item.id)).rejects.toMatchObject({ code: 'work_item_not_found' });
      expect(await getLiveClaim(ctxB, item.id)).toBeNull();
    });

    it('represents a legacy lease with no branch (imported, recorded before claims named a branch)', async () => {
      const ctx = await factoryContextFor(gw, a);
      const item = await newItem(gw, a);
      const legacy = await recordLegacyClaim(ctx, item.id, {
        source: 'pre-branch-runner',
        claimedAt: gw.clock.now() - 1000,
        ttlSeconds: 3600,
      });
      const read = await gw.call('GET', `/v1/work-items/${item.id}`, auth(a));
      expect(read.body.data.claim).toEqual({
        id: legacy.claim.id,
        source: 'pre-branch-runner',
        branch: null,
        claimedAt: new Date(gw.clock.now() - 1000).toISOString(),
        expiresAt: new Date(gw.clock.now() - 1000 + 3_600_000).toISOString(),
      });
      expect((await getLiveClaim(ctx, item.id))?.branch).toBeNull();
      // It is a real lease: it blocks other claims, its key renews and releases it.
      expect((await claim(gw, a, item.id)).body.error.code).toBe('work_item_claimed');
      const renewed = await gw.call('PUT', `/v1/work-items/${item.id}/claims/current`, { token: legacy.itemKey });
      expect(renewed.status).toBe(200);
      expect(renewed.body.data.claim.branch).toBeNull();
      await expect(
        recordLegacyClaim(ctx, item.id, { source: 'x', claimedAt: gw.clock.now(), ttlSeconds: 60 }),
      ).rejects.toMatchObject({ code: 'work_item_claimed' });
      expect(
        (await gw.call('DELETE', `/v1/work-items/${item.id}/claims/current`, { token: legacy.itemKey })).status,
      ).toBe(204);
    });
  });
});
