// Every documented operation names its success status and the body it sends; optional paging parameters are
// not required; a 204 answers no body. (What each answer actually sends is held to the document by the drift
// check every test runs under: test/helpers/openapi-drift.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
let t: Tenant;
beforeAll(async () => {
  gw = await startGateway();
  t = await createTenant(gw);
});
afterAll(async () => {
  await gw.close();
});

interface ResponseDoc {
  content?: Record<string, { schema?: unknown }>;
  headers?: Record<string, unknown>;
}
type Operations = Record<string, Record<string, { responses: Record<string, ResponseDoc> }>>;

/** Statuses that carry no body by definition (RFC 9110), or by this API's choice for 202. */
const BODILESS = (status: number) => status === 202 || status === 204 || status === 205 || status === 304;
/** A redirect may carry a note for people (Express writes one); it needs no schema of its own. */
const REDIRECT = (status: number) => status >= 300 && status < 400 && status !== 304;

describe('OpenAPI document', () => {
  it('every operation documents a success (2xx or 3xx), and a schema for every body it sends', () => {
    const paths = (gw.app.swagger() as unknown as { paths: Operations }).paths;
    const problems: string[] = [];
    let operations = 0;
    for (const [path, ops] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(ops)) {
        operations++;
        const where = `${method.toUpperCase()} ${path}`;
        const successes = Object.keys(op.responses).filter((s) => /^[23]\d\d$/.test(s));
        if (successes.length === 0) problems.push(`${where}: no success status`);
        for (const status of successes) {
          const { content } = op.responses[status]!;
          if (BODILESS(Number(status))) {
            if (content) problems.push(`${where} ${status}: a body on a status that has none`);
          } else if (REDIRECT(Number(status))) {
            if (!op.responses[status]!.headers?.Location)
              problems.push(`${where} ${status}: a redirect without Location`);
          } else if (!content || Object.keys(content).length === 0) {
            problems.push(`${where} ${status}: no body documented`);
          } else {
            for (const [type, media] of Object.entries(content))
              if (!media.schema) problems.push(`${where} ${status} ${type}: no schema`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(operations).toBeGreaterThan(90);
  });

  it('documents the answers that are not JSON envelopes: bytes, redirects, pages and bare JSON', () => {
    const paths = (gw.app.swagger() as unknown as { paths: Operations }).paths;
    const binary = { type: 'string', format: 'binary' };
    const content = paths['/v1/artifacts/{id}/content']!.get!.responses;
    expect(content['200']!.content).toEqual({ '*/*': { schema: binary } });
    expect(content['206']!.content).toEqual({ '*/*': { schema: binary } });
    expect(Object.keys(content['206']!.headers ?? {})).toContain('Content-Range');
    const blob = paths['/v1/agents/blob/{sha256}']!.get!.responses;
    expect(blob['200']!.content).toEqual({ '*/*': { schema: binary } });
    expect(blob['304']!.content).toBeUndefined();
    const link = paths['/auth/link/{token}']!.get!.responses;
    expect(Object.keys(link).filter((s) => /^\d\d\d$/.test(s))).toEqual(['303']);
    expect(Object.keys(link['303']!.headers ?? {})).toEqual(['Location']);
    for (const method of ['get', 'post'])
      expect(Object.keys(paths['/oauth/authorize']![method]!.responses['200']!.content ?? {})).toEqual(['text/html']);
    expect(Object.keys(paths['/oauth/consent']!.post!.responses['302']!.headers ?? {})).toEqual(['Location']);
    expect(Object.keys(paths['/oauth/token']!.post!.responses['200']!.content ?? {})).toEqual(['application/json']);
    expect(Object.keys(paths['/oauth/register']!.post!.responses)).toContain('201');
    expect(paths['/v1/mcp']!.post!.responses['202']!.content).toBeUndefined();
    expect(Object.keys(paths['/v1/openapi.json']!.get!.responses['200']!.content ?? {})).toEqual(['application/json']);
  });

  it('serves its own document unchanged by the response schema it declares', async () => {
    const res = await gw.call('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify(gw.app.swagger()));
  });

  it('limit and offset are optional wherever they appear', async () => {
    const doc = (await gw.call('GET', '/v1/openapi.json')).body;
    const required: string[] = [];
    for (const [p, ops] of Object.entries<
      Record<string, { parameters?: { name: string; in: string; required?: boolean }[] }>
    >(doc.paths)) {
      for (const [m, op] of Object.entries(ops)) {
        for (const prm of op.parameters ?? [])
          if (prm.in === 'query' && (prm.name === 'limit' || prm.name === 'offset') && prm.required)
            required.push(`${m} ${p} ${prm.name}`);
      }
    }
    expect(required).toEqual([]);
  });

  it('DELETE routes document their 204; DELETE /v1/api-keys/{id} answers it with no body', async () => {
    const doc = (await gw.call('GET', '/v1/openapi.json')).body;
    for (const path of [
      '/v1/api-keys/{id}',
      '/v1/apps/{appId}',
      '/v1/work-items/{id}/claims/current',
      '/v1/repositories/{owner}/{repo}',
      '/v1/orgs/{orgName}/members/{userId}',
      '/v1/admin/login-tokens/{tokenId}',
      '/v1/admin/orgs/{orgName}/members/{userId}',
      '/v1/dashboard/session',
    ]) {
      expect(Object.keys(doc.paths[path].delete.responses), path).toContain('204');
    }
    const key = await gw.call('POST', '/v1/api-keys', {
      token: t.loginToken,
      appId: t.appId,
      body: { name: 'gone', preset: 'read-only' },
    });
    const del = await gw.call('DELETE', `/v1/api-keys/${key.body.data.id}`, { token: t.loginToken, appId: t.appId });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
  });
  it("errors are documented as sent: RFC 6749's shape on the OAuth endpoints, the envelope elsewhere", async () => {
    const doc = (await gw.call('GET', '/v1/openapi.json')).body;
    const oauth = [
      'get /oauth/authorize',
      'post /oauth/authorize',
      'post /oauth/token',
      'post /oauth/register',
      'post /oauth/revoke',
    ];
    const refs = new Map<string, string>();
    type Res = { content?: Record<string, { schema?: { $ref?: string } }> };
    const ref = (r: Res | undefined) => r?.content?.['application/json']?.schema?.$ref;
    for (const [p, ops] of Object.entries<Record<string, { responses: Record<string, Res> }>>(doc.paths)) {
      for (const [m, op] of Object.entries(ops))
        refs.set(`${m} ${p}`, `${ref(op.responses['4XX'])} ${ref(op.responses['5XX'])}`);
    }
    for (const op of oauth)
      expect(refs.get(op), op).toBe('#/components/schemas/OAuthError #/components/schemas/OAuthError');
    const others = [...refs].filter(([op]) => !oauth.includes(op));
    expect(others.length).toBeGreaterThan(80);
    expect(others.filter(([, r]) => r !== '#/components/schemas/Error #/components/schemas/Error')).toEqual([]);

    // What the endpoints answer to bad requests matches the schema the document names for them.
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const ajv = new Ajv2020({ strict: false });
    const oauthError = ajv.compile(doc.components.schemas.OAuthError);
    const envelope = ajv.compile(doc.components.schemas.Error);
    // Over a socket: the OAuth endpoints are the SDK's Express handlers, which read the request stream.
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(gw.app.server.address() as { port: number }).port}`;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const json = { 'content-type': 'application/json' };
    const asked: [string, Record<string, string>, string][] = [
      ['/oauth/token', form, 'grant_type=authorization_code&code=nope&client_id=nobody'],
      ['/oauth/register', json, JSON.stringify({ redirect_uris: ['http://example.com/cb'] })],
      ['/oauth/token', json, '{"broken'],
      ['/oauth/revoke', form, 'token=x&client_id=nobody'],
    ];
    for (const [path, headers, body] of asked) {
      const r = await fetch(`${base}${path}`, { method: 'POST', headers, body });
      const text = await r.text();
      expect(r.status, text).toBe(400);
      const parsed: unknown = JSON.parse(text);
      expect(oauthError(parsed), text).toBe(true);
      expect(envelope(parsed), text).toBe(false);
    }
    const rest = await gw.call('GET', '/v1/api-keys');
    expect(rest.status).toBe(401);
    expect(envelope(rest.body)).toBe(true);
    expect(oauthError(rest.body)).toBe(false);
  });
});
