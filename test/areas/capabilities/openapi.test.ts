import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/server/errors.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';

/**
 * Every method + path the server registered, read from Fastify's own route tree (HEAD and OPTIONS left out). Path
 * parameters are compared without their names: the tree prints one node for routes that name the same
 * position differently (`:id|:workItemId`), so it cannot say which name belongs to which route.
 */
const unnamed = (path: string) => path.replace(/\{[^/]*\}/g, '{}');

function registeredRoutes(tree: string): string[] {
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([^)]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = (m[1] ?? '').length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    const path = unnamed(stack.join('').replace(/:[\w|:]+/g, '{}'));
    for (const method of (m[3] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      // HEAD mirrors GET; OPTIONS answers CORS preflights. Neither is an operation of the API.
      if (method !== 'HEAD' && method !== 'OPTIONS') routes.push(`${method} ${path}`);
    }
  }
  return routes.sort();
}

describe('GET /v1/openapi.json', () => {
  let gw: TestGateway;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let doc: any;
  beforeAll(async () => {
    gw = await startGateway();
    const res = await gw.call('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    doc = res.body;
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('is a bare OpenAPI 3.1 document naming this server', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc).not.toHaveProperty('data');
    expect(doc.info.title).toBeTruthy();
    expect(doc.servers).toEqual([{ url: 'http://attest.test' }]);
  });

  it('documents every registered route and nothing else', async () => {
    const registered = registeredRoutes(gw.app.printRoutes({ commonPrefix: false }));
    expect(registered.length).toBeGreaterThan(10);
    expect(registered).toContain('GET /v1/openapi.json');
    expect(registered).toContain('DELETE /v1/api-keys/{}');
    const documented: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(ops)) {
        if (['get', 'post', 'put', 'patch', 'delete'].includes(method))
          documented.push(`${method.toUpperCase()} ${unnamed(path)}`);
      }
    }
    expect(registered).toEqual(expect.arrayContaining(documented));
    // A route left out of the document (schema.hide) may only exist to refuse its method, as the MCP
    // endpoints do for GET and DELETE (Streamable HTTP without server streams); anything else is a gap.
    // The dashboard's static files (registered when a build is present) are hidden on purpose: the page
    // fallback answers index.html, a missing hashed asset the JSON 404; neither is part of the API. Nor is the
    // CLI package download: the package when `npm run build` wrote it, else the JSON 404.
    const cliBuilt = fs.existsSync(gw.config.cliPackage);
    const staticRoutes: Record<string, { path: string; status: number; type: RegExp }> = {
      'GET *': { path: '/some/dashboard/page', status: 200, type: /^text\/html/ },
      'GET /assets/*': { path: '/assets/missing-0000.js', status: 404, type: /^application\/json/ },
      'GET /downloads/attest-cli.tgz': {
        path: '/downloads/attest-cli.tgz',
        status: cliBuilt ? 200 : 404,
        type: cliBuilt ? /^application\/gzip/ : /^application\/json/,
      },
    };
    for (const route of registered.filter((r) => !documented.includes(r))) {
      const served = staticRoutes[route];
      if (served) {
        const res = await gw.call('GET', served.path);
        expect({ route, status: res.status, type: String(res.headers['content-type']) }).toMatchObject({
          route,
          status: served.status,
          type: expect.stringMatching(served.type),
        });
        continue;
      }
      const [method, path] = route.split(' ') as [string, string];
      const res = await gw.call(method as 'GET', path.replace(/\{\}/g, '00000000-0000-4000-8000-000000000000'));
      expect({ route, status: res.status, code: res.body?.error?.code }).toEqual({
        route,
        status: 405,
        code: 'method_not_allowed',
      });
    }
  });

  it("every error code is in components.schemas.Error; every operation but OAuth's answers it on 4XX/5XX", () => {
    const error = doc.components.schemas.Error;
    expect(error.properties.error.properties.code.enum.slice().sort()).toEqual(Object.keys(ERROR_CODES).sort());
    for (const code of Object.keys(ERROR_CODES))
      expect(error.properties.error.properties.code.description).toContain(code);
    // Those answer RFC 6749's { error, error_description } (test/server/openapi-success.test.ts checks both).
    const oauthProtocol = new Set(['/oauth/authorize', '/oauth/token', '/oauth/register', '/oauth/revoke']);
    for (const [path, ops] of Object.entries(
      doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>,
    )) {
      const schema = oauthProtocol.has(path) ? '"#/components/schemas/OAuthError"' : '"#/components/schemas/Error"';
      for (const op of Object.values(ops)) {
        expect(JSON.stringify(op.responses['4XX']), path).toContain(schema);
        expect(JSON.stringify(op.responses['5XX']), path).toContain(schema);
      }
    }
  });

  it('marks credentialed routes with bearer security and public ones with none', () => {
    expect(doc.paths['/v1/api-keys'].get.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/v1/api-keys'].get.description).toContain('api_keys.read');
    for (const path of [
      '/health',
      '/v1/health/ingestion',
      '/v1/pricing',
      '/v1/capabilities',
      '/.well-known/oauth-protected-resource',
    ]) {
      expect(doc.paths[path].get.security).toEqual([]);
    }
  });

  it('needs no credential and answers the same document each time', async () => {
    const again = await gw.call('GET', '/v1/openapi.json', { token: 'sk_outerlayer_bad' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(doc);
  });
});
