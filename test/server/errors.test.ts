// The error envelope and the generic codes of API.md §1, through the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/server/errors.js';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../helpers/gateway.js';
import { probeArea } from '../helpers/probe.js';

describe('errors', () => {
  let gw: TestGateway;
  let t: Tenant;
  beforeAll(async () => {
    gw = await startGateway({ extraAreas: [probeArea] });
    t = await createTenant(gw);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('every code in the closed list is lower_snake_case with a status and a description', () => {
    for (const [code, def] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      expect(def.status).toBeGreaterThanOrEqual(400);
      expect(def.description.length).toBeGreaterThan(5);
    }
  });

  it('invalid_request_body with details for a body that breaks the schema', async () => {
    const r = await gw.call('POST', '/v1/probe/echo', { body: { name: '', count: 11, extra: true } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request_body');
    expect(Array.isArray(r.body.error.details)).toBe(true);
    expect(r.body.error.details[0]).toHaveProperty('path');
    expect(r.body.error.details[0]).toHaveProperty('message');
  });

  it('names an unknown field in details', async () => {
    const r = await gw.call('POST', '/v1/probe/echo', { body: { name: 'a', count: 1, extra: true } });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([{ path: 'extra', message: 'is not a known field' }]);
  });

  it('names a missing field in details', async () => {
    const r = await gw.call('POST', '/v1/probe/echo', { body: { name: 'a' } });
    expect(r.body.error.details).toEqual([{ path: 'count', message: 'is required' }]);
  });

  it('JSON bodies are not coerced: a boolean or a number is not a string, a string is not a number', async () => {
    for (const body of [
      { name: false, count: 1 },
      { name: 7, count: 1 },
      { name: 'a', count: '3' },
      { name: null, count: 1 },
    ]) {
      const r = await gw.call('POST', '/v1/probe/echo', { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('invalid_request_body');
    }
  });

  it('query strings are coerced to their schema types', async () => {
    const r = await gw.call('POST', '/v1/probe/echo?limit=25', { body: { name: 'a', count: 3 } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ name: 'a', count: 3 });
  });

  it('a body that is not an object → invalid_request_body', async () => {
    const r = await gw.call('POST', '/v1/probe/echo', { body: [1, 2] });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request_body');
  });

  it('invalid_query_params for a query out of bounds or unknown', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'other=1']) {
      const r = await gw.call('POST', `/v1/probe/echo?${q}`, { body: { name: 'a', count: 1 } });
      expect(r.status, q).toBe(400);
      expect(r.body.error.code, q).toBe('invalid_query_params');
    }
  });

  it('invalid_path_params for a malformed path parameter', async () => {
    const r = await gw.call('GET', '/v1/probe/item/not-a-uuid', { token: t.factoryKey, appId: t.appId });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_path_params');
  });

  it('invalid_json for a body that is not JSON, and for an empty JSON body', async () => {
    const r = await gw.call('POST', '/v1/probe/echo', {
      raw: '{"name": "a",',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_json');
    const empty = await gw.call('POST', '/v1/probe/echo', { raw: '', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('invalid_json');
  });

  it('unsupported_media_type for a body that is not JSON by its content type', async () => {
    const r = await gw.call('POST', '/v1/probe/echo', {
      raw: 'name=a',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(415);
    expect(r.body.error.code).toBe('unsupported_media_type');
  });

  it('route_not_found for an unknown path', async () => {
    const r = await gw.call('GET', '/v1/nothing-here');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: { code: 'route_not_found', message: 'No route GET /v1/nothing-here.' } });
  });

  it('method_not_allowed with an Allow header for a known path and the wrong method', async () => {
    const r = await gw.call('PUT', '/v1/api-keys');
    expect(r.status).toBe(405);
    expect(r.body.error.code).toBe('method_not_allowed');
    expect(String(r.headers.allow)).toContain('GET');
    expect(String(r.headers.allow)).toContain('POST');
  });

  it('payload_too_large with the limit for a body over 1 MiB', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), count: 1 });
    const r = await gw.call('POST', '/v1/probe/echo', { raw: big, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(413);
    expect(r.body.error).toMatchObject({ code: 'payload_too_large', limit: 1024 * 1024 });
  });

  it('internal_error with a request id and nothing of the failure leaked', async () => {
    const r = await gw.call('GET', '/v1/probe/boom', { headers: { 'x-request-id': 'req-test-1' } });
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe('internal_error');
    expect(r.body.error.request_id).toBe('req-test-1');
    expect(r.headers['x-request-id']).toBe('req-test-1');
    expect(r.text).not.toMatch(/select|secret|credentials|\.ts|at /i);
  });

  it('every response carries a request id, and a malformed given id is replaced', async () => {
    const r = await gw.call('GET', '/health', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('store_unavailable', () => {
  it('answers 503 store_unavailable with Retry-After when the database does not answer', async () => {
    const gw = await startGateway({ extraAreas: [probeArea] });
    const t = await createTenant(gw);
    // Let the credential resolve from cache, then take the store away.
    expect((await gw.call('GET', '/v1/probe/store', { token: t.factoryKey, appId: t.appId })).status).toBe(200);
    await gw.app.attest.db.destroy();
    const r = await gw.call('GET', '/v1/probe/store', { token: t.factoryKey, appId: t.appId });
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('store_unavailable');
    expect(r.headers['retry-after']).toBe('5');
    expect(r.text).not.toMatch(/destroyed|driver|pool/i);
    await gw.close().catch(() => undefined);
  });
});
