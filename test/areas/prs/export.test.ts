// GET /v1/prs/{owner}/{repo}/{number}/export: a PR's evidence (linked sessions, artifacts, results) streamed
// as CSV or JSON, the same as the PR route shows.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../helpers/gateway.js';
import { siblingFactory } from '../../helpers/cross-tenant.js';
import { artifactBody, keyWith } from '../artifacts/helpers.js';
import {
  connectRepository,
  deliver,
  pullRequestDelivery,
  startWithGithub,
  type GithubGateway,
} from '../webhooks/github.js';
import { ingest, sessionDoc } from '../metrics/sessions.js';

const turn = { model: 'claude-sonnet-4-5', in: 1000, out: 500 };

describe('PR evidence export', () => {
  let g: GithubGateway;
  let t: Tenant;
  let other: Tenant;
  const as = (tenant: Tenant, token = tenant.factoryKey) => ({ token, appId: tenant.appId });

  beforeAll(async () => {
    g = await startWithGithub();
    t = await createTenant(g.gw);
    other = await createTenant(g.gw);
    await connectRepository(g, t, 'acme/api');
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery({
        repository: 'acme/api',
        number: 7,
        title: 'Login fix',
        head: 'fix/login',
        updatedAt: '2026-10-01T10:00:00Z',
        installationId: g.installation.id,
      }),
    );
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery({
        repository: 'acme/api',
        number: 7,
        title: 'Login fix',
        head: 'fix/login',
        state: 'closed',
        merged: true,
        updatedAt: '2026-10-20T10:00:00Z',
        installationId: g.installation.id,
      }),
    );
    const docs = [];
    // 1203 sessions on the PR's branch (more than two export pages), one naming it, one on the branch after it merged.
    for (let i = 0; i < 1203; i++)
      docs.push(
        sessionDoc({
          startedAt: new Date(Date.UTC(2026, 9, 2) + (i % 400) * 60_000).toISOString(),
          repo: 'acme/api',
          branch: 'fix/login',
          title: `s${i}`,
          turns: [turn],
        }),
      );
    docs.push(
      sessionDoc({
        startedAt: '2026-10-03T00:00:00Z',
        repo: 'acme/api',
        branch: 'main',
        prNumber: 7,
        title: '=cmd|" /C calc"!A0',
        turns: [turn],
      }),
    );
    docs.push(
      sessionDoc({
        startedAt: '2026-10-25T00:00:00Z',
        repo: 'acme/api',
        branch: 'fix/login',
        title: 'late',
        turns: [turn],
      }),
    );
    await ingest(g.gw, as(t), docs);
    const artifact = await g.gw.call('POST', '/v1/artifacts', {
      ...as(t),
      body: artifactBody(Buffer.from('png bytes'), { caption: 'before, "after"\nand +more' }),
    });
    expect(artifact.status).toBe(201);
    const result = await g.gw.call('POST', '/v1/emitted-results', {
      ...as(t),
      body: {
        schemaVersion: 1,
        emit: {
          clientEmitId: crypto.randomUUID(),
          name: '@unit',
          result: 'pass',
          link: 'https://ci.example.com/runs/1',
          emittedAt: '2026-10-05T00:00:00Z',
          prNumber: 7,
          repository: 'acme/api',
        },
      },
    });
    expect(result.status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await g?.close();
  });

  it("JSON: the PR route's sessions, artifacts and results", async () => {
    const detail = await g.gw.call('GET', '/v1/prs/acme/api/7', as(t));
    expect(detail.status).toBe(200);
    const r = await g.gw.call('GET', '/v1/prs/acme/api/7/export?format=json', as(t));
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.headers['content-disposition']).toContain('filename="acme-api-7-evidence.json"');
    expect(r.body.pullRequest).toMatchObject({
      repository: 'acme/api',
      number: 7,
      state: 'merged',
      title: 'Login fix',
      merged: true,
      branch: 'fix/login',
    });
    expect(r.body.sessions).toHaveLength(1204); // 1203 on the branch + the one naming it; the late one is not linked
    // The same sessions as the PR route, in the same order (oldest first; equal start times by id in the export).
    const byId = (a: { traceId: string; startedAt: string }, b: { traceId: string; startedAt: string }) =>
      a.startedAt === b.startedAt ? (a.traceId < b.traceId ? -1 : 1) : a.startedAt < b.startedAt ? -1 : 1;
    expect(r.body.sessions).toEqual([...detail.body.data.sessionList].sort(byId));
    // The PR route's answer schema keeps a few fields; the export has whole artifacts and results.
    expect(r.body.artifacts).toMatchObject(detail.body.data.artifacts);
    expect(r.body.results).toMatchObject(detail.body.data.results);
    expect(r.body.artifacts).toHaveLength(1);
    expect(r.body.results).toHaveLength(1);
  });

  it('CSV: one line per item, escaped', async () => {
    const r = await g.gw.call('GET', '/v1/prs/acme/api/7/export', as(t));
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(r.headers['content-disposition']).toContain('filename="acme-api-7-evidence.csv"');
    const lines = r.text.split('\r\n');
    expect(lines[0]).toBe('kind,id,at,name,status,costUsd,linkedBy,agentType,sessionId,url,detail');
    // 1204 session lines, 1 artifact (its caption holds a line break inside quotes), 1 result, trailing ''.
    expect(lines.filter((l) => l.startsWith('session,'))).toHaveLength(1204);
    expect(r.text).toContain(`"'=cmd|"" /C calc""!A0"`);
    expect(r.text).toContain('"before, ""after""\nand +more"');
    expect(r.text).toMatch(/\r\nresult,[^,]+,2026-10-05T00:00:00.000Z,'@unit,pass,/);
    expect(r.text).toMatch(/,session,claude-code,/); // the naming session is linked by "session"
    expect(r.text).toMatch(/,branch,claude-code,/);
  });

  it('404 for an unknown PR, 400 for a bad format, 403 without prs.read, 401 without a credential', async () => {
    const unknown = await g.gw.call('GET', '/v1/prs/acme/api/999/export', as(t));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('pull_request_not_found');
    // Known from its evidence alone: an emitted result for acme/api#31, no webhook, no session.
    const emitted = await g.gw.call('POST', '/v1/emitted-results', {
      ...as(t),
      body: {
        schemaVersion: 1,
        emit: {
          clientEmitId: crypto.randomUUID(),
          name: 'e2e',
          result: 'fail',
          link: 'https://ci.example.com/runs/2',
          emittedAt: '2026-10-06T00:00:00Z',
          prNumber: 31,
          repository: 'acme/api',
        },
      },
    });
    expect(emitted.status).toBe(201);
    const evidenceOnly = await g.gw.call('GET', '/v1/prs/acme/api/31/export?format=json', as(t));
    expect(evidenceOnly.status).toBe(200);
    expect(evidenceOnly.body).toMatchObject({
      pullRequest: { number: 31, state: 'unknown' },
      sessions: [],
      artifacts: [],
      results: [{ name: 'e2e', result: 'fail' }],
    });
    const bad = await g.gw.call('GET', '/v1/prs/acme/api/7/export?format=pdf', as(t));
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_query_params');
    const noRead = await g.gw.call(
      'GET',
      '/v1/prs/acme/api/7/export',
      as(t, await keyWith(g.gw, t, ['sessions.read'])),
    );
    expect(noRead.status).toBe(403);
    const none = await g.gw.call('GET', '/v1/prs/acme/api/7/export', { appId: t.appId });
    expect(none.status).toBe(401);
  });

  it('another factory sees nothing of this PR, in another org or in the same one', async () => {
    const r = await g.gw.call('GET', '/v1/prs/acme/api/7/export?format=json', as(other));
    expect(r.status).toBe(404);
    expect(r.text).not.toContain('Login fix');
    const sibling = await siblingFactory(g.gw, t);
    for (const token of [sibling.factoryKey, sibling.loginToken]) {
      const own = await g.gw.call('GET', '/v1/prs/acme/api/7/export?format=json', { token, appId: sibling.appId });
      expect(own.status).toBe(404);
      expect(own.body.error.code).toBe('pull_request_not_found');
      expect(own.text).not.toContain('Login fix');
    }
    // The sibling's key naming this factory: refused, nothing of the PR.
    const named = await g.gw.call('GET', '/v1/prs/acme/api/7/export?format=json', {
      token: sibling.factoryKey,
      appId: t.appId,
    });
    expect(named.status).toBe(401);
    expect(named.text).not.toContain('Login fix');
  });
});
