// POST /v1/emitted-results and GET /v1/emitted-results?repository=&prNumber=.
import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';

interface EmitFields {
  clientEmitId?: string;
  name?: string;
  result?: 'pass' | 'fail';
  link?: string;
  emittedAt?: string;
  prNumber?: number;
  repository?: string;
  headSha?: string;
  ci?: Record<string, unknown>;
}

function at(minutes: number): string {
  return new Date(Date.parse('2026-11-01T12:00:00Z') + minutes * 60_000).toISOString();
}

function emitBody(fields: EmitFields = {}) {
  return {
    schemaVersion: 1,
    emit: {
      clientEmitId: crypto.randomUUID(),
      name: 'unit-tests',
      result: 'pass',
      link: 'https://ci.example.com/runs/1',
      emittedAt: at(0),
      prNumber: 12,
      repository: 'acme/api',
      ...fields,
    },
  };
}

describe('emitted results', () => {
  let gw: TestGateway;
  let t: Tenant;
  let other: Tenant;
  let auth: { token: string; appId: string };

  withGatewayAndTenants((s) => ({ gw, a: t, b: other } = s));
  beforeAll(() => {
    auth = { token: t.factoryKey, appId: t.appId };
  });

  const emit = (body: unknown, a: { token: string; appId: string } = auth) =>
    gw.call('POST', '/v1/emitted-results', { ...a, body });
  const list = (repository: string, prNumber: number, a: { token: string; appId: string } = auth) =>
    gw.call('GET', `/v1/emitted-results?repository=${encodeURIComponent(repository)}&prNumber=${prNumber}`, a);

  async function keyWith(permissions: string[]): Promise<string> {
    const res = await gw.call('POST', '/v1/api-keys', {
      token: t.loginToken,
      appId: t.appId,
      body: { name: `k-${crypto.randomUUID()}`, permissions },
    });
    expect(res.status).toBe(201);
    return res.body.data.plaintext_key as string;
  }

  describe('POST /v1/emitted-results', () => {
    it('records a result (201) and reads it back', async () => {
      const body = emitBody({
        repository: 'acme/post',
        headSha: 'ABCDEF1234567',
        ci: { provider: 'github-actions', attempt: 2 },
      });
      const res = await emit(body);
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({
        clientEmitId: body.emit.clientEmitId,
        name: 'unit-tests',
        result: 'pass',
        link: 'https://ci.example.com/runs/1',
        repository: 'acme/post',
        prNumber: 12,
        headSha: 'abcdef1234567',
        ci: { provider: 'github-actions', attempt: 2 },
        emittedAt: at(0),
      });
      expect(res.body.data.id).toMatch(/^[0-9a-f-]{36}$/);
      const read = await list('acme/post', 12);
      expect(read.status).toBe(200);
      expect(read.body.data).toEqual([{ ...res.body.data, history: [] }]);
    });

    it('is idempotent on clientEmitId: the same result again is 200 with the stored one; a different 409', async () => {
      const body = emitBody({ repository: 'acme/idem' });
      const first = await emit(body);
      expect(first.status).toBe(201);
      const again = await emit(body);
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual(first.body.data);
      const changed = await emit({ ...body, emit: { ...body.emit, result: 'fail' } });
      expect(changed.status).toBe(409);
      expect(changed.body.error).toMatchObject({ code: 'conflict', resultId: first.body.data.id });
      const read = await list('acme/idem', 12);
      expect(read.body.data).toHaveLength(1);
      expect(read.body.data[0]).toMatchObject({ result: 'pass', history: [] });
      // Another factory may reuse the clientEmitId.
      expect((await emit(body, { token: other.factoryKey, appId: other.appId })).status).toBe(201);
    });

    it('settles concurrent first emits of one clientEmitId: one 201, the rest 200', async () => {
      const body = emitBody({ repository: 'acme/race' });
      const answers = await Promise.all(Array.from({ length: 6 }, () => emit(body)));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
      expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(1);
      expect((await list('acme/race', 12)).body.data).toHaveLength(1);
    });

    it('answers 400 invalid_link for a link that is not http or https, and stores nothing', async () => {
      for (const link of [
        'ftp://ci.example.com/run',
        'javascript:alert(1)',
        'not a url',
        'file:///etc/passwd',
        'data:text/html,hi',
        '/runs/1',
      ]) {
        const res = await emit(emitBody({ link, repository: 'acme/links' }));
        expect(res.status, link).toBe(400);
        expect(res.body.error.code).toBe('invalid_link');
      }
      expect((await list('acme/links', 12)).body.data).toEqual([]);
      expect((await emit(emitBody({ link: 'http://ci.internal:8080/job/4', repository: 'acme/links' }))).status).toBe(
        201,
      );
    });

    it('answers 400 invalid_request_body for a bad result, a missing or unknown field, a bad repository', async () => {
      const bad = emitBody();
      const cases: unknown[] = [
        { ...bad, emit: { ...bad.emit, result: 'skipped' } },
        { ...bad, emit: { ...bad.emit, repository: 'no-slash' } },
        { ...bad, emit: { ...bad.emit, prNumber: 0 } },
        { ...bad, emit: { ...bad.emit, extra: true } },
        { ...bad, schemaVersion: 2 },
        { schemaVersion: 1 },
        { ...bad, emit: { ...bad.emit, ci: { blob: 'x'.repeat(5000) } } },
      ];
      for (const body of cases) {
        const res = await emit(body);
        expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expect(res.body.error.code).toBe('invalid_request_body');
      }
      const { name: _name, ...noName } = bad.emit;
      const missing = await emit({ ...bad, emit: noName });
      expect(missing.body.error.details[0]).toEqual({ path: 'emit.name', message: 'is required' });
    });

    it('refuses no credential (401), another factory’s key (401), a key without results.write (403)', async () => {
      const body = emitBody({ repository: 'acme/auth' });
      expect((await gw.call('POST', '/v1/emitted-results', { appId: t.appId, body })).status).toBe(401);
      expect((await emit(body, { token: other.factoryKey, appId: t.appId })).status).toBe(401);
      const reader = await keyWith(['results.read']);
      const denied = await emit(body, { token: reader, appId: t.appId });
      expect(denied.status).toBe(403);
      expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'results.write' });
      expect((await list('acme/auth', 12)).body.data).toEqual([]);
      const writer = await keyWith(['results.write']);
      expect((await emit(body, { token: writer, appId: t.appId })).status).toBe(201);
    });
  });

  describe('GET /v1/emitted-results', () => {
    it('lists the latest result of each check name first, with its history newest first', async () => {
      const pr = { repository: 'acme/checks', prNumber: 5 };
      // Arrival order differs from emittedAt on purpose.
      const lint2 = await emit(
        emitBody({ ...pr, name: 'lint', result: 'pass', emittedAt: at(20), link: 'https://ci.example.com/lint/2' }),
      );
      const lint1 = await emit(
        emitBody({ ...pr, name: 'lint', result: 'fail', emittedAt: at(10), link: 'https://ci.example.com/lint/1' }),
      );
      const test1 = await emit(emitBody({ ...pr, name: 'test', result: 'pass', emittedAt: at(5) }));
      const test3 = await emit(emitBody({ ...pr, name: 'test', result: 'fail', emittedAt: at(30) }));
      const test2 = await emit(emitBody({ ...pr, name: 'test', result: 'pass', emittedAt: at(15) }));
      const e2e = await emit(emitBody({ ...pr, name: 'e2e', result: 'pass', emittedAt: at(20) }));
      await emit(emitBody({ ...pr, prNumber: 6, name: 'lint', emittedAt: at(40) }));
      await emit(emitBody({ repository: 'acme/other', prNumber: 5, name: 'lint', emittedAt: at(40) }));

      const res = await list('acme/checks', 5);
      expect(res.status).toBe(200);
      const summary = res.body.data.map(
        (c: { name: string; id: string; result: string; history: { id: string }[] }) => ({
          name: c.name,
          id: c.id,
          result: c.result,
          history: c.history.map((h) => h.id),
        }),
      );
      expect(summary).toEqual([
        { name: 'test', id: test3.body.data.id, result: 'fail', history: [test2.body.data.id, test1.body.data.id] },
        // e2e and lint tie on emittedAt: by name.
        { name: 'e2e', id: e2e.body.data.id, result: 'pass', history: [] },
        { name: 'lint', id: lint2.body.data.id, result: 'pass', history: [lint1.body.data.id] },
      ]);
      expect(res.body.data[2].history[0]).toEqual(lint1.body.data);
    });

    it('shows another factory nothing, and needs results.read, both query parameters and a credential', async () => {
      await emit(emitBody({ repository: 'acme/private', prNumber: 1 }));
      const theirs = await list('acme/private', 1, { token: other.factoryKey, appId: other.appId });
      expect(theirs.status).toBe(200);
      expect(theirs.body.data).toEqual([]);
      expect((await list('acme/private', 1, { token: other.factoryKey, appId: t.appId })).status).toBe(401);
      expect(
        (await gw.call('GET', '/v1/emitted-results?repository=acme/private&prNumber=1', { appId: t.appId })).status,
      ).toBe(401);
      const writer = await keyWith(['results.write']);
      const denied = await list('acme/private', 1, { token: writer, appId: t.appId });
      expect(denied.status).toBe(403);
      expect(denied.body.error.required_permission).toBe('results.read');
      const missing = await gw.call('GET', '/v1/emitted-results?repository=acme/private', auth);
      expect(missing.status).toBe(400);
      expect(missing.body.error.code).toBe('invalid_query_params');
      const login = await list('acme/private', 1, { token: t.loginToken, appId: t.appId });
      expect(login.status).toBe(200);
      expect(login.body.data).toHaveLength(1);
    });
  });
});
