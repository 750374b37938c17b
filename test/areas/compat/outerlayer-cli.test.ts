// Issue 15: what the OuterLayer CLI sends, through the real server, with the bodies the issue quotes.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';

let gw: TestGateway;
let a: Tenant;
let b: Tenant;

withGatewayAndTenants((s) => ({ gw, a, b } = s));

const post = (t: Tenant, url: string, body: unknown, token = t.factoryKey) =>
  gw.call('POST', url, { token, appId: t.appId, body });
const get = (t: Tenant, url: string, token = t.loginToken) => gw.call('GET', url, { token, appId: t.appId });

function artifact(fields: Record<string, unknown>) {
  const content = Buffer.from(`evidence ${crypto.randomUUID()}`);
  return {
    schemaVersion: 1,
    artifact: {
      clientArtifactId: crypto.randomUUID(),
      filename: 'run.log',
      mediaType: 'text/plain',
      bytes: content.length,
      sha256: crypto.createHash('sha256').update(content).digest('hex'),
      caption: 'test run',
      emittedAt: '2026-11-01T12:00:00.000Z',
      ...fields,
    },
    blob: { data: content.toString('base64') },
  };
}

describe('POST /v1/artifacts with the OuterLayer CLI fields (§2)', () => {
  it('`outerlayer emit artifact`: accepts artifact.ci and stores and returns it', async () => {
    const r = await post(a, '/v1/artifacts', artifact({ repository: 'acme/api', prNumber: 7, ci: true }));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data).toMatchObject({
      ci: true,
      repository: 'acme/api',
      prNumber: 7,
      gitRepo: null,
      gitBranch: null,
      commitSha: null,
    });
    const again = await get(a, `/v1/artifacts/${r.body.data.id}`);
    expect(again.body.data.ci).toBe(true);
    const no = await post(a, '/v1/artifacts', artifact({ repository: 'acme/api', prNumber: 7, ci: false }));
    expect(no.body.data.ci).toBe(false);
  });

  it('`outerlayer sync` in a git checkout: repository, gitBranch and commitSha stored and returned', async () => {
    const r = await post(
      a,
      '/v1/artifacts',
      artifact({
        prNumber: 8,
        gitRepo: 'github.com/Acme/API',
        gitBranch: 'feat/login',
        commitSha: 'a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0',
        ci: false,
      }),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    // Normalized as session repositories are: host dropped for GitHub, lower-cased.
    expect(r.body.data).toMatchObject({
      repository: 'acme/api',
      prNumber: 8,
      gitRepo: 'acme/api',
      gitBranch: 'feat/login',
      commitSha: 'a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0',
      ci: false,
    });
    const byPr = await get(a, '/v1/artifacts?repository=acme/api&prNumber=8');
    expect(byPr.status).toBe(200);
    expect(byPr.body.data.map((x: { id: string }) => x.id)).toContain(r.body.data.id);
    // Another factory sees nothing of it.
    expect((await get(b, `/v1/artifacts/${r.body.data.id}`)).status).toBe(404);
  });

  it('any remote spelling normalizes the same; an explicit repository wins over gitRepo', async () => {
    const ssh = await post(a, '/v1/artifacts', artifact({ prNumber: 9, gitRepo: 'git@github.com:acme/web.git' }));
    expect(ssh.body.data).toMatchObject({ repository: 'acme/web', gitRepo: 'acme/web' });
    const both = await post(
      a,
      '/v1/artifacts',
      artifact({ prNumber: 9, repository: 'acme/other', gitRepo: 'github.com/acme/web' }),
    );
    expect(both.body.data).toMatchObject({ repository: 'acme/other', gitRepo: 'acme/web' });
    // gitRepo without a pull request is kept, but anchors nothing: a session anchor is still needed.
    const sessionOnly = await post(
      a,
      '/v1/artifacts',
      artifact({ gitRepo: 'github.com/acme/web', session: { sessionId: 's-1' } }),
    );
    expect(sessionOnly.status).toBe(201);
    expect(sessionOnly.body.data).toMatchObject({ repository: null, prNumber: null, gitRepo: 'acme/web' });
  });

  it('400 when gitRepo names no GitHub owner/repo for a pull request, or a field has the wrong type', async () => {
    const gitlab = await post(a, '/v1/artifacts', artifact({ prNumber: 9, gitRepo: 'gitlab.com/group/sub/proj' }));
    expect(gitlab.status).toBe(400);
    expect(gitlab.body.error.code).toBe('invalid_request_body');
    expect(gitlab.body.error.message).toMatch(/artifact.gitRepo/);
    for (const bad of [{ ci: 'yes' }, { commitSha: 'not-a-sha' }, { gitBranch: '' }]) {
      const r = await post(a, '/v1/artifacts', artifact({ repository: 'acme/api', prNumber: 7, ...bad }));
      expect(r.status, JSON.stringify(bad)).toBe(400);
    }
  });
});

