// One check for a character no store keeps alike: NUL (U+0000). PostgreSQL refuses it in text ("invalid byte
// sequence for encoding UTF8: 0x00"), SQLite stores it but its FTS5 query parser stops at it. The gateway
// refuses it with 400 wherever a request carries text: the path, the query string, the headers and every
// string (and key) of a JSON body, before validation and before any handler, so every route, including one
// added later, answers alike on both stores (docs/security.md).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, apiError, type ErrorCode } from './errors.js';
import type { App } from './context.js';

const NUL = '\u0000';
const MESSAGE = 'contains a NUL character (U+0000), which the gateway does not accept';

/** The path (dotted, like validation details) of the first string or key holding NUL, or null. */
export function findNul(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.includes(NUL) ? path || '(root)' : null;
  if (value === null || typeof value !== 'object') return null;
  if (Buffer.isBuffer(value)) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], path ? `${path}.${i}` : String(i));
      if (found) return found;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    const at = path ? `${path}.${key}` : key;
    if (key.includes(NUL)) return at;
    const found = findNul((value as Record<string, unknown>)[key], at);
    if (found) return found;
  }
  return null;
}

function refuse(code: ErrorCode, where: string, path: string) {
  return apiError(code, `Invalid ${where}: ${path} ${MESSAGE}.`, { details: [{ path, message: MESSAGE }] });
}

function checkUrlAndHeaders(req: FastifyRequest): void {
  const params = findNul(req.params);
  if (params) throw refuse('invalid_path_params', 'path', params);
  const query = findNul(req.query);
  if (query) throw refuse('invalid_query_params', 'query', query);
  for (const [name, value] of Object.entries(req.headers)) {
    if (findNul(value)) throw refuse('invalid_header', 'header', name);
  }
}

function checkBody(req: FastifyRequest): void {
  if (typeof req.body === 'string') {
    if (req.body.includes(NUL)) throw refuse('invalid_request_body', 'body', '(root)');
    return;
  }
  const body = findNul(req.body);
  if (body) throw refuse('invalid_request_body', 'body', body);
}

/**
 * Routes of the OAuth protocol (config.oauthErrors) answer in RFC 6749's shape, `{ error, error_description }`,
 * as their clients expect; every other route throws to the error handler, which answers the envelope.
 */
async function run(check: (req: FastifyRequest) => void, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  try {
    check(req);
  } catch (err) {
    if (!(err instanceof ApiError) || !req.routeOptions.config.oauthErrors) throw err;
    await reply.code(400).header('Cache-Control', 'no-store').send({ error: 'invalid_request', error_description: err.message });
  }
}

export function registerHostileInputChecks(app: App): void {
  // onRequest runs before the guard: a NUL never reaches a credential lookup or a factory header.
  app.addHook('onRequest', async (req, reply) => run(checkUrlAndHeaders, req, reply));
  app.addHook('preValidation', async (req, reply) => run(checkBody, req, reply));
}
