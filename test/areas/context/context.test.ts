import { describe, expect, it } from 'vitest';
import { createTenant, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { contextVerification, contextVerifications } from '../../../src/areas/context/service.js';
import type { FactoryContext } from '../../../src/server/context.js';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const sha = (n: number) => n.toString(16).padStart(40, 'a');

function factoryCtx(gw: TestGateway, t: Tenant): FactoryContext {
  const gateway = gw.app.attest;
  return {
    gateway,
    db: gateway.db,
    clock: gateway.clock,
    config: gateway.config,
    log: gw.app.log,
    requestId: 'test',
    principal: {
      kind: 'factory_key',
      credentialId: 'test',
      userId: t.ownerId,
      orgId: t.orgId,
      orgName: t.orgName,
      plan: 'enterprise',
      appId: t.appId,
      workItemId: null,
      role: 'owner',
      permissions: new Set(),
      label: 'test',
    },
    orgId: t.orgId,
    appId: t.appId,
  };
}

describe('context tree history', () => {
  let gw: TestGateway;
  let t: Tenant;
  let other: Tenant;
  const as = (tenant: Tenant) => ({ token: tenant.factoryKey, appId: tenant.appId });

  withGatewayAndTenants((s) => ({ gw, a: t, b: other } = s), { a: { plan: 'free' } });

  it('answers 404 context_not_found before anything is synced', async () => {
    const r = await gw.call('GET', '/v1/context/source', as(t));
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('context_not_found');
    const changes = await gw.call('GET', '/v1/context/changes', as(t));
    expect(changes.status).toBe(200);
    expect(changes.body).toEqual({ data: [], pagination: { total: 0, limit: 25, offset: 0 } });
  });

  it('syncs a tree, dedupes unchanged files, and records per-file changes between commits', async () => {
    const first = await gw.call('POST', '/v1/context/sync', {
      ...as(t),
      body: {
        commitSha: sha(1),
        branch: 'main',
        files: [
          { path: '.outerlayer/rules.md', content: b64('# rules\n') },
          { path: '.outerlayer/skills/a.md', content: b64('skill a') },
          { path: '.outerlayer/skills/b.md', content: b64('skill b') },
          { path: '.outerlayer/copy-of-a.md', content: b64('skill a') },
        ],
      },
    });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({
      commitSha: sha(1),
      branch: 'main',
      previousCommitSha: null,
      fileCount: 4,
      totalBytes: 8 + 7 + 7 + 7,
      created: true,
      newBlobs: 3,
      changes: { added: 4, modified: 0, removed: 0 },
    });

    gw.clock.advance(60_000);
    const second = await gw.call('POST', '/v1/context/sync', {
      ...as(t),
      body: {
        commitSha: sha(2).toUpperCase(),
        branch: 'main',
        files: [
          { path: '.outerlayer/rules.md', content: b64('# rules v2\n') },
          { path: '.outerlayer/skills/a.md', content: b64('skill a') },
          { path: '.outerlayer/copy-of-a.md', content: b64('skill a') },
          { path: '.outerlayer/skills/c.md', content: b64('skill c') },
        ],
      },
    });
    expect(second.status).toBe(201);
    // Only the two new contents were stored; unchanged files point at the blobs of the first commit.
    expect(second.body.data).toMatchObject({
      commitSha: sha(2),
      previousCommitSha: sha(1),
      newBlobs: 2,
      changes: { added: 1, modified: 1, removed: 1 },
    });

    const changes = await gw.call('GET', '/v1/context/changes', as(t));
    expect(changes.status).toBe(200);
    expect(changes.headers['x-ratelimit-limit']).toBe('100');
    expect(changes.body.pagination).toEqual({ total: 2, limit: 25, offset: 0 });
    expect(changes.body.data.map((c: { commitSha: string }) => c.commitSha)).toEqual([sha(2), sha(1)]);
    expect(changes.body.data[0].changes).toEqual([
      {
        path: '.outerlayer/rules.md',
        change: 'modified',
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        previousSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
      {
        path: '.outerlayer/skills/b.md',
        change: 'removed',
        sha256: null,
        previousSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
      {
        path: '.outerlayer/skills/c.md',
        change: 'added',
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        previousSha256: null,
      },
    ]);
    expect(changes.body.data[1].changes).toHaveLength(4);
    expect(changes.body.data[1].changes.every((c: { change: string }) => c.change === 'added')).toBe(true);
    expect(Date.parse(changes.body.data[0].syncedAt) - Date.parse(changes.body.data[1].syncedAt)).toBe(60_000);

    const page = await gw.call('GET', '/v1/context/changes?limit=1&offset=1', as(t));
    expect(page.body.data.map((c: { commitSha: string }) => c.commitSha)).toEqual([sha(1)]);
    expect(page.body.pagination).toEqual({ total: 2, limit: 1, offset: 1 });
    const byBranch = await gw.call('GET', '/v1/context/changes?branch=elsewhere', as(t));
    expect(byBranch.body.pagination.total).toBe(0);
  });

  it('re-syncing the same tree is a no-op; other contents at a synced commit are a conflict', async () => {
    const again = await gw.call('POST', '/v1/context/sync', {
      ...as(t),
      body: {
        commitSha: sha(1),
        branch: 'main',
        files: [
          { path: '.outerlayer/skills/b.md', content: b64('skill b') },
          { path: '.outerlayer/rules.md', content: b64('# rules\n') },
          { path: '.outerlayer/copy-of-a.md', content: b64('skill a') },
          { path: '.outerlayer/skills/a.md', content: b64('skill a') },
        ],
      },
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ commitSha: sha(1), created: false, newBlobs: 0, changes: { added: 4 } });
    const conflict = await gw.call('POST', '/v1/context/sync', {
      ...as(t),
      body: { commitSha: sha(1), files: [{ path: '.outerlayer/rules.md', content: b64('other') }] },
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('conflict');
    expect((await gw.call('GET', '/v1/context/changes', as(t))).body.pagination.total).toBe(2);
  });

  it('reads the tree, a directory and a file, at the latest or a named commit', async () => {
    const latest = await gw.call('GET', '/v1/context/source', as(t));
    expect(latest.status).toBe(200);
    expect(latest.body.data).toMatchObject({
      commitSha: sha(2),
      branch: 'main',
      path: null,
      kind: 'tree',
      content: null,
    });
    expect(latest.body.data.files.map((f: { path: string }) => f.path)).toEqual([
      '.outerlayer/copy-of-a.md',
      '.outerlayer/rules.md',
      '.outerlayer/skills/a.md',
      '.outerlayer/skills/c.md',
    ]);

    const old = await gw.call('GET', `/v1/context/source?commitSha=${sha(1)}&path=.outerlayer/rules.md`, as(t));
    expect(old.status).toBe(200);
    expect(old.body.data).toMatchObject({
      commitSha: sha(1),
      path: '.outerlayer/rules.md',
      kind: 'file',
      files: [{ path: '.outerlayer/rules.md', bytes: 8 }],
    });
    expect(Buffer.from(old.body.data.content, 'base64').toString('utf8')).toBe('# rules\n');
    const now = await gw.call('GET', '/v1/context/source?path=.outerlayer/rules.md', as(t));
    expect(Buffer.from(now.body.data.content, 'base64').toString('utf8')).toBe('# rules v2\n');

    const dir = await gw.call('GET', `/v1/context/source?commitSha=${sha(1)}&path=.outerlayer/skills/`, as(t));
    expect(dir.status).toBe(200);
    expect(dir.body.data).toMatchObject({ kind: 'tree', path: '.outerlayer/skills' });
    expect(dir.body.data.files.map((f: { path: string }) => f.path)).toEqual([
      '.outerlayer/skills/a.md',
      '.outerlayer/skills/b.md',
    ]);

    for (const url of [
      `/v1/context/source?commitSha=${sha(99)}`,
      `/v1/context/source?commitSha=${sha(2)}&path=.outerlayer/skills/b.md`,
      '/v1/context/source?path=.outerlayer/nope',
    ]) {
      const r = await gw.call('GET', url, as(t));
      expect(r.status, url).toBe(404);
      expect(r.body.error.code).toBe('context_not_found');
    }
    const bad = await gw.call('GET', '/v1/context/source?commitSha=xyz', as(t));
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_query_params');
  });

  it('rejects malformed bodies and queries', async () => {
    const cases: [unknown, string][] = [
      [{ commitSha: sha(3), files: [{ path: '../escape', content: b64('x') }] }, 'files.0.path'],
      [{ commitSha: sha(3), files: [{ path: '/abs', content: b64('x') }] }, 'files.0.path'],
      [{ commitSha: sha(3), files: [{ path: 'a//b', content: b64('x') }] }, 'files.0.path'],
      [
        {
          commitSha: sha(3),
          files: [
            { path: 'a', content: b64('x') },
            { path: 'a', content: b64('y') },
          ],
        },
        'files.1.path',
      ],
      [{ commitSha: sha(3), files: [{ path: 'a', content: 'not base64!' }] }, 'files.0.content'],
      [{ commitSha: 'main', files: [] }, 'commitSha'],
      [{ commitSha: sha(3), files: [], extra: 1 }, 'extra'],
      [{ commitSha: sha(3) }, 'files'],
    ];
    for (const [body, path] of cases) {
      const r = await gw.call('POST', '/v1/context/sync', { ...as(t), body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('invalid_request_body');
      expect(r.body.error.details[0].path).toBe(path);
    }
    const huge = await gw.call('POST', '/v1/context/sync', {
      ...as(t),
      body: { commitSha: sha(3), files: [{ path: 'big', content: 'A'.repeat(8 * 1024 * 1024) }] },
    });
    expect(huge.status).toBe(413);
    expect(huge.body.error).toMatchObject({ code: 'payload_too_large', limit: 8 * 1024 * 1024 });
    const bigFile = await gw.call('POST', '/v1/context/sync', {
      ...as(t),
      body: {
        commitSha: sha(3),
        files: [{ path: 'big', content: Buffer.alloc(2 * 1024 * 1024 + 3).toString('base64') }],
      },
    });
    expect(bigFile.status).toBe(400);
    expect(bigFile.body.error.details[0].path).toBe('files.0.content');
    const json = await gw.call('POST', '/v1/context/sync', {
      ...as(t),
      raw: '{"commitSha":',
      headers: { 'content-type': 'application/json' },
    });
    expect(json.status).toBe(400);
    expect(json.body.error.code).toBe('invalid_json');
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'offset=10001', 'unknown=1']) {
      const r = await gw.call('GET', `/v1/context/changes?${q}`, as(t));
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe('invalid_query_params');
    }
    expect((await gw.call('GET', '/v1/context/changes', as(t))).body.pagination.total).toBe(2);
  });

  it('stores a path of 2,048 bytes and refuses a longer one with 400, not a 500 (a path is an index key)', async () => {
    // Three-byte characters: 1,024 of them (3,072 bytes) passed the character limit and answered 500 on PostgreSQL.
    const own = await createTenant(gw, { plan: 'paid' });
    const cjk = (n: number) =>
      Array.from({ length: n }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20000))).join('');
    const longest = `.outerlayer/${cjk(Math.floor((2048 - 12) / 3))}xx`;
    expect(Buffer.byteLength(longest)).toBe(2048);
    const tooLong = `.outerlayer/${cjk(1012)}`;
    const refused = await gw.call('POST', '/v1/context/sync', {
      ...as(own),
      body: { commitSha: sha(9), files: [{ path: tooLong, content: b64('x') }] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'invalid_request_body',
      details: [{ path: 'files.0.path', message: 'must be at most 2048 bytes of UTF-8' }],
    });
    const stored = await gw.call('POST', '/v1/context/sync', {
      ...as(own),
      body: { commitSha: sha(9), files: [{ path: longest, content: b64('the longest path') }] },
    });
    expect(stored.status).toBe(201);
    const read = await gw.call('GET', `/v1/context/source?path=${encodeURIComponent(longest)}`, as(own));
    expect(read.status).toBe(200);
    expect(Buffer.from(read.body.data.content, 'base64').toString()).toBe('the longest path');
  });

  it('needs a credential with context.read / context.write', async () => {
    for (const [method, url] of [
      ['GET', '/v1/context/changes'],
      ['GET', '/v1/context/source'],
      ['POST', '/v1/context/sync'],
    ] as const) {
      const none = await gw.call(method, url, { appId: t.appId, body: { commitSha: sha(4), files: [] } });
      expect(none.status).toBe(401);
      expect(none.body.error.code).toBe('unauthorized');
      const wrong = await gw.call(method, url, {
        token: 'sk_outerlayer_000000000000000000000000000000000000aaaaaa',
        appId: t.appId,
        body: { commitSha: sha(4), files: [] },
      });
      expect(wrong.status).toBe(401);
    }
    const ingest = (
      await gw.call('POST', '/v1/api-keys', {
        token: t.loginToken,
        appId: t.appId,
        body: { name: 'ingest', preset: 'ingest' },
      })
    ).body.data.plaintext_key;
    const readOnly = (
      await gw.call('POST', '/v1/api-keys', {
        token: t.loginToken,
        appId: t.appId,
        body: { name: 'ro', preset: 'read-only' },
      })
    ).body.data.plaintext_key;
    const denied = await gw.call('GET', '/v1/context/changes', { token: ingest, appId: t.appId });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'context.read' });
    const deniedWrite = await gw.call('POST', '/v1/context/sync', {
      token: readOnly,
      appId: t.appId,
      body: { commitSha: sha(4), files: [] },
    });
    expect(deniedWrite.status).toBe(403);
    expect(deniedWrite.body.error).toMatchObject({ code: 'forbidden', required_permission: 'context.write' });
    // The ingest preset may sync (the CLI syncs with it); read-only may read.
    const synced = await gw.call('POST', '/v1/context/sync', {
      token: ingest,
      appId: t.appId,
      body: { commitSha: sha(4), files: [] },
    });
    expect(synced.status).toBe(201);
    expect(synced.body.data.changes.removed).toBe(4);
    expect((await gw.call('GET', '/v1/context/changes', { token: readOnly, appId: t.appId })).status).toBe(200);
  });

  it('keeps factories apart', async () => {
    const theirs = await gw.call('GET', `/v1/context/source?commitSha=${sha(1)}`, as(other));
    expect(theirs.status).toBe(404);
    expect((await gw.call('GET', '/v1/context/changes', as(other))).body.data).toEqual([]);
    // A key of one factory naming another factory is refused outright.
    const crossed = await gw.call('GET', '/v1/context/changes', { token: other.factoryKey, appId: t.appId });
    expect(crossed.status).toBe(401);
    // The other factory may sync the same commit with its own tree; ours is unchanged.
    const mine = await gw.call('POST', '/v1/context/sync', {
      ...as(other),
      body: { commitSha: sha(1), files: [{ path: 'x.md', content: b64('theirs') }] },
    });
    expect(mine.status).toBe(201);
    expect(mine.body.data.previousCommitSha).toBeNull();
    const ours = await gw.call('GET', `/v1/context/source?commitSha=${sha(1)}`, as(t));
    expect(ours.body.data.files).toHaveLength(4);
  });

  it('tells sessions whether their commit is a synced context commit', async () => {
    const ctx = factoryCtx(gw, t);
    expect(await contextVerification(ctx, null)).toBe('absent');
    expect(await contextVerification(ctx, sha(2))).toBe('verified');
    expect(await contextVerification(ctx, sha(2).toUpperCase())).toBe('verified');
    expect(await contextVerification(ctx, sha(77))).toBe('unverified');
    expect(await contextVerification(factoryCtx(gw, other), sha(2))).toBe('unverified');
    const many = await contextVerifications(ctx, [sha(1), sha(77), null]);
    expect([...many.entries()]).toEqual([
      [sha(1), 'verified'],
      [sha(77), 'unverified'],
      [null, 'absent'],
    ]);
  });
});