function emit(fields: Record<string, unknown>) {
  return {
    schemaVersion: 1,
    emit: {
      clientEmitId: crypto.randomUUID(),
      name: 'e2e',
      result: 'pass',
      link: 'https://ci.example.com/runs/9',
      emittedAt: '2026-11-01T12:00:00.000Z',
      prNumber: 12,
      ...fields,
    },
  };
}

describe('POST /v1/emitted-results with the OuterLayer CLI shape (§4)', () => {
  it('takes emit.ci as a boolean and emit.gitRepo instead of repository', async () => {
    const r = await post(a, '/v1/emitted-results', emit({ ci: true, gitRepo: 'github.com/acme/api' }));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data).toMatchObject({ ci: true, repository: 'acme/api', prNumber: 12 });
    const checks = await get(a, '/v1/emitted-results?repository=acme/api&prNumber=12');
    expect(checks.body.data.find((c: { id: string }) => c.id === r.body.data.id)).toMatchObject({ ci: true });
    // The object form still works, and a retry is still idempotent.
    const obj = emit({ ci: { provider: 'github-actions' }, repository: 'acme/api' });
    expect((await post(a, '/v1/emitted-results', obj)).status).toBe(201);
    expect((await post(a, '/v1/emitted-results', obj)).status).toBe(200);
    expect((await get(b, '/v1/emitted-results?repository=acme/api&prNumber=12')).body.data).toEqual([]);
  });

  it('400 without repository or gitRepo, or with a gitRepo that names no GitHub repository', async () => {
    const none = await post(a, '/v1/emitted-results', emit({}));
    expect(none.status).toBe(400);
    expect(none.body.error.message).toMatch(/emit.repository/);
    const gitlab = await post(a, '/v1/emitted-results', emit({ gitRepo: 'gitlab.com/acme/api/x' }));
    expect(gitlab.status).toBe(400);
    expect(gitlab.body.error.message).toMatch(/emit.gitRepo/);
    expect((await post(a, '/v1/emitted-results', emit({ repository: 'acme/api', ci: 'yes' }))).status).toBe(400);
  });
});

