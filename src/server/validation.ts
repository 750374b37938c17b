// Request validation with two ajv instances: query strings, path parameters and headers arrive as text, so
// they are coerced to the schema's types ("25" → 25); JSON bodies are not, so a null stays null and
// `false` is never accepted as the string "false".
//
// Hostile numbers (docs/security.md): `strictNumbers` refuses NaN and ±Infinity (JSON `1e999` parses to
// Infinity), and every integer a request schema leaves unbounded is bounded here to what a PostgreSQL
// `integer` column holds, so no route, including one added later, can hand a store a number it cannot
// keep. Areas say their bounds with the helpers of schemas.ts; this is the net under them.
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { useFastDateFormats } from './formats.js';
import { INT32_MAX } from './schemas.js';

// ajv-formats is CommonJS: under NodeNext its plugin function is the `default` property of what is imported.
type FormatDefinition = {
  validate: RegExp | ((s: string) => boolean);
  compare?: (a: string, b: string) => number | undefined;
};
const formatsPlugin = (
  addFormatsModule as unknown as { default: ((ajv: Ajv) => Ajv) & { get: (name: string) => FormatDefinition } }
).default;

/** ajv-formats compares date-times with `d1 && d2`, so the epoch (0) compares as unknown and any bound passes. */
function compareInstants(a: string, b: string): number | undefined {
  const x = Date.parse(a);
  const y = Date.parse(b);
  return Number.isFinite(x) && Number.isFinite(y) ? x - y : undefined;
}

/**
 * ajv-formats' formats, with date, time and date-time checked without allocating (formats.ts) and date-times
 * compared as instants. Also used by the AgentSession validator (agents/validate.ts).
 */
export function addFormats(ajv: Ajv): void {
  formatsPlugin(ajv);
  // The same accepted set as ajv-formats' date, time and date-time, checked without allocating (formats.ts).
  useFastDateFormats(ajv, {
    date: formatsPlugin.get('date').compare,
    time: formatsPlugin.get('time').compare,
    'date-time': compareInstants,
  });
}

const COMMON: Options = {
  removeAdditional: false,
  useDefaults: true,
  allErrors: false,
  strict: false,
  strictNumbers: true,
};

/** The bounds an integer gets when its schema says none: a PostgreSQL `integer` column. */
export const DEFAULT_INTEGER_BOUNDS = { minimum: -INT32_MAX - 1, maximum: INT32_MAX } as const;
/** The bounds a number gets when its schema says none (finite is already required). */
export const DEFAULT_NUMBER_BOUNDS = { minimum: -1e15, maximum: 1e15 } as const;

function typesOf(schema: Record<string, unknown>): string[] {
  const t = schema.type;
  return typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * A copy of a JSON schema in which every integer and number without a bound gets the default one. Only
 * missing bounds are added; a schema's own (narrower or wider) bounds stand.
 */
export function withNumberBounds<T>(schema: T): T {
  const seen = new Map<object, unknown>();
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const done = seen.get(node);
    if (done) return done;
    const src = node as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    seen.set(node, out);
    for (const [k, v] of Object.entries(src)) {
      // `const`, `enum`, `default` and `examples` hold values, not schemas.
      out[k] = k === 'const' || k === 'enum' || k === 'default' || k === 'examples' ? v : walk(v);
    }
    const types = typesOf(src);
    const bounds = types.includes('integer')
      ? DEFAULT_INTEGER_BOUNDS
      : types.includes('number')
        ? DEFAULT_NUMBER_BOUNDS
        : null;
    if (bounds) {
      if (src.minimum === undefined && src.exclusiveMinimum === undefined) out.minimum = bounds.minimum;
      if (src.maximum === undefined && src.exclusiveMaximum === undefined) out.maximum = bounds.maximum;
    }
    return out;
  };
  return walk(schema) as T;
}

function build(coerceTypes: Options['coerceTypes']): Ajv {
  const ajv = new Ajv({ ...COMMON, coerceTypes });
  addFormats(ajv);
  return ajv;
}

interface Validator {
  (data: unknown): boolean;
  errors?: FastifySchemaValidationError[] | null;
}

/** The first key (or index) of a flat object of coerced text values that became NaN or ±Infinity. */
function nonFinite(data: unknown): string | null {
  if (data === null || typeof data !== 'object') return null;
  for (const [key, value] of Object.entries(data)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'number' && !Number.isFinite(v))) return key;
  }
  return null;
}

/**
 * Text (query, path, headers) is coerced to numbers by ajv: "Infinity" and "1e309" become Infinity, and ajv
 * then compares the text, not the number, with `maximum`, so both would pass. A coerced value that is not
 * finite is refused here.
 */
function finiteText(validate: Validator): Validator {
  const wrapped: Validator = (data) => {
    const ok = validate(data);
    wrapped.errors = validate.errors;
    if (!ok) return false;
    const key = nonFinite(data);
    if (key === null) return true;
    wrapped.errors = [
      {
        instancePath: `/${key}`,
        schemaPath: `#/properties/${key}/type`,
        keyword: 'type',
        params: { type: 'number' },
        message: 'must be a finite number',
      },
    ];
    return false;
  };
  return wrapped;
}

/** The two ajv instances of the request validators: bodies as JSON, text parts (query, params, headers) coerced. */
export interface RequestSchemaCompilers {
  compile(schema: unknown, httpPart: string | undefined): Validator;
}

export function requestSchemaCompilers(): RequestSchemaCompilers {
  let bodies: Ajv | null = null;
  let text: Ajv | null = null;
  return {
    compile(schema, httpPart) {
      const bounded = withNumberBounds(schema) as object;
      if (httpPart === 'body') return (bodies ??= build(false)).compile(bounded) as Validator;
      return finiteText((text ??= build('array')).compile(bounded) as Validator);
    },
  };
}

/**
 * A validator compiled on its first call. Compiling all 88 routes' request schemas at start-up held about
 * 8.5 MB of generated code and ajv state (against an idle-RSS goal of 120 MB), most of it for routes a node
 * may never serve; the first request of a route pays its compilation instead. A schema ajv cannot compile
 * is still caught before release: test/server/schema-compile.test.ts compiles every route's schemas eagerly.
 * Fastify reads the errors of the last call from the function itself.
 */
function compiledOnFirstUse(compile: () => Validator): Validator {
  let validate: Validator | null = null;
  const wrapped: Validator = (data) => {
    validate ??= compile();
    const ok = validate(data);
    wrapped.errors = validate.errors;
    return ok;
  };
  return wrapped;
}

export function requestValidatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  const compilers = requestSchemaCompilers();
  return ({ schema, httpPart }) => compiledOnFirstUse(() => compilers.compile(schema, httpPart));
}
