// The OpenAPI drift check. Every answer a test gateway sends with a 2xx or 3xx status is checked against
// the operation GET /v1/openapi.json documents for its method and route template: the status must be
// documented; a status documented without a body must send none; otherwise the content type must be one the
// status documents and a JSON body must validate against its schema. So the document cannot drift from what
// the routes answer: any test that produces an undocumented answer fails (test/helpers/openapi-drift-setup.ts
// fails the test in which the answer was recorded).
//
// The check reads the bytes the server writes (res.writeHead/write/end), not Fastify's payload, so answers
// that bypass Fastify's reply (the OAuth endpoints hand the raw response to the MCP SDK) are checked too.
// Validators are compiled on first use and cached per operation, status and media type.
import type { ServerResponse } from 'node:http';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { App } from '../../src/server/context.js';

// ajv-formats is CommonJS: under NodeNext its plugin function is the `default` property of what is imported.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv2020) => Ajv2020 }).default;

interface MediaDoc {
  schema?: Record<string, unknown>;
}
interface ResponseDoc {
  content?: Record<string, MediaDoc>;
}
interface OperationDoc {
  responses?: Record<string, ResponseDoc>;
}
interface OpenApiDoc {
  paths: Record<string, Record<string, OperationDoc>>;
  components?: Record<string, unknown>;
}

const violations: string[] = [];

/** The violations recorded since the last call (and forgets them). */
export function takeDriftViolations(): string[] {
  return violations.splice(0);
}

// OpenAPI 3.1 schemas are JSON Schema 2020-12. Formats are checked (date-time, uuid, email, ...); `binary`
// marks bytes, which are never validated as JSON. Compiling is most of the check's cost (each test file
// compiles the schemas of the operations it calls, as modules are not shared between files); unoptimized
// code compiles in about half the time and validates answers of this size as fast.
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true, code: { optimize: false } });
addFormats(ajv);
ajv.addFormat('binary', true);
/** Compiled validators by schema text: gateways of one test file share them. */
const compiled = new Map<string, ValidateFunction>();

const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json$/;

/** `/v1/apps/:appId/mcp` (Fastify) → `/v1/apps/{appId}/mcp` (OpenAPI), as @fastify/swagger writes it. */
function templateOf(route: string): string {
  return route.replace(/:([A-Za-z0-9_]+)(?:\([^)]*\))?/g, '{$1}');
}

function excerpt(body: Buffer): string {
  const text = body.subarray(0, 400).toString('utf8');
  return body.length > 400 ? `${text}…` : text;
}

class DriftChecker {
  private doc: OpenApiDoc | null = null;
  /**
   * What an answer must be, by `METHOD template status media`: a validator, or null when any body of that type goes.
   */
  private readonly bodyChecks = new Map<string, ValidateFunction | null>();

  constructor(private readonly app: App) {}

  private document(): OpenApiDoc {
    // The object GET /v1/openapi.json serializes (built once by @fastify/swagger; never modified here).
    this.doc ??= this.app.swagger() as unknown as OpenApiDoc;
    return this.doc;
  }

  /** Whether the document has an operation for this method and route (hidden routes have none). */
  documents(method: string, route: string): boolean {
    return this.document().paths[templateOf(route)]?.[method.toLowerCase()] !== undefined;
  }

  /** What is wrong with this answer, or null when the document says it. */
  check(method: string, route: string, status: number, contentType: string, body: Buffer): string | null {
    const template = templateOf(route);
    const operation = this.document().paths[template]?.[method.toLowerCase()];
    if (!operation) return null;
    const responses = operation.responses ?? {};
    const documented = responses[String(status)] ?? responses[`${String(status)[0]}XX`];
    if (!documented) return `status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`;
    const content = documented.content;
    if (!content)
      return body.length === 0
        ? null
        : `status ${status} is documented without a body, but a body of ${body.length} bytes was sent`;
    const media = contentType.split(';')[0]!.trim().toLowerCase();
    const key = content[media]
      ? media
      : content[`${media.split('/')[0]}/*`]
        ? `${media.split('/')[0]}/*`
        : content['*/*']
          ? '*/*'
          : null;
    if (key === null)
      return (
        `content type "${contentType || '(none)'}" is not documented for ${status} (documented: ` +
        `${Object.keys(content).join(', ')})`
      );

    const cacheKey = `${method} ${template} ${status} ${key}`;
    let validate = this.bodyChecks.get(cacheKey);
    if (validate === undefined) {
      const schema = content[key]!.schema;
      // Only a documented JSON media type has a JSON schema; bytes under a range (`*/*`) may be JSON too.
      validate = schema && JSON_MEDIA.test(key) ? this.compile(schema) : null;
      this.bodyChecks.set(cacheKey, validate);
    }
    if (validate === null) return null;
    let value: unknown;
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      return `the ${media} body is not JSON`;
    }
    if (validate(value)) return null;
    const errors = (validate.errors ?? [])
      .slice(0, 3)
      .map(
        (e) =>
          `${e.instancePath || '(body)'} ${e.message ?? 'is invalid'}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
      );
    return `the body does not match the documented schema: ${errors.join('; ')}`;
  }

  private compile(schema: Record<string, unknown>): ValidateFunction {
    // `components` beside the schema, so `#/components/...` references resolve as they do in the document.
    const withComponents = { ...schema, components: this.document().components ?? {} };
    const text = JSON.stringify(withComponents);
    let validate = compiled.get(text);
    if (!validate) {
      validate = ajv.compile(withComponents);
      compiled.set(text, validate);
    }
    return validate;
  }
}

