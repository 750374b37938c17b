import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../../src/server/permissions.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';

describe('GET /.well-known/oauth-protected-resource (RFC 9728)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway({ env: { ATTEST_PUBLIC_URL: 'https://attest.example.com/' } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  const expected = (resource: string) => ({
    resource,
    authorization_servers: ['https://attest.example.com'],
    bearer_methods_supported: ['header'],
    scopes_supported: PERMISSIONS.filter((p) => p.endsWith('.read')),
    resource_name: 'Attest gateway',
    resource_documentation: 'https://attest.example.com/v1/openapi.json',
  });

  it('describes the gateway as a bare JSON document', async () => {
    const res = await gw.call('GET', '/.well-known/oauth-protected-resource');
    expect(res.status).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.body).toEqual(expected('https://attest.example.com'));
  });

  it('describes /v1/mcp at its path-suffixed form', async () => {
    const res = await gw.call('GET', '/.well-known/oauth-protected-resource/v1/mcp');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expected('https://attest.example.com/v1/mcp'));
  });

  it("describes a factory's /v1/apps/{appId}/mcp, for any well-formed id (nothing is looked up)", async () => {
    const appId = crypto.randomUUID();
    const res = await gw.call('GET', `/.well-known/oauth-protected-resource/v1/apps/${appId}/mcp`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expected(`https://attest.example.com/v1/apps/${appId}/mcp`));
    const upper = await gw.call('GET', `/.well-known/oauth-protected-resource/v1/apps/${appId.toUpperCase()}/mcp`);
    expect(upper.body.resource).toBe(`https://attest.example.com/v1/apps/${appId}/mcp`);
  });

  it('answers 400 invalid_path_params for an app id that is not a uuid', async () => {
    const res = await gw.call('GET', '/.well-known/oauth-protected-resource/v1/apps/not-a-uuid/mcp');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_path_params');
  });

  it('answers 404 route_not_found for other suffixes, and 405 for other methods', async () => {
    const other = await gw.call('GET', '/.well-known/oauth-protected-resource/v1/sessions');
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('route_not_found');
    const post = await gw.call('POST', '/.well-known/oauth-protected-resource', { body: {} });
    expect(post.status).toBe(405);
    expect(post.body.error.code).toBe('method_not_allowed');
  });

  it('needs no credential and ignores a bad one', async () => {
    const res = await gw.call('GET', '/.well-known/oauth-protected-resource/v1/mcp', { token: 'olu_bad' });
    expect(res.status).toBe(200);
  });
});