describe('names clients send (§6)', () => {
  it('GET /v1/metrics/breakdown?dimension= is an alias of by', async () => {
    const win = 'from=2026-10-01T00:00:00Z&to=2026-11-01T00:00:00Z';
    const byBy = await get(a, `/v1/metrics/breakdown?${win}&by=origin`);
    const byDimension = await get(a, `/v1/metrics/breakdown?${win}&dimension=origin`);
    expect(byDimension.status).toBe(200);
    expect(byDimension.body).toEqual(byBy.body);
    expect((await get(a, `/v1/metrics/breakdown?${win}&by=origin&dimension=origin`)).status).toBe(200);
    const clash = await get(a, `/v1/metrics/breakdown?${win}&by=origin&dimension=repo`);
    expect(clash.status).toBe(400);
    expect(clash.body.error.code).toBe('invalid_query_params');
    const neither = await get(a, `/v1/metrics/breakdown?${win}`);
    expect(neither.status).toBe(400);
    expect((await get(a, `/v1/metrics/breakdown?${win}&dimension=color`)).status).toBe(400);
  });

  it('GET /v1/apps?name= filters by exact name, with limit and offset', async () => {
    const created = [];
    for (const name of ['compat-one', 'compat-two', 'compat-three']) {
      const r = await gw.call('POST', '/v1/apps', { token: a.loginToken, appId: a.appId, body: { name } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      created.push(r.body.data);
    }
    const all = await get(a, '/v1/apps');
    expect(all.body.data.length).toBeGreaterThanOrEqual(4);
    const one = await get(a, '/v1/apps?name=compat-two');
    expect(one.status).toBe(200);
    expect(one.body.data.map((x: { name: string }) => x.name)).toEqual(['compat-two']);
    expect((await get(a, '/v1/apps?name=compat')).body.data).toEqual([]);
    const names = all.body.data.map((x: { name: string }) => x.name);
    expect((await get(a, '/v1/apps?limit=2')).body.data.map((x: { name: string }) => x.name)).toEqual(
      names.slice(0, 2),
    );
    expect((await get(a, '/v1/apps?limit=2&offset=1')).body.data.map((x: { name: string }) => x.name)).toEqual(
      names.slice(1, 3),
    );
    // Another org's credential never sees these names.
    expect((await get(b, '/v1/apps?name=compat-two')).body.data).toEqual([]);
    expect((await get(a, '/v1/apps?limit=0')).status).toBe(400);
  });

  it('GET /v1/api-keys takes limit and offset', async () => {
    for (let i = 0; i < 3; i += 1) {
      const r = await gw.call('POST', '/v1/api-keys', {
        token: a.loginToken,
        appId: a.appId,
        body: { name: `compat-${i}`, preset: 'read-only' },
      });
      expect(r.status).toBe(201);
    }
    const all = (await get(a, '/v1/api-keys')).body.data.map((k: { id: string }) => k.id);
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect((await get(a, '/v1/api-keys?limit=1&offset=1')).body.data.map((k: { id: string }) => k.id)).toEqual(
      all.slice(1, 2),
    );
    expect((await get(a, '/v1/api-keys?offset=-1')).status).toBe(400);
  });

  it('GET /v1/sessions/{traceId} also finds a session by its own sessionId, within the factory only', async () => {
    const sessionId = `compat-${crypto.randomUUID()}`;
    const doc = {
      schemaVersion: 1,
      id: sessionId,
      agent: { type: 'claude-code' },
      env: {},
      startedAt: '2026-10-01T10:00:00.000Z',
      models: [],
      turns: [],
      events: [],
      totals: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
      captureTier: 'metrics',
      warnings: [],
    };
    expect((await post(a, '/v1/agents/sync', { schemaVersion: 1, sessions: [doc] })).status).toBe(200);
    const bySessionId = await get(a, `/v1/sessions/${sessionId}`);
    expect(bySessionId.status).toBe(200);
    expect(bySessionId.body.data.sessionId).toBe(sessionId);
    const byTrace = await get(a, `/v1/sessions/${bySessionId.body.data.traceId}`);
    expect(byTrace.body.data.sessionId).toBe(sessionId);
    const other = await get(b, `/v1/sessions/${sessionId}`);
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('session_not_found');
  });

  it('a read never silently ignores a parameter: an unknown one is 400 on every GET under /v1/', async () => {
    for (const url of [
      '/v1/apps?nam=x',
      '/v1/api-keys?page=2',
      '/v1/sessions?color=blue',
      '/v1/metrics/overview?repository=acme/api',
      `/v1/agents/blob/${'a'.repeat(64)}?size=1`,
    ]) {
      const r = await get(a, url);
      expect(r.status, url).toBe(400);
      expect(r.body.error.code, url).toBe('invalid_query_params');
    }
    // appId, which names the factory of a cookie-authorized read, is accepted everywhere.
    expect((await get(a, `/v1/api-keys?appId=${a.appId}`)).status).toBe(200);
  });
});