type HeaderArgs = [unknown?, unknown?, unknown?];

/** The content type in writeHead's headers argument (an object or a flat [name, value, ...] list). */
function contentTypeIn(headers: unknown): string | undefined {
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2)
      if (String(headers[i]).toLowerCase() === 'content-type') return String(headers[i + 1]);
    return undefined;
  }
  if (headers && typeof headers === 'object') {
    for (const [name, value] of Object.entries(headers))
      if (name.toLowerCase() === 'content-type' && value !== undefined) return String(value);
  }
  return undefined;
}

/** Calls `done` once the response has ended, with its status, content type and every byte written. */
function captureAnswer(res: ServerResponse, done: (status: number, contentType: string, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let headContentType: string | undefined;
  let ended = false;
  // A response's own end() may call this.write() (light-my-request's does): count those bytes once.
  let depth = 0;
  const keep = (chunk: unknown, encoding: unknown): void => {
    if (depth > 0) return;
    if (typeof chunk === 'string')
      chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  };
  const writeHead = res.writeHead;
  const write = res.write;
  const end = res.end;
  res.writeHead = function (this: ServerResponse, ...args: HeaderArgs) {
    headContentType = contentTypeIn(typeof args[1] === 'string' ? args[2] : args[1]) ?? headContentType;
    return (writeHead as (...a: HeaderArgs) => ServerResponse).apply(this, args);
  } as typeof res.writeHead;
  res.write = function (this: ServerResponse, ...args: HeaderArgs) {
    keep(args[0], args[1]);
    depth++;
    try {
      return (write as (...a: HeaderArgs) => boolean).apply(this, args);
    } finally {
      depth--;
    }
  } as typeof res.write;
  res.end = function (this: ServerResponse, ...args: HeaderArgs) {
    if (typeof args[0] !== 'function') keep(args[0], args[1]);
    depth++;
    let out: ServerResponse;
    try {
      out = (end as (...a: HeaderArgs) => ServerResponse).apply(this, args);
    } finally {
      depth--;
    }
    if (!ended) {
      ended = true;
      const type = res.getHeader('content-type');
      done(res.statusCode, String(type ?? headContentType ?? ''), Buffer.concat(chunks));
    }
    return out;
  } as typeof res.end;
}

/** Installs the check on a gateway that is being built (BuildOptions.instrument): every route, every answer. */
export function installDriftCheck(app: App): void {
  const checker = new DriftChecker(app);
  app.addHook('onRequest', (req, reply, next) => {
    const route = req.routeOptions.url;
    // HEAD mirrors GET without a body, OPTIONS answers preflights; neither is an operation of the document.
    if (
      route !== undefined &&
      req.method !== 'HEAD' &&
      req.method !== 'OPTIONS' &&
      checker.documents(req.method, route)
    ) {
      captureAnswer(reply.raw, (status, contentType, body) => {
        if (status < 200 || status >= 400) return;
        try {
          const problem = checker.check(req.method, route, status, contentType, body);
          if (problem)
            violations.push(
              `${req.method} ${templateOf(route)} answered ${status} (${contentType || 'no content type'}): ` +
                `${problem}\n  body: ${excerpt(body)}`,
            );
        } catch (err) {
          violations.push(
            `${req.method} ${templateOf(route)} answered ${status}: the drift check failed: ${(err as Error).message}`,
          );
        }
      });
    }
    next();
  });
}
