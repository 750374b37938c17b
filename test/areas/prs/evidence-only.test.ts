// GET /v1/prs/{owner}/{repo}/{number} for a PR known only from its evidence: artifacts or emitted results,
// with no session and no webhook state. The PR page must exist for it (issue 13); another factory's
// evidence never makes a PR known.
import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { artifactBody } from '../artifacts/helpers.js';

let gw: TestGateway;
let t: Tenant;
let other: Tenant;

const emit = (tenant: Tenant, name: string, result: 'pass' | 'fail', run: number, minute: number, prNumber: number) =>
  gw.call('POST', '/v1/emitted-results', {
    token: tenant.factoryKey,
    appId: tenant.appId,
    body: {
      schemaVersion: 1,
      emit: {
        clientEmitId: crypto.randomUUID(),
        name,
        result,
        link: `https://ci.example.com/runs/${run}`,
        emittedAt: new Date(Date.parse('2026-11-01T12:00:00Z') + minute * 60_000).toISOString(),
        prNumber,
        repository: 'acme/api',
      },
    },
  });

withGatewayAndTenants((s) => ({ gw, a: t, b: other } = s));
beforeAll(async () => {
  const png = Buffer.from('not really a png, only bytes');
  const a = await gw.call('POST', '/v1/artifacts', {
    token: t.factoryKey,
    appId: t.appId,
    body: artifactBody(png, { prNumber: 21, caption: 'the fixed login page', criterionId: 'AC-1' }),
  });
  expect(a.status, a.text).toBe(201);
  expect((await emit(t, 'e2e', 'fail', 1, 0, 22)).status).toBe(201);
  expect((await emit(t, 'e2e', 'pass', 2, 5, 22)).status).toBe(201);
  expect((await emit(other, 'e2e', 'pass', 9, 0, 23)).status).toBe(201);
});

const read = (tenant: Tenant, n: number) =>
  gw.call('GET', `/v1/prs/acme/api/${n}`, { token: tenant.loginToken, appId: tenant.appId });

describe('a PR known only from evidence', () => {
  it('is found from an artifact alone, with the artifact as the page shows it', async () => {
    const r = await read(t, 21);
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({
      repository: 'acme/api',
      number: 21,
      state: 'unknown',
      sessions: 0,
      costUsd: 0,
      sessionList: [],
      results: [],
    });
    expect(r.body.data.artifacts).toHaveLength(1);
    expect(r.body.data.artifacts[0]).toMatchObject({
      caption: 'the fixed login page',
      criterionId: 'AC-1',
      mediaType: 'image/png',
      bytes: 28,
      workItemId: null,
      session: null,
    });
    expect(r.body.data.artifacts[0].contentUrl).toBe(
      `http://attest.test/v1/artifacts/${r.body.data.artifacts[0].id}/content`,
    );
  });

  it('is found from emitted results alone, the latest result first with its history', async () => {
    const r = await read(t, 22);
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.artifacts).toEqual([]);
    expect(r.body.data.results).toHaveLength(1);
    expect(r.body.data.results[0]).toMatchObject({
      name: 'e2e',
      result: 'pass',
      link: 'https://ci.example.com/runs/2',
    });
    expect(r.body.data.results[0].history).toEqual([
      expect.objectContaining({ result: 'fail', link: 'https://ci.example.com/runs/1' }),
    ]);
  });

  it("another factory's evidence makes no PR known, and a PR with nothing stays unknown", async () => {
    const r = await read(t, 23);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('pull_request_not_found');
    expect((await read(other, 21)).status).toBe(404);
    expect((await read(other, 23)).status).toBe(200);
  });
});
