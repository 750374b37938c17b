// Maps every error to the envelope { error: { code, message, ...extra } } in one place. Nothing unexpected
// leaks: no stack, no SQL, no driver message; a 5xx is logged with its request id.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { ApiError, apiError, type ErrorCode } from './errors.js';
import type { App } from './context.js';

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
  keyword?: string;
}

const CONTEXT_CODES: Record<string, ErrorCode> = {
  body: 'invalid_request_body',
  querystring: 'invalid_query_params',
  params: 'invalid_path_params',
  headers: 'invalid_request_body',
};

function issuePath(issue: ValidationIssue): string {
  const base = (issue.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const extra =
    issue.keyword === 'required'
      ? String(issue.params?.missingProperty ?? '')
      : issue.keyword === 'additionalProperties'
        ? String(issue.params?.additionalProperty ?? '')
        : '';
  return [base, extra].filter(Boolean).join('.') || '(root)';
}

function issueMessage(issue: ValidationIssue): string {
  if (issue.keyword === 'additionalProperties') return 'is not a known field';
  if (issue.keyword === 'required') return 'is required';
  return issue.message ?? 'is invalid';
}

function quoted(values: unknown[]): string {
  return values.map((v) => JSON.stringify(v)).join(', ');
}

/**
 * One detail per problem. A union of literals (TypeBox's enum) fails as one `const` error per branch plus an
 * `anyOf`; those become one "must be one of: ..." naming each allowed value once.
 */
export function validationDetails(issues: ValidationIssue[]): { path: string; message: string }[] {
  const allowedAt = new Map<string, unknown[]>();
  for (const issue of issues) {
    if (issue.keyword !== 'const' && issue.keyword !== 'enum') continue;
    const at = issue.instancePath ?? '';
    const list = allowedAt.get(at) ?? [];
    const values =
      issue.keyword === 'const'
        ? [issue.params?.allowedValue]
        : ((issue.params?.allowedValues as unknown[] | undefined) ?? []);
    for (const v of values) if (!list.includes(v)) list.push(v);
    allowedAt.set(at, list);
  }
  const details: { path: string; message: string }[] = [];
  const done = new Set<string>();
  for (const issue of issues) {
    const at = issue.instancePath ?? '';
    const allowed = allowedAt.get(at);
    if (allowed && (issue.keyword === 'const' || issue.keyword === 'enum' || issue.keyword === 'anyOf')) {
      if (done.has(at)) continue;
      done.add(at);
      details.push({ path: issuePath(issue), message: `must be one of: ${quoted(allowed)}` });
      continue;
    }
    details.push({ path: issuePath(issue), message: issueMessage(issue) });
  }
  return details;
}

const CONNECTION_LOST = new RegExp(
  'driver has already been destroyed|Cannot use a pool after calling end|Connection terminated|' +
    'timeout exceeded when trying to connect|database connection is not open|The database connection is not open',
  'i',
);

/** Errors that mean the data store did not answer (as opposed to a bug or bad data). */
export function isStoreUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  // An object store (S3) that answered 5xx even after the SDK's retries is a store that is not answering.
  const httpStatus = (err as { $metadata?: { httpStatusCode?: unknown } }).$metadata?.httpStatusCode;
  if (typeof httpStatus === 'number' && httpStatus >= 500) return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH'].includes(code)) return true;
    // PostgreSQL: connection exceptions (08xxx), admin shutdown / cannot connect now (57P0x), too many connections.
    if (/^08/.test(code) || /^57P0/.test(code) || code === '53300') return true;
    if (
      ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN', 'SQLITE_IOERR', 'SQLITE_FULL', 'SQLITE_READONLY'].includes(
        code.split(':')[0] ?? '',
      )
    )
      return true;
  }
  return CONNECTION_LOST.test(err.message);
}

/** The error code each failed request answered with, for its log line (see OneLinePerRequest in app.ts). */
const errorCodes = new WeakMap<FastifyRequest, string>();

export function errorCodeOf(req: FastifyRequest): string | undefined {
  return errorCodes.get(req);
}

function send(reply: FastifyReply, err: ApiError): FastifyReply {
  errorCodes.set(reply.request, err.code);
  for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
  // The OAuth protocol endpoints answer RFC 6749's shape (their clients read `error`), whatever refused the
  // request before the SDK handler ran: the body parser, the NUL check, a missing route method.
  if (reply.request.routeOptions?.config?.oauthErrors) {
    return reply
      .status(err.status)
      .header('Cache-Control', 'no-store')
      .send({ error: err.status >= 500 ? 'server_error' : 'invalid_request', error_description: err.message });
  }
  return reply.status(err.status).send({ error: { code: err.code, message: err.message, ...err.extra } });
}

/**
 * The longest path parameter the router matches, in UTF-16 units as the router counts it (after decoding); a
 * longer one answers 414 uri_too_long. The longest value a route looks up is a session's own id, which a sync
 * stores up to 200 characters (agents/validate.ts): 400 units when every one is outside the BMP. At 100, an
 * id of 101–200 characters was stored but `GET /v1/sessions/{id}` answered 414 for it.
 */
export const MAX_PARAM_LENGTH = 400;

