import { describe, expect, it } from 'vitest';
import { createTenant, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { auth, claim, keyWith, newItem } from './helpers.js';

describe('work items', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s));

  describe('POST /v1/work-items', () => {
    it('creates an item with the next number and defaults, then updates it by tracker + trackerKey', async () => {
      const t = await createTenant(gw);
      const created = await gw.call('POST', '/v1/work-items', {
        ...auth(t),
        body: { tracker: 'linear', trackerKey: 'ENG-42', title: 'Fix it' },
      });
      expect(created.status).toBe(201);
      expect(created.body.data).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        number: 1,
        tracker: 'linear',
        trackerKey: 'ENG-42',
        title: 'Fix it',
        specRepository: '',
        specNumber: 0,
        stage: 'backlog',
        section: '',
        blockClass: 'none',
        claim: null,
        startable: true,
        repository: null,
        withdrawn: false,
        withdrawnAt: null,
        createdAt: '2026-11-01T12:00:00.000Z',
        updatedAt: '2026-11-01T12:00:00.000Z',
      });
      const second = await gw.call('POST', '/v1/work-items', {
        ...auth(t),
        body: { tracker: 'linear', trackerKey: 'ENG-43', title: 'Other' },
      });
      expect(second.body.data.number).toBe(2);
      gw.clock.advance(1000);
      const updated = await gw.call('POST', '/v1/work-items', {
        ...auth(t),
        body: { tracker: 'linear', trackerKey: 'ENG-42', title: 'Fix it well', stage: 'ready', repository: 'acme/api' },
      });
      expect(updated.status).toBe(200);
      expect(updated.body.data).toMatchObject({
        id: created.body.data.id,
        number: 1,
        title: 'Fix it well',
        stage: 'ready',
        repository: 'acme/api',
        section: '',
      });
      expect(updated.body.data.updatedAt).toBe('2026-11-01T12:00:01.000Z');
      const read = await gw.call('GET', `/v1/work-items/${created.body.data.id}`, auth(t));
      expect(read.body.data).toEqual(updated.body.data);
      // The same tracker key under another tracker is another item.
      const github = await gw.call('POST', '/v1/work-items', {
        ...auth(t),
        body: { tracker: 'github', trackerKey: 'ENG-42', title: 'x' },
      });
      expect(github.status).toBe(201);
      expect(github.body.data.number).toBe(3);
    });

    it('numbers each factory from 1', async () => {
      const t = await createTenant(gw);
      const first = await newItem(gw, t);
      expect(first.number).toBe(1);
    });

    it('gives 20 concurrent creates 20 distinct numbers 1..20', async () => {
      const t = await createTenant(gw);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          gw.call('POST', '/v1/work-items', {
            ...auth(t),
            body: { tracker: 'jira', trackerKey: `C-${i}`, title: `c${i}` },
          }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
      expect(results.map((r) => r.body.data.number).sort((x: number, y: number) => x - y)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
    });

    it('turns 10 concurrent upserts of one tracker key into one item', async () => {
      const t = await createTenant(gw);
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          gw.call('POST', '/v1/work-items', {
            ...auth(t),
            body: { tracker: 'jira', trackerKey: 'SAME-1', title: 'same' },
          }),
        ),
      );
      expect(results.every((r) => r.status === 200 || r.status === 201)).toBe(true);
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
      const list = await gw.call('GET', '/v1/work-items', auth(t));
      expect(list.body.data).toHaveLength(1);
    });

    it('validates the body', async () => {
      const bad = [
        { tracker: 'gitlab', trackerKey: 'k', title: 't' },
        { tracker: 'github', trackerKey: '', title: 't' },
        { tracker: 'github', trackerKey: 'k' },
        { tracker: 'github', trackerKey: 'k', title: 't', stage: 'doing' },
        { tracker: 'github', trackerKey: 'k', title: 't', blockClass: 'maybe' },
        { tracker: 'github', trackerKey: 'k', title: 't', section: 'x'.repeat(101) },
        { tracker: 'github', trackerKey: 'k', title: 't', repository: 'not a repo' },
        { tracker: 'github', trackerKey: 'k', title: 't', extra: 1 },
      ];
      for (const body of bad) {
        const res = await gw.call('POST', '/v1/work-items', { ...auth(a), body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.code).toBe('invalid_request_body');
      }
      const list = await gw.call('GET', '/v1/work-items', auth(a));
      expect(list.body.data.filter((i: { trackerKey: string }) => i.trackerKey === 'k')).toHaveLength(0);
    });

    it('needs a credential with work.write', async () => {
      const body = { tracker: 'github', trackerKey: 'perm', title: 't' };
      expect((await gw.call('POST', '/v1/work-items', { appId: a.appId, body })).status).toBe(401);
      expect(
        (await gw.call('POST', '/v1/work-items', { token: 'sk_outerlayer_nope', appId: a.appId, body })).status,
      ).toBe(401);
      const readOnly = await keyWith(gw, a, ['work.read']);
      const denied = await gw.call('POST', '/v1/work-items', { ...auth(a, readOnly), body });
      expect(denied.status).toBe(403);
      expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'work.write' });
      // Another factory's key naming this factory is refused and creates nothing here.
      const cross = await gw.call('POST', '/v1/work-items', { token: b.factoryKey, appId: a.appId, body });
      expect(cross.status).toBe(401);
      const list = await gw.call('GET', '/v1/work-items', auth(a));
      expect(list.body.data.filter((i: { trackerKey: string }) => i.trackerKey === 'perm')).toHaveLength(0);
    });
  });

  describe('GET /v1/work-items', () => {
    it('pages live items 100 at a time with an opaque cursor, leaving out withdrawn ones', async () => {
      const t = await createTenant(gw);
      for (let i = 0; i < 205; i += 41) {
        await Promise.all(
          Array.from({ length: Math.min(41, 205 - i) }, (_, j) =>
            gw.call('POST', '/v1/work-items', {
              ...auth(t),
              body: { tracker: 'local', trackerKey: `L-${i + j}`, title: `l${i + j}` },
            }),
          ),
        );
      }
      const withdrawn = await gw.call('POST', '/v1/work-items/7/withdraw', auth(t));
      expect(withdrawn.status).toBe(200);
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const url: string = cursor === null ? '/v1/work-items' : `/v1/work-items?cursor=${cursor}`;
        const res = await gw.call('GET', url, auth(t));
        expect(res.status).toBe(200);
        expect(res.body.data.length).toBeLessThanOrEqual(100);
        seen.push(...res.body.data.map((i: { number: number }) => i.number));
        cursor = res.body.pagination.cursor;
        if (cursor !== null) expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
        pages++;
      } while (cursor !== null && pages < 10);
      expect(pages).toBe(3);
      expect(seen).toHaveLength(204);
      expect(seen).not.toContain(7);
      expect(seen).toEqual([...seen].sort((x, y) => x - y));
      expect(new Set(seen).size).toBe(204);
    });

    it('returns the spec list-entry shape and no more', async () => {
      const t = await createTenant(gw);
      await newItem(gw, t, { section: 'api', stage: 'ready' });
      const res = await gw.call('GET', '/v1/work-items', auth(t));
      expect(res.body).toEqual({
        data: [
          {
            id: expect.any(String),
            number: 1,
            tracker: 'github',
            trackerKey: expect.any(String),
            title: expect.any(String),
            specRepository: 'acme/specs',
            specNumber: expect.any(Number),
            stage: 'ready',
            section: 'api',
            blockClass: 'none',
            claim: null,
            startable: true,
          },
        ],
        pagination: { cursor: null },
      });
    });

    it('withdrawn=true lists only withdrawn items (same entries, paged, claim kept); false the live ones', async () => {
      const t = await createTenant(gw);
      const items = [];
      for (let i = 0; i < 5; i++) items.push(await newItem(gw, t, { title: `w${i}` }));
      const claimed = await gw.call('POST', `/v1/work-items/${items[3].id}/claims`, {
        ...auth(t),
        body: { source: 'runner-w', branch: 'feat/w' },
      });
      expect(claimed.status).toBe(201);
      for (const n of [2, 4]) expect((await gw.call('POST', `/v1/work-items/${n}/withdraw`, auth(t))).status).toBe(200);
      for (const q of ['withdrawn=true', 'withdrawn=1']) {
        const res = await gw.call('GET', `/v1/work-items?${q}`, auth(t));
        expect(res.status).toBe(200);
        expect(res.body.pagination).toEqual({ cursor: null });
        expect(res.body.data.map((i: { number: number; title: string }) => [i.number, i.title])).toEqual([
          [2, 'w1'],
          [4, 'w3'],
        ]);
        // A withdrawn item is never startable; its claim still shows (withdrawing does not end it).
        expect(res.body.data[1]).toMatchObject({ startable: false, claim: claimed.body.data.claim });
        expect(Object.keys(res.body.data[0]).sort()).toEqual([
          'blockClass',
          'claim',
          'id',
          'number',
          'section',
          'specNumber',
          'specRepository',
          'stage',
          'startable',
          'title',
          'tracker',
          'trackerKey',
        ]);
      }
      for (const q of ['', '?withdrawn=false', '?withdrawn=0']) {
        const res = await gw.call('GET', `/v1/work-items${q}`, auth(t));
        expect(
          res.body.data.map((i: { number: number }) => i.number),
          q,
        ).toEqual([1, 3, 5]);
      }
      for (const q of ['withdrawn=yes', 'withdrawn=', 'withdrawn=TRUE']) {
        const res = await gw.call('GET', `/v1/work-items?${q}`, auth(t));
        expect(res.status, q).toBe(400);
        expect(res.body.error.code).toBe('invalid_query_params');
      }
      // Another factory's withdrawn list does not hold them.
      const other = await gw.call('GET', '/v1/work-items?withdrawn=true', auth(b));
      expect(other.body.data.map((i: { title: string }) => i.title)).not.toContain('w1');
    });

    it('withdrawn=true pages 100 at a time like the live list', async () => {
      const t = await createTenant(gw);
      for (let i = 0; i < 103; i += 35) {
        await Promise.all(
          Array.from({ length: Math.min(35, 103 - i) }, (_, j) =>
            gw.call('POST', '/v1/work-items', {
              ...auth(t),
              body: { tracker: 'local', trackerKey: `W-${i + j}`, title: `w${i + j}` },
            }),
          ),
        );
      }
      for (let n = 1; n <= 103; n += 1)
        if (n !== 50) expect((await gw.call('POST', `/v1/work-items/${n}/withdraw`, auth(t))).status).toBe(200);
      const first = await gw.call('GET', '/v1/work-items?withdrawn=true', auth(t));
      expect(first.body.data).toHaveLength(100);
      expect(first.body.data.map((i: { number: number }) => i.number)).not.toContain(50);
      const second = await gw.call(
        'GET',
        `/v1/work-items?withdrawn=true&cursor=${first.body.pagination.cursor}`,
        auth(t),
      );
      expect(second.body.data.map((i: { number: number }) => i.number)).toEqual([102, 103]);
      expect(second.body.pagination.cursor).toBeNull();
    });

    it('answers 400 invalid_cursor for a malformed cursor', async () => {
      const forged = [
        'not-base64!',
        '%%%',
        Buffer.from('{"n":"x"}').toString('base64url'),
        Buffer.from('[]').toString('base64url'),
        Buffer.from('{"n":-1}').toString('base64url'),
        Buffer.from('hello').toString('base64url'),
        Buffer.from('{"n":1,"x":2}').toString('base64url'),
      ];
      for (const cursor of forged) {
        const res = await gw.call('GET', `/v1/work-items?cursor=${encodeURIComponent(cursor)}`, auth(a));
        expect(res.status, cursor).toBe(400);
        expect(res.body.error.code).toBe('invalid_cursor');
      }
    });

    it('needs work.read, and another factory sees only its own items', async () => {
      await newItem(gw, a);
      expect((await gw.call('GET', '/v1/work-items', { appId: a.appId })).status).toBe(401);
      const hostsOnly = await keyWith(gw, a, ['hosts.write']);
      const denied = await gw.call('GET', '/v1/work-items', auth(a, hostsOnly));
      expect(denied.status).toBe(403);
      expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'work.read' });
      expect((await gw.call('GET', '/v1/work-items', { token: b.factoryKey, appId: a.appId })).status).toBe(401);
      const own = await gw.call('GET', '/v1/work-items', auth(b));
      expect(own.status).toBe(200);
      expect(own.body.data).toEqual([]);
      // Credentials that do not act on a factory are refused; a login token needs the factory header.
      expect((await gw.call('GET', '/v1/work-items', { token: a.managementKey, appId: a.appId })).status).toBe(401);
      expect((await gw.call('GET', '/v1/work-items', { token: gw.adminToken, appId: a.appId })).status).toBe(401);
      const noHeader = await gw.call('GET', '/v1/work-items', { token: a.loginToken });
      expect(noHeader.status).toBe(400);
      expect(noHeader.body.error.code).toBe('app_id_required');
      expect((await gw.call('GET', '/v1/work-items', { token: a.factoryKey })).status).toBe(401);
      expect((await gw.call('GET', '/v1/work-items', { token: a.loginToken, appId: a.appId })).status).toBe(200);
      // A key with only work.read may list.
      const readOnly = await keyWith(gw, a, ['work.read']);
      expect((await gw.call('GET', '/v1/work-items', auth(a, readOnly))).status).toBe(200);
    });
  });

  describe('GET /v1/work-items/{id}', () => {
    it('reads an item by uuid or by number', async () => {
      const item = await newItem(gw, a);
      const byId = await gw.call('GET', `/v1/work-items/${item.id}`, auth(a));
      const byNumber = await gw.call('GET', `/v1/work-items/${item.number}`, auth(a));
      expect(byId.status).toBe(200);
      expect(byId.body.data).toEqual(item);
      expect(byNumber.body.data).toEqual(item);
      expect((await gw.call('GET', `/v1/work-items/${item.id.toUpperCase()}`, auth(a))).body.data.id).toBe(item.id);
    });

    it("answers 404 work_item_not_found for unknown ids, numbers and other factories' items", async () => {
      const item = await newItem(gw, a);
      for (const id of [
        '99999',
        '00000000-0000-4000-8000-000000000000',
        'nope',
        '0',
        '-1',
        item.id,
        String(item.number + 1000),
      ]) {
        const res = await gw.call('GET', `/v1/work-items/${id}`, auth(b));
        expect(res.status, id).toBe(404);
        expect(res.body.error.code).toBe('work_item_not_found');
      }
      expect((await gw.call('GET', `/v1/work-items/${item.id}`, { token: b.factoryKey, appId: a.appId })).status).toBe(
        401,
      );
      const hostsOnly = await keyWith(gw, a, ['hosts.read']);
      expect(
        (await gw.call('GET', `/v1/work-items/${item.id}`, auth(a, hostsOnly))).body.error.required_permission,
      ).toBe('work.read');
    });
  });

  describe('PATCH /v1/work-items/{id}', () => {
    it('changes stage, section, blockClass, title and repository, and startable follows', async () => {
      const item = await newItem(gw, a, { stage: 'backlog' });
      expect(item.startable).toBe(true);
      gw.clock.advance(5);
      const blocked = await gw.call('PATCH', `/v1/work-items/${item.number}`, {
        ...auth(a),
        body: { blockClass: 'human', section: 'auth', title: 'New title', repository: 'acme/web' },
      });
      expect(blocked.status).toBe(200);
      expect(blocked.body.data).toMatchObject({
        blockClass: 'human',
        section: 'auth',
        title: 'New title',
        repository: 'acme/web',
        startable: false,
        stage: 'backlog',
      });
      expect(blocked.body.data.updatedAt).not.toBe(item.updatedAt);
      const unblocked = await gw.call('PATCH', `/v1/work-items/${item.id}`, {
        ...auth(a),
        body: { blockClass: 'none', stage: 'ready' },
      });
      expect(unblocked.body.data).toMatchObject({ stage: 'ready', startable: true });
      for (const stage of ['in_progress', 'in_review', 'done']) {
        const moved = await gw.call('PATCH', `/v1/work-items/${item.id}`, { ...auth(a), body: { stage } });
        expect(moved.body.data).toMatchObject({ stage, startable: false });
      }
      const cleared = await gw.call('PATCH', `/v1/work-items/${item.id}`, {
        ...auth(a),
        body: { repository: null, stage: 'backlog' },
      });
      expect(cleared.body.data).toMatchObject({ repository: null, startable: true });
      const read = await gw.call('GET', `/v1/work-items/${item.id}`, auth(a));
      expect(read.body.data).toEqual(cleared.body.data);
    });

    it('refuses bad bodies, withdrawn items, other factories and missing permissions', async () => {
      const item = await newItem(gw, a);
      for (const body of [
        { stage: 'nope' },
        { tracker: 'local' },
        { number: 5 },
        { title: '' },
        { blockClass: null },
        { repository: '' },
        { repository: 'nope' },
      ]) {
        const res = await gw.call('PATCH', `/v1/work-items/${item.id}`, { ...auth(a), body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.code).toBe('invalid_request_body');
      }
      const crossRes = await gw.call('PATCH', `/v1/work-items/${item.id}`, { ...auth(b), body: { title: 'hijack' } });
      expect(crossRes.status).toBe(404);
      expect(crossRes.body.error.code).toBe('work_item_not_found');
      const readOnly = await keyWith(gw, a, ['work.read']);
      const denied = await gw.call('PATCH', `/v1/work-items/${item.id}`, {
        ...auth(a, readOnly),
        body: { title: 'x' },
      });
      expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'work.write' });
      expect(
        (await gw.call('PATCH', `/v1/work-items/${item.id}`, { appId: a.appId, body: { title: 'x' } })).status,
      ).toBe(401);
      await gw.call('POST', `/v1/work-items/${item.id}/withdraw`, auth(a));
      const gone = await gw.call('PATCH', `/v1/work-items/${item.id}`, { ...auth(a), body: { title: 'x' } });
      expect(gone.status).toBe(409);
      expect(gone.body.error.code).toBe('work_item_withdrawn');
      const read = await gw.call('GET', `/v1/work-items/${item.id}`, auth(a));
      expect(read.body.data.title).toBe(item.title);
    });
  });

  describe('POST /v1/work-items/{id}/withdraw', () => {
    it('withdraws (idempotently), drops it from the list, audits it; a re-statement restores it', async () => {
      const t = await createTenant(gw);
      const item = await newItem(gw, t);
      const res = await gw.call('POST', `/v1/work-items/${item.id}/withdraw`, auth(t));
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        id: item.id,
        withdrawn: true,
        withdrawnAt: expect.any(String),
        startable: false,
      });
      const again = await gw.call('POST', `/v1/work-items/${item.number}/withdraw`, auth(t));
      expect(again.status).toBe(200);
      expect(again.body.data.withdrawnAt).toBe(res.body.data.withdrawnAt);
      expect((await gw.call('GET', '/v1/work-items', auth(t))).body.data).toEqual([]);
      expect((await gw.call('GET', `/v1/work-items/${item.id}`, auth(t))).body.data.withdrawn).toBe(true);

      const rows = await gw.app.attest.db
        .selectFrom('audit_log')
        .selectAll()
        .where('org_id', '=', t.orgId)
        .where('target_type', '=', 'work_item')
        .execute();
      expect(rows.map((r) => r.action_type)).toEqual(['work_item.withdrawn']);
      expect(rows[0]).toMatchObject({
        target_id: item.id,
        actor_type: 'api_key',
        target_identifier: `#1 github:${item.trackerKey}`,
      });

      const restated = await gw.call('POST', '/v1/work-items', {
        ...auth(t),
        body: { tracker: 'github', trackerKey: item.trackerKey, title: item.title },
      });
      expect(restated.status).toBe(200);
      expect(restated.body.data).toMatchObject({
        id: item.id,
        number: 1,
        withdrawn: false,
        withdrawnAt: null,
        startable: true,
      });
      expect((await gw.call('GET', '/v1/work-items', auth(t))).body.data).toHaveLength(1);
      const after = await gw.app.attest.db
        .selectFrom('audit_log')
        .select('action_type')
        .where('org_id', '=', t.orgId)
        .where('target_type', '=', 'work_item')
        .orderBy('seq')
        .execute();
      expect(after.map((r) => r.action_type)).toEqual(['work_item.withdrawn', 'work_item.restored']);
    });

    it('refuses other factories, missing permissions and unknown items', async () => {
      const item = await newItem(gw, a);
      const cross = await gw.call('POST', `/v1/work-items/${item.id}/withdraw`, auth(b));
      expect(cross.status).toBe(404);
      expect(cross.body.error.code).toBe('work_item_not_found');
      const readOnly = await keyWith(gw, a, ['work.read']);
      expect(
        (await gw.call('POST', `/v1/work-items/${item.id}/withdraw`, auth(a, readOnly))).body.error.required_permission,
      ).toBe('work.write');
      expect((await gw.call('POST', `/v1/work-items/${item.id}/withdraw`, { appId: a.appId })).status).toBe(401);
      expect((await gw.call('GET', `/v1/work-items/${item.id}`, auth(a))).body.data.withdrawn).toBe(false);
      // An item key reaches no route but its own claim's.
      const claimed = await claim(gw, a, item.id);
      const keyed = await gw.call('POST', `/v1/work-items/${item.id}/withdraw`, { token: claimed.body.data.itemKey });
      expect(keyed.status).toBe(401);
    });
  });
});
