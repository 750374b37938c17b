// One check for a character no store keeps alike: NUL (U+0000). PostgreSQL refuses it in text ("invalid byte
// sequence for encoding UTF8: 0x00"), SQLite stores it but its FTS5 query parser stops at it. The gateway
// refuses it with 400 wherever a request carries text: the path, the query string, the headers and every
// string (and key) of a JSON body, before validation and before any handler, so every route, including one
// added later, answers alike on both stores (docs/security.md). It also refuses JSON nested deeper than
// MAX_JSON_DEPTH, and the keys of prototype pollution: `__proto__`, and `constructor` holding an object with
// a `prototype` (what Fastify's secure-json-parse refused, as "not valid JSON", with two regular-expression
// passes over the whole text before this walk; app.ts turns those off). OAuth protocol routes get the same
// refusals in RFC 6749's shape (error-handler.ts).
//
// The same walk replaces an unpaired UTF-16 surrogate in a body's strings (JSON's `\ud800` escape, valid JSON but no
// Unicode character) with U+FFFD, as each store's driver writes it anyway: the values a handler compares and
// counts are then the values the store keeps. Before, a sync holding one answered 500 on PostgreSQL (its JSON
// refuses the escape; a re-send counted the stored and the sent branch as two facets of one row).
import type { FastifyRequest } from 'fastify';
import { apiError, type ErrorCode } from './errors.js';
import type { App } from './context.js';

const NUL = '\u0000';
const MESSAGE = 'contains a NUL character (U+0000), which the gateway does not accept';

/** JSON bodies nested deeper than this are refused: no request of the API needs more, and walks stay shallow. */
export const MAX_JSON_DEPTH = 64;

export type Finding = { path: string; problem: 'nul' | 'depth' | 'prototype' } | null;

/**
 * A key that pollutes prototypes when a body is merged into another object: `__proto__`, or `constructor`
 * holding an object with its own `prototype` (secure-json-parse's rule, which Fastify applied before).
 * JSON.parse makes both plain own properties; refusing them keeps them out of every handler all the same.
 */
function pollutes(key: string, value: unknown): boolean {
  if (key === '__proto__') return true;
  return key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype');
}

/**
 * The first string or key holding NUL, the first node nested deeper than MAX_JSON_DEPTH, or the first key of
 * prototype pollution, with its path (dotted, like validation details); unpaired surrogates in the strings it
 * walks are replaced with U+FFFD on the way (see the top of this file). A clean body (nearly all of them) is
 * walked once without building any path: the paths of every node of a 400 KB sync made this walk 4% of an
 * ingest's CPU, and their garbage more.
 */
export function inspect(root: unknown): Finding {
  return isClean(root, 0, true) ? null : locate(root, true);
}

/**
 * Whether `value` holds no finding. Recursive: the depth bound stops it at MAX_JSON_DEPTH levels, so a hostile
 * nesting cannot exhaust the stack, and it keeps no stack of its own and reads keys with `for-in`: an explicit
 * stack of every value and its depth, and an array of keys per object, cost about half as much again on the
 * ingest path (bench/ingest-cpu.ts, the walk step).
 * `prototypeKeys`: whether the keys of prototype pollution count (bodies), or only NUL and depth.
 */
function isClean(value: unknown, depth: number, prototypeKeys: boolean): boolean {
  if (typeof value === 'string') return !value.includes(NUL);
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return true;
  if (depth >= MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (typeof child === 'string') {
        if (child.includes(NUL)) return false;
        // A one-byte string (nearly all) answers at once: only two-byte ones are scanned.
        if (!child.isWellFormed()) value[i] = child.toWellFormed();
      } else if (!isClean(child, depth + 1, prototypeKeys)) return false;
    }
    return true;
  }
  // for-in, not Object.keys: no array of keys a node. A parsed body's objects inherit no enumerable key.
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key];
    if (key.includes(NUL) || (prototypeKeys && pollutes(key, child))) return false;
    if (typeof child === 'string') {
      if (child.includes(NUL)) return false;
      if (!child.isWellFormed()) (value as Record<string, unknown>)[key] = child.toWellFormed();
    } else if (!isClean(child, depth + 1, prototypeKeys)) return false;
  }
  return true;
}