/**
 * Errors the router raises before any route (or hook) runs: a path that is not valid percent-encoding
 * (FST_ERR_BAD_URL) and a path parameter over MAX_PARAM_LENGTH (FST_ERR_MAX_PARAM_LENGTH).
 */
export function frameworkErrors(error: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  let err: ApiError;
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      err = apiError('invalid_url', 'The URL path is not valid percent-encoding.');
      break;
    case 'FST_ERR_MAX_PARAM_LENGTH':
      err = apiError(
        'uri_too_long',
        `A path segment is longer than ${MAX_PARAM_LENGTH} characters (UTF-16 units after decoding).`,
        { limit: MAX_PARAM_LENGTH },
      );
      break;
    default:
      err = apiError('internal_error', 'The gateway failed unexpectedly. Quote the request id when reporting it.', {
        request_id: reply.request.id,
      });
      reply.log.error({ err: error }, 'router failed');
  }
  void send(reply, err);
}

/**
 * Errors Node's HTTP parser raises before Fastify sees a request (headers over 16 KiB, a timeout, bytes that
 * are not HTTP): answered on the socket with the envelope, then the connection closes.
 */
export function clientErrorHandler(
  this: { log: { trace: (obj: object, msg: string) => void } },
  err: NodeJS.ErrnoException,
  socket: Socket,
): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? ([431, 'headers_too_large', 'The request line and headers are larger than 16 KiB.'] as const)
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ([408, 'request_timeout', 'The request was not received in time.'] as const)
        : ([400, 'malformed_request', 'The request is not well-formed HTTP.'] as const);
  this.log.trace({ err }, 'client error');
  const body = JSON.stringify({ error: { code, message } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}` +
        `\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

export interface ErrorHandlingOptions {
  /** Answers a GET for a page of the dashboard that matched no route (src/server/web.ts). */
  pageFallback?: (req: FastifyRequest, reply: FastifyReply) => boolean;
}

export function registerErrorHandling(app: App, options: ErrorHandlingOptions = {}): void {
  // A router of our own mirrors every route so a 404 can tell "no such path" from "wrong method".
  const mirror = FindMyWay();
  const methodsByRoute = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      const key = route.url;
      const set = methodsByRoute.get(key) ?? new Set<string>();
      if (set.size === 0) methodsByRoute.set(key, set);
      set.add(method);
      try {
        mirror.on(method as 'GET', route.url, () => undefined, { url: key });
      } catch {
        // already known
      }
    }
  });

  app.setNotFoundHandler((req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0] ?? req.url;
    const allowed = new Set<string>();
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      const found = mirror.find(method as 'GET', path);
      if (found) allowed.add(method);
    }
    // A route of this very method that found nothing to send (a missing asset) is a plain 404.
    if (allowed.size > 0 && !allowed.has(req.method === 'HEAD' ? 'GET' : req.method)) {
      if (allowed.has('GET')) allowed.add('HEAD');
      reply.header('Allow', [...allowed].join(', '));
      return send(reply, apiError('method_not_allowed', `${req.method} is not allowed on ${path}.`));
    }
    // Only a path no route knows under any method is a dashboard page.
    if (options.pageFallback?.(req, reply)) return reply;
    return send(reply, apiError('route_not_found', `No route ${req.method} ${path}.`));
  });

  app.setErrorHandler((error: FastifyError | ApiError | Error, req: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) {
      if (error.status >= 500) req.log.error({ err: error, requestId: req.id }, 'request failed');
      return send(reply, error);
    }
    const fe = error as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
    if (fe.validation) {
      const code = CONTEXT_CODES[fe.validationContext ?? 'body'] ?? 'invalid_request_body';
      const details = validationDetails(fe.validation);
      const summary = details.map((d) => `${d.path} ${d.message}`).join('; ');
      return send(
        reply,
        apiError(code, `Invalid ${fe.validationContext ?? 'body'}: ${summary}`.slice(0, 500), { details }),
      );
    }
    switch (fe.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return send(
          reply,
          apiError('payload_too_large', 'The body is larger than this route accepts.', {
            limit: req.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit,
          }),
        );
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return send(reply, apiError('invalid_json', 'The body is not valid JSON.'));
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return send(
          reply,
          apiError(
            'unsupported_media_type',
            `Content-Type ${String(req.headers['content-type'] ?? '')} is not accepted here; send application/json.`,
          ),
        );
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return send(reply, apiError('invalid_request_body', 'Content-Length does not match the body.'));
    }
    if (error instanceof SyntaxError || fe.statusCode === 400) {
      return send(reply, apiError('invalid_json', 'The body is not valid JSON.'));
    }
    if (fe.statusCode === 413) {
      return send(
        reply,
        apiError('payload_too_large', 'The body is larger than this route accepts.', {
          limit: req.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit,
        }),
      );
    }
    if (isStoreUnavailable(error)) {
      req.log.error({ err: error, requestId: req.id }, 'data store unavailable');
      return send(
        reply,
        apiError('store_unavailable', 'A data store did not answer; retry shortly.', {}, { 'Retry-After': '5' }),
      );
    }
    req.log.error({ err: error, requestId: req.id }, 'unexpected error');
    return send(
      reply,
      apiError('internal_error', 'The gateway failed unexpectedly. Quote the request id when reporting it.', {
        request_id: req.id,
      }),
    );
  });
}
