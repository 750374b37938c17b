// Cross-tenant coverage of the session routes: POST /v1/agents/sync, GET /v1/agents/blob/{sha256},
// GET /v1/sessions and GET /v1/sessions/{traceId}. Another org's factory and a sibling factory of the same
// org see nothing of a factory's sessions or blobs (blobs are stored content-addressed across factories,
// so knowing a hash must not be enough), and a sync of theirs with the same session id changes nothing.
import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { foreignCallers, siblingFactory, type Sibling } from '../../helpers/cross-tenant.js';
import { canonical, variant } from '../sessions/fixtures.js';

describe('session routes across factories and orgs', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  let sibling: Sibling;
  const png = Buffer.from('\x89PNG\r\n\x1a\n-secret-screenshot-of-A', 'latin1');
  const sha = crypto.createHash('sha256').update(png).digest('hex');
  const sessionId = `secret-session-${crypto.randomUUID()}`;
  let traceId: string;

  const own = () => ({ token: a.loginToken, appId: a.appId });
  const readOwnSession = async () => {
    const r = await gw.call('GET', `/v1/sessions/${traceId}`, own());
    expect(r.status).toBe(200);
    return r.body.data;
  };

  withGatewayAndTenants((s) => ({ gw, a, b } = s));
  beforeAll(async () => {
    sibling = await siblingFactory(gw, a);
    const doc = variant(canonical('minimal'), (d) => {
      d.id = sessionId;
      d.title = 'title of A';
    });
    const synced = await gw.call('POST', '/v1/agents/sync', {
      token: a.factoryKey,
      appId: a.appId,
      body: {
        schemaVersion: 1,
        sessions: [doc],
        blobs: [{ sha256: sha, mediaType: 'image/png', bytes: png.length, data: png.toString('base64') }],
      },
    });
    expect(synced.status).toBe(200);
    const list = await gw.call('GET', '/v1/sessions?repoScope=all&includeSubagents=1', own());
    expect(list.status).toBe(200);
    traceId = list.body.data.sessions.find((s: { sessionId: string }) => s.sessionId === sessionId).traceId;
    expect(typeof traceId).toBe('string');
    expect((await gw.call('GET', `/v1/agents/blob/${sha}`, own())).status).toBe(200);
  });

  it('GET /v1/agents/blob/{sha256}: another factory knowing the hash gets 404 blob_not_found', async () => {
    for (const [, auth] of foreignCallers(b, sibling)) {
      const r = await gw.call('GET', `/v1/agents/blob/${sha}`, auth);
      expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status: 404, code: 'blob_not_found' });
      expect(r.text).not.toContain('secret-screenshot');
    }
  });

  it('GET /v1/sessions/{traceId}: another factory gets 404 session_not_found', async () => {
    for (const [, auth] of foreignCallers(b, sibling)) {
      const r = await gw.call('GET', `/v1/sessions/${traceId}`, auth);
      expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status: 404, code: 'session_not_found' });
      expect(r.text).not.toContain('title of A');
    }
  });

  it("GET /v1/sessions: another factory's list (every scope) does not show the session", async () => {
    for (const [, auth] of foreignCallers(b, sibling)) {
      const r = await gw.call('GET', '/v1/sessions?repoScope=all&includeSubagents=1', auth);
      expect(r.status).toBe(200);
      expect(r.text).not.toContain(sessionId);
      expect(r.text).not.toContain(traceId);
    }
  });

  it("POST /v1/agents/sync: another factory's same session id is its own copy; A's is unchanged", async () => {
    const before = await readOwnSession();
    const foreign = variant(canonical('minimal'), (d) => {
      d.id = sessionId;
      d.title = 'overwritten by another factory';
    });
    for (const [, auth] of foreignCallers(b, sibling)) {
      const r = await gw.call('POST', '/v1/agents/sync', { ...auth, body: { schemaVersion: 1, sessions: [foreign] } });
      expect(r.status).toBe(200);
    }
    const after = await readOwnSession();
    expect(after).toEqual(before);
    expect(JSON.stringify(after)).not.toContain('overwritten by another factory');
    // And B's own copy is B's: its trace is not A's.
    const bList = await gw.call('GET', '/v1/sessions?repoScope=all&includeSubagents=1', {
      token: b.factoryKey,
      appId: b.appId,
    });
    const bCopy = bList.body.data.sessions.find((s: { sessionId: string }) => s.sessionId === sessionId);
    expect(bCopy.traceId).not.toBe(traceId);
  });

  it('a factory that uploads the same bytes can then read them (checked per factory, not per hash)', async () => {
    const r = await gw.call('POST', '/v1/agents/sync', {
      token: b.factoryKey,
      appId: b.appId,
      body: {
        schemaVersion: 1,
        sessions: [
          variant(canonical('minimal'), (d) => {
            d.id = `b-own-${crypto.randomUUID()}`;
          }),
        ],
        blobs: [{ sha256: sha, mediaType: 'image/png', bytes: png.length, data: png.toString('base64') }],
      },
    });
    expect(r.status).toBe(200);
    expect((await gw.call('GET', `/v1/agents/blob/${sha}`, { token: b.factoryKey, appId: b.appId })).status).toBe(200);
    // The sibling still cannot.
    expect(
      (await gw.call('GET', `/v1/agents/blob/${sha}`, { token: sibling.factoryKey, appId: sibling.appId })).status,
    ).toBe(404);
  });
});