/** What inspect reports: the first finding in document order, with its path. */
function locate(root: unknown, prototypeKeys: boolean): Finding {
  const stack: [unknown, string, number][] = [[root, '', 0]];
  while (stack.length > 0) {
    const [value, path, depth] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes(NUL)) return { path: path || '(root)', problem: 'nul' };
      continue;
    }
    if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) continue;
    if (depth >= MAX_JSON_DEPTH) return { path: path || '(root)', problem: 'depth' };
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], path ? `${path}.${i}` : String(i), depth + 1]);
      continue;
    }
    const keys = Object.keys(value);
    // The object's own keys first, in order (the first bad one is named), then its values depth-first.
    for (const key of keys) {
      const at = path ? `${path}.${key}` : key;
      if (key.includes(NUL)) return { path: at, problem: 'nul' };
      if (prototypeKeys && pollutes(key, (value as Record<string, unknown>)[key]))
        return { path: at, problem: 'prototype' };
    }
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      stack.push([(value as Record<string, unknown>)[key], path ? `${path}.${key}` : key, depth + 1]);
    }
  }
  return null;
}

/** The path of the first string or key holding NUL, or null. */
export function findNul(value: unknown): string | null {
  const found = isClean(value, 0, false) ? null : locate(value, false);
  return found?.problem === 'nul' ? found.path : null;
}

function refuse(code: ErrorCode, where: string, path: string) {
  return apiError(code, `Invalid ${where}: ${path} ${MESSAGE}.`, { details: [{ path, message: MESSAGE }] });
}

/**
 * True when a string anywhere in `value` (a header value, a query or params object of strings and arrays of
 * strings) holds NUL. Allocation-free: this runs on every request, and only a request that has a NUL pays
 * for `findNul`'s walk that names the path. Nesting past a few levels (never made by the query parser) is
 * left to `findNul`.
 */
function mayHoldNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes(NUL);
  if (value === null || typeof value !== 'object') return false;
  if (depth > 4) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (mayHoldNul(value[i], depth + 1)) return true;
    return false;
  }
  for (const key in value) {
    if (key.includes(NUL) || mayHoldNul((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

function checkUrlAndHeaders(req: FastifyRequest): void {
  if (mayHoldNul(req.params)) {
    const params = findNul(req.params);
    if (params) throw refuse('invalid_path_params', 'path', params);
  }
  if (mayHoldNul(req.query)) {
    const query = findNul(req.query);
    if (query) throw refuse('invalid_query_params', 'query', query);
  }
  const headers = req.headers;
  for (const name in headers) {
    if (mayHoldNul(headers[name])) throw refuse('invalid_header', 'header', name);
  }
}

function checkBody(req: FastifyRequest): void {
  const found = inspect(req.body);
  if (found?.problem === 'nul') throw refuse('invalid_request_body', 'body', found.path);
  if (found?.problem === 'depth') {
    const message = `is nested deeper than ${MAX_JSON_DEPTH} levels`;
    throw apiError('invalid_request_body', `Invalid body: ${found.path} ${message}.`, {
      details: [{ path: found.path, message }],
    });
  }
  if (found?.problem === 'prototype') {
    const message =
      'is a key the gateway does not accept (__proto__, or constructor with a prototype: prototype pollution)';
    throw apiError('invalid_request_body', `Invalid body: ${found.path} ${message}.`, {
      details: [{ path: found.path, message }],
    });
  }
}

export function registerHostileInputChecks(app: App): void {
  // onRequest runs before the guard: a NUL never reaches a credential lookup or a factory header.
  // Callback hooks, not async ones: a throw is refused the same way, and no promise is made per request.
  app.addHook('onRequest', (req, _reply, done) => {
    checkUrlAndHeaders(req);
    done();
  });
  app.addHook('preValidation', (req, _reply, done) => {
    if (req.body !== undefined && req.body !== null) checkBody(req);
    done();
  });
}
