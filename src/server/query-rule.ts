// One rule for every read's query string (issue 15 §6): a read never silently ignores a parameter. Under
// /v1/, a GET route's query string admits only the parameters its schema declares, plus `appId` (a
// cookie-authorized read may name its factory there, see guard.ts); anything else is 400
// invalid_query_params naming the parameter. A route with no query schema takes no parameter but `appId`.
// Applied here, once, when each route is added, so no route can forget it.
import type { FastifyInstance, RouteOptions } from 'fastify';

const APP_ID = { type: 'string', maxLength: 200 } as const;

type JsonObjectSchema = {
  type?: unknown;
  properties?: Record<string, unknown>;
  additionalProperties?: unknown;
  [k: string]: unknown;
};

export function strictQuery(route: Pick<RouteOptions, 'method' | 'url' | 'schema'>): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!methods.includes('GET') || !route.url.startsWith('/v1/')) return;
  const schema = (route.schema ?? {}) as { querystring?: JsonObjectSchema; [k: string]: unknown };
  const given = schema.querystring;
  // A copy: query schemas are shared between routes.
  const strict: JsonObjectSchema = given
    ? { ...given, properties: { appId: APP_ID, ...(given.properties ?? {}) }, additionalProperties: false }
    : { type: 'object', properties: { appId: APP_ID }, additionalProperties: false };
  route.schema = { ...schema, querystring: strict };
}

export function registerQueryRule(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => strictQuery(route));
}
