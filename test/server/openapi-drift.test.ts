// The drift check itself (test/helpers/openapi-drift.ts): probe routes whose answers contradict their own
// documentation are each caught, with what is wrong; honest answers, errors and hidden routes are not.
import { Type } from 'typebox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Area } from '../../src/areas/index.js';
import { Bytes, Data, NoBody } from '../../src/server/schemas.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { takeDriftViolations } from '../helpers/openapi-drift.js';

const PUBLIC = { guard: { credentials: 'public' as const } };
const Count = Data(Type.Object({ n: Type.Integer({ minimum: 0 }), at: Type.String({ format: 'date-time' }) }));

const liars: Area = {
  name: 'drift-probe',
  routes: (app) => {
    app.get(
      '/v1/drift/honest/:id',
      { config: PUBLIC, schema: { params: Type.Object({ id: Type.String() }), response: { 200: Count } } },
      async () => ({ data: { n: 1, at: '2026-11-01T12:00:00.000Z' } }),
    );
    // Strings are sent as they are (no serializer), so the body can contradict the schema.
    app.get('/v1/drift/wrong-body', { config: PUBLIC, schema: { response: { 200: Count } } }, async (_req, reply) =>
      reply.type('application/json').send('{"data":{"n":-1,"at":"yesterday"}}' as never),
    );
    app.get('/v1/drift/not-json', { config: PUBLIC, schema: { response: { 200: Count } } }, async (_req, reply) =>
      reply.type('application/json').send('{"data":' as never),
    );
    app.get('/v1/drift/wrong-status', { config: PUBLIC, schema: { response: { 200: Count } } }, async (_req, reply) =>
      reply.status(201 as 200).send({ data: { n: 1, at: '2026-11-01T12:00:00.000Z' } }),
    );
    app.get('/v1/drift/wrong-type', { config: PUBLIC, schema: { response: { 200: Count } } }, async (_req, reply) =>
      reply.type('text/plain').send('1' as never),
    );
    app.post(
      '/v1/drift/body-without-doc',
      { config: PUBLIC, schema: { response: { 202: NoBody('Accepted') } } },
      async (_req, reply) =>
        reply
          .status(202)
          .type('application/json')
          .send('{"ok":true}' as never),
    );
    app.get('/v1/drift/no-success-doc', { config: PUBLIC }, async () => ({ data: { n: 1 } }));
    // Past Fastify's reply, as the OAuth endpoints answer: the raw response is checked too.
    app.get('/v1/drift/hijacked', { config: PUBLIC, schema: { response: { 200: Count } } }, async (_req, reply) => {
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'application/json' });
      reply.raw.end(JSON.stringify({ data: { n: 'one', at: '2026-11-01T12:00:00.000Z' } }));
    });
    app.get(
      '/v1/drift/bytes',
      { config: PUBLIC, schema: { response: { 200: Bytes(['*/*'], 'Stored bytes') } } },
      async (_req, reply) => reply.type('application/json').send(Buffer.from('[1,2]')),
    );
    app.get('/v1/drift/hidden', { config: PUBLIC, schema: { hide: true } }, async () => 'anything');
  },
};

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ extraAreas: [liars] });
});
afterAll(async () => {
  await gw.close();
});
// These tests take the violations they provoke, so the setup file's own check sees none.
afterEach(() => {
  takeDriftViolations();
});

async function violationsOf(method: 'GET' | 'POST', url: string, status: number): Promise<string[]> {
  const res = await gw.call(method, url);
  expect(res.status).toBe(status);
  return takeDriftViolations();
}

describe('the OpenAPI drift check', () => {
  it('passes an answer the document describes, an error answer and an undocumented (hidden) route', async () => {
    expect(await violationsOf('GET', '/v1/drift/honest/x', 200)).toEqual([]);
    expect(await violationsOf('GET', '/v1/drift/nowhere', 404)).toEqual([]);
    expect(await violationsOf('GET', '/v1/drift/hidden', 200)).toEqual([]);
    // Bytes documented under */* are not JSON-validated, whatever type they were stored with.
    expect(await violationsOf('GET', '/v1/drift/bytes', 200)).toEqual([]);
    // Real routes through the same check: an answer with a body, and 204 without one.
    expect(await violationsOf('GET', '/v1/capabilities', 200)).toEqual([]);
  });

  it('names a body that breaks the schema, with the field and the rule', async () => {
    const found = await violationsOf('GET', '/v1/drift/wrong-body', 200);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('GET /v1/drift/wrong-body answered 200');
    expect(found[0]).toMatch(/\/data\/(n|at) must/);
  });

  it('catches a JSON content type whose body is not JSON', async () => {
    expect(await violationsOf('GET', '/v1/drift/not-json', 200)).toEqual([expect.stringContaining('body is not JSON')]);
  });

  it('catches an undocumented status, and an operation that documents no success at all', async () => {
    expect(await violationsOf('GET', '/v1/drift/wrong-status', 201)).toEqual([
      expect.stringContaining('status 201 is not documented (documented: 200, 4XX, 5XX)'),
    ]);
    expect(await violationsOf('GET', '/v1/drift/no-success-doc', 200)).toEqual([
      expect.stringContaining('status 200 is not documented (documented: 4XX, 5XX)'),
    ]);
  });

  it('catches an undocumented content type, and a body where the document says none', async () => {
    expect(await violationsOf('GET', '/v1/drift/wrong-type', 200)).toEqual([
      expect.stringContaining('content type "text/plain" is not documented for 200 (documented: application/json)'),
    ]);
    expect(await violationsOf('POST', '/v1/drift/body-without-doc', 202)).toEqual([
      expect.stringContaining('documented without a body, but a body of 11 bytes was sent'),
    ]);
  });

  it('checks answers written past Fastify (a hijacked reply)', async () => {
    const found = await violationsOf('GET', '/v1/drift/hijacked', 200);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('/data/n must be integer');
  });
});
