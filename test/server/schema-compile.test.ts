// Request validators and response serializers are compiled on a route's first use (idle memory, issue 17),
// so a schema that ajv or fast-json-stringify refuses would surface only when that route first answers.
// This compiles every registered route's schemas eagerly, with the gateway's own compilers, so such a
// schema still fails here, before release.
import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseSerializerFactory } from '../../src/server/serialization.js';
import { requestSchemaCompilers } from '../../src/server/validation.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const REQUEST_PARTS = ['body', 'querystring', 'params', 'headers'] as const;

interface ResponseSchema {
  httpStatus: string;
  contentType?: string;
  schema: unknown;
}

function responseSchemas(route: RouteOptions): ResponseSchema[] {
  const response = (route.schema?.response ?? {}) as Record<string, unknown>;
  const out: ResponseSchema[] = [];
  for (const [httpStatus, entry] of Object.entries(response)) {
    const content = (entry as { content?: Record<string, { schema: unknown }> }).content;
    if (content)
      for (const [contentType, media] of Object.entries(content))
        out.push({ httpStatus, contentType, schema: media.schema });
    else out.push({ httpStatus, schema: entry });
  }
  return out;
}

/** The shared schemas (Area.schemas) response schemas refer to, as Fastify hands them to its serializer compiler. */
let shared: Record<string, unknown> = {};

function compileAll(route: RouteOptions): void {
  const validators = requestSchemaCompilers();
  const serializers = responseSerializerFactory(shared as Parameters<typeof responseSerializerFactory>[0], {});
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  for (const part of REQUEST_PARTS) {
    const schema = (route.schema as Record<string, unknown> | undefined)?.[part];
    if (schema !== undefined) validators.compile(schema, part);
  }
  for (const { httpStatus, contentType, schema } of responseSchemas(route)) {
    serializers({
      method: String(methods[0]),
      url: route.url,
      httpStatus,
      schema,
      ...(contentType ? { contentType } : {}),
    } as Parameters<typeof serializers>[0]);
  }
}

describe('every route schema compiles', () => {
  let gw: TestGateway;
  const routes: RouteOptions[] = [];

  beforeAll(async () => {
    gw = await startGateway({ openApiCheck: false, onRoute: (route) => routes.push(route) });
    shared = gw.app.getSchemas();
  });
  afterAll(async () => gw?.close());

  it('compiles the request validators and response serializers of all routes', () => {
    const withSchema = routes.filter((r) => r.schema);
    // 88 documented routes at the time of writing; the gateway registers more (HEAD, dashboard, OAuth).
    expect(withSchema.length).toBeGreaterThanOrEqual(88);
    const failures: string[] = [];
    let responses = 0;
    for (const route of withSchema) {
      responses += responseSchemas(route).length;
      try {
        compileAll(route);
      } catch (err) {
        failures.push(`${String(route.method)} ${route.url}: ${(err as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
    expect(responses).toBeGreaterThanOrEqual(88);
  });

  it('reports a schema either compiler refuses', () => {
    const broken = { type: 'object', properties: { a: { $ref: '#/definitions/missing' } } };
    expect(() =>
      compileAll({ method: 'POST', url: '/probe', schema: { body: broken }, handler: () => undefined }),
    ).toThrow();
    expect(() =>
      compileAll({ method: 'GET', url: '/probe', schema: { response: { 200: broken } }, handler: () => undefined }),
    ).toThrow();
  });
});
