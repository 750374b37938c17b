// Schema pieces shared by areas: the success envelope, common field shapes, and the bounds every number,
// string and date of a request must keep (docs/security.md). Areas build their request schemas from these
// helpers so a bound is said once: an integer that fits its column, a date the answer can express.
import {
  Type,
  type Static,
  type TNumberOptions,
  type TStringOptions,
  type TLiteral,
  type TSchema,
  type TSchemaOptions,
  type TUnion,
  type TUnsafe,
} from 'typebox';

type IntegerOptions = TNumberOptions;
type NumberOptions = TNumberOptions;
type StringOptions = TStringOptions & { formatMinimum?: string; formatMaximum?: string };

/** `{ data: T }`, the envelope of every success body. */
export const Data = <T extends TSchema>(schema: T) => Type.Object({ data: schema });

/**
 * A reference to a shared schema: one an area's schema.ts names with `$id` and lists in its `Area` entry,
 * which app.ts registers once (`addSchema`). On the wire and in the OpenAPI document it is `{ $ref: id }`
 * (the document lists the schema once, under components.schemas); to TypeScript it is the schema it names,
 * so a handler's answer is still checked against it.
 */
export function Ref<T extends TSchema>(schema: T): TUnsafe<Static<T>> {
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id !== 'string') throw new Error('Ref() needs a schema with an $id (declared in an area schema.ts)');
  return Type.Unsafe<Static<T>>(Type.Ref(id));
}

export const Uuid = Type.String({ format: 'uuid' });
export const Slug = Type.String({ minLength: 1, maxLength: 63, pattern: '^[A-Za-z0-9][A-Za-z0-9_-]*$' });
export const DateTime = Type.String({ format: 'date-time' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/** One of these strings: `anyOf` their `const`s. The cast gives back the tuple type that `map` loses. */
export const Literals = <const T extends readonly string[]>(values: T, options?: TSchemaOptions) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as unknown as TUnion<{ -readonly [K in keyof T]: TLiteral<T[K]> }>;

// ---------------------------------------------------------------------------------------------------------
// Numbers. JSON `1e999` parses to Infinity and a 30-digit literal to a float beyond 2^53; the validator
// refuses non-finite numbers (ajv strictNumbers), and every integer of a request is bounded to its column.

/** Largest value of a PostgreSQL `integer` (and what a 32-bit column holds). */
export const INT32_MAX = 2_147_483_647;
/** Largest integer a JavaScript number (and so a JSON body) carries exactly; `bigint` columns stop here. */
export const INT53_MAX = Number.MAX_SAFE_INTEGER;

/** An integer stored in an `integer` column (PostgreSQL int4): 0..2^31-1 unless narrowed. */
export const Int32 = (opts: IntegerOptions = {}) => Type.Integer({ minimum: 0, maximum: INT32_MAX, ...opts });
/** An integer stored in a `bigint` column: 0..2^53-1 unless narrowed (beyond 2^53 JSON numbers lose digits). */
export const Int53 = (opts: IntegerOptions = {}) => Type.Integer({ minimum: 0, maximum: INT53_MAX, ...opts });
/** A pull request (or issue) number: 1..2^31-1, the range of every column that holds one. */
export const PrNumber = (opts: IntegerOptions = {}) => Int32({ minimum: 1, ...opts });
/** A finite number (a price, a rate): ajv refuses NaN and ±Infinity; this also caps its size. */
export const Finite = (opts: NumberOptions = {}) => Type.Number({ minimum: -1e15, maximum: 1e15, ...opts });

/** `limit` of a list: 1..max. */
export const Limit = (max: number, def?: number, opts: IntegerOptions = {}) =>
  Type.Integer({ minimum: 1, maximum: max, ...(def !== undefined ? { default: def } : {}), ...opts });
/** `offset` of a list: 0..10000 (deeper pages use filters). */
export const Offset = (opts: IntegerOptions = {}) => Type.Integer({ minimum: 0, maximum: 10_000, ...opts });
/** The query of a list paged by offset: `limit` 1..100 (default 50) and `offset`. */
export const OffsetPageQuery = Type.Object(
  {
    limit: Type.Optional(Limit(100, undefined, { description: 'default 50' })),
    offset: Type.Optional(Offset({ description: 'default 0' })),
  },
  { additionalProperties: false },
);
/** `pagination` of a list paged by offset. */
export const OffsetPagination = Type.Object({ total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() });
/** The answer of an offset-paged list: `{ data: [item...], pagination }`. */
export const OffsetPage = <T extends TSchema>(item: T) =>
  Type.Object({ data: Type.Array(item), pagination: OffsetPagination });
/** `page` of a paged list: 1..10000. */
export const Page = (opts: IntegerOptions = {}) => Type.Integer({ minimum: 1, maximum: 10_000, ...opts });

// ---------------------------------------------------------------------------------------------------------
// Dates. Answers carry RFC 3339 date-times with four-digit years; a date query must keep every instant the
// answer derives from it (a window's end, a prior window) inside what that format can say. Nothing the
// gateway records predates the Unix epoch.

export const EARLIEST_INSTANT = '1970-01-01T00:00:00Z';
export const LATEST_INSTANT = '9999-12-31T23:59:59Z';
export const EARLIEST_INSTANT_MS = Date.parse(EARLIEST_INSTANT);
export const LATEST_INSTANT_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** Whether an instant (Unix ms) is one a date query may name: 1970-01-01 .. 9999-12-31 (UTC), inclusive. */
export function instantInRange(ms: number): boolean {
  return Number.isFinite(ms) && ms >= EARLIEST_INSTANT_MS && ms <= LATEST_INSTANT_MS;
}
export const INSTANT_RANGE_MESSAGE = 'must be between 1970-01-01 and 9999-12-31 (UTC)';

/** A date-time query parameter, bounded to what an answer can express. */
export const DateTimeQuery = (opts: StringOptions = {}) =>
  Type.String({
    format: 'date-time',
    formatMinimum: EARLIEST_INSTANT,
    formatMaximum: LATEST_INSTANT,
    maxLength: 40,
    ...opts,
  });

// ---------------------------------------------------------------------------------------------------------
// Strings. A NUL (U+0000) is refused everywhere by one hook (src/server/hostile-input.ts): PostgreSQL cannot
// store it in text and SQLite's FTS stops at it, so both stores answer alike. Bound every free-text field.

/** Free text of at most `max` characters (default 1..max). */
export const Text = (max: number, opts: StringOptions = {}) => Type.String({ maxLength: max, ...opts });

/** The success answer of a route that answers 204 with no body (documented in the OpenAPI document). */
export const NoContent = Type.Null({ description: 'No content' });

// ---------------------------------------------------------------------------------------------------------
// Answers that are not JSON. These are plain JSON Schema / OpenAPI objects, not TypeBox schemas: they
// document the answer in the OpenAPI document and type the reply as `unknown`. Declaring them costs nothing
// at run time: Fastify runs its response serializer only for payloads that are neither a string, a
// Buffer nor a stream, and these routes send only those (or nothing, or hijack the reply).

type HeaderDocs = Record<string, { type: 'string' | 'integer'; description: string }>;

/**
 * A success answer whose body is raw bytes of one of `mediaTypes` (the range of every type: whatever the bytes were
 * stored as).
 */
export const Bytes = (mediaTypes: readonly string[], description: string, headers?: HeaderDocs) => ({
  description,
  content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
  ...(headers ? { headers } : {}),
});

/** A success answer whose body is an HTML page (a string). */
export const HtmlPage = (description: string, headers?: HeaderDocs) => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } } },
  ...(headers ? { headers } : {}),
});

/** A redirect (3xx): no body, the target in `Location`. */
export const Redirect = (description: string, location: string) => ({
  type: 'null',
  description,
  headers: { Location: { type: 'string', description: location } },
});

/** A redirect written by Express (`res.redirect`), which adds a one-line note naming the target as its body. */
export const ExpressRedirect = (description: string, location: string) => {
  const note = {
    schema: {
      type: 'string',
      description: '`Found. Redirecting to <Location>` (text), or the same as a paragraph (HTML).',
    },
  };
  return {
    description,
    content: { 'text/plain': note, 'text/html': note },
    headers: { Location: { type: 'string', description: location } },
  };
};

/** A success answer with a header but no body (202 Accepted, 304 Not Modified). */
export const NoBody = (description: string) => ({ type: 'null', description });
