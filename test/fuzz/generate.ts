// Values for the OpenAPI fuzz test: a valid example of a JSON schema, and the hostile values to put in its
// place. Deterministic: every random choice comes from a seeded generator.

export type Rng = () => number;

/** mulberry32: a small, fast, seeded PRNG (the same seed gives the same run). */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(r: Rng, list: readonly T[]): T {
  return list[Math.floor(r() * list.length)]!;
}

/** Up to n items of the list, in a seeded order. */
export function sample<T>(r: Rng, list: readonly T[], n: number): T[] {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Schema = Record<string, any>;

const PATTERN_CANDIDATES = [
  'acme/api',
  'a',
  'abc',
  'main',
  '1.0.0',
  'feat/x',
  'a'.repeat(64),
  'a'.repeat(40),
  'image/png',
  'text/plain',
  'https://example.com/a',
  '2026-10-01',
  '2026-10-01T00:00:00Z',
  'ci',
  'x-1',
  'A1',
  'sk_outerlayer_x',
  'github',
];

function stringExample(s: Schema, name: string): string {
  if (s.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
  if (s.format === 'date-time') return '2026-10-01T00:00:00.000Z';
  if (s.format === 'date') return '2026-10-01';
  if (s.format === 'uri' || s.format === 'url' || /url|link/i.test(name)) return 'https://example.com/x';
  if (s.format === 'email' || /email/i.test(name)) return 'fuzz@example.com';
  if (/^repo(sitory)?$/i.test(name)) return 'acme/api';
  if (typeof s.pattern === 'string') {
    let re: RegExp | null = null;
    try {
      re = new RegExp(s.pattern, 'u');
    } catch {
      re = null;
    }
    const hit = re
      ? PATTERN_CANDIDATES.find((c) => re.test(c) && (s.maxLength === undefined || c.length <= s.maxLength))
      : undefined;
    if (hit) return hit;
  }
  const base = name ? name.replace(/[^A-Za-z0-9]/g, '').toLowerCase() || 'x' : 'x';
  const min = typeof s.minLength === 'number' ? s.minLength : 1;
  const max = typeof s.maxLength === 'number' ? s.maxLength : 64;
  let out = base.slice(0, max);
  while (out.length < min) out += 'x';
  return out;
}

/** A value the schema accepts, as far as a generic walk can tell (patterns beyond a few stay best effort). */
export function example(s: Schema | undefined, name = ''): unknown {
  if (!s || typeof s !== 'object') return 'x';
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if ('default' in s && s.default !== undefined) return s.default;
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[key])) {
      const options = (s[key] as Schema[]).filter((o) => o.type !== 'null');
      return example(options[0] ?? s[key][0], name);
    }
  }
  if (Array.isArray(s.allOf)) return example(Object.assign({}, ...s.allOf), name);
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  switch (type) {
    case 'string':
      return stringExample(s, name);
    case 'integer':
    case 'number': {
      const min = typeof s.minimum === 'number' ? s.minimum : 1;
      const max = typeof s.maximum === 'number' ? s.maximum : min + 10;
      return Math.min(Math.max(min, 1), max);
    }
    case 'boolean':
      return true;
    case 'array': {
      const n = typeof s.minItems === 'number' ? Math.max(1, s.minItems) : 1;
      return Array.from({ length: n }, () => example(s.items, name));
    }
    case 'object':
    case undefined: {
      if (!s.properties) return type === 'object' ? {} : 'x';
      const out: Record<string, unknown> = {};
      for (const key of (s.required as string[] | undefined) ?? []) out[key] = example(s.properties[key], key);
      return out;
    }
    default:
      return 'x';
  }
}

/** Every path (list of keys) to a leaf of a JSON value, to depth 6. */
export function leafPaths(value: unknown, prefix: (string | number)[] = [], depth = 0): (string | number)[][] {
  if (depth > 6) return [prefix];
  if (Array.isArray(value)) {
    if (value.length === 0) return [prefix];
    return [prefix, ...leafPaths(value[0], [...prefix, 0], depth + 1)];
  }
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 0) return [prefix];
    return [
      prefix,
      ...keys.flatMap((k) => leafPaths((value as Record<string, unknown>)[k], [...prefix, k], depth + 1)),
    ];
  }
  return [prefix];
}

const MARK = '\u0001FUZZ\u0001';

/** The JSON text of `value` with the node at `path` replaced by a raw JSON fragment (e.g. `1e999`), or removed. */
export function withRaw(value: unknown, path: (string | number)[], raw: string | undefined): string {
  if (path.length === 0) return raw ?? '';
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (raw === undefined) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
    return JSON.stringify(copy);
  }
  node[last] = MARK;
  return JSON.stringify(copy).replace(JSON.stringify(MARK), raw);
}

/** Raw JSON fragments to put where a field was, by kind: numbers that do not fit, NUL, other hostile values. */
export const HOSTILE_NUMBERS: readonly string[] = [
  '1e999',
  '-1e999',
  '1e308',
  '2147483648',
  '-2147483649',
  '9007199254740993',
  '123456789012345678901234567890',
  '-1',
  '0.5',
  '0',
];
export const HOSTILE_NUL: readonly string[] = ['"\\u0000"', '"a\\u0000b"', '["\\u0000"]', '{"k\\u0000":"v"}'];
export const HOSTILE_OTHER: readonly string[] = [
  'null',
  'true',
  '[]',
  '{}',
  '""',
  '[[[[[[[[["deep"]]]]]]]]]',
  '"\\u0001\\u0008\\u001b\\u007f"',
  '"\\ud800"',
  '"\\u202e\\ud83d\\udca5"',
  JSON.stringify('x'.repeat(70_000)),
  '"%ZZ"',
  '"\' OR 1=1 --"',
  '"../../etc/passwd"',
  '"0000-01-01T00:00:00Z"',
  '"9999-12-31T23:59:59Z"',
  '"+275760-09-13T00:00:00Z"',
  '"2026-02-30"',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
];
export const HOSTILE_JSON: readonly string[] = [...HOSTILE_NUMBERS, ...HOSTILE_NUL, ...HOSTILE_OTHER];

/** Whole bodies that are not what any route expects. */
export const HOSTILE_BODIES: readonly string[] = [
  'not json',
  '{"a":',
  '[]',
  'null',
  '"string"',
  '1e999',
  '{}',
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  `{"a":"${'\\u0000'.repeat(3)}"}`,
];

/** Query parameter values (already percent-encoded as they go on the wire), by kind. */
export const QUERY_NUL: readonly string[] = ['%00', 'a%00b', '%00%00x'];
export const QUERY_NUMBERS: readonly string[] = [
  'Infinity',
  '-Infinity',
  'NaN',
  '1e309',
  '1e999',
  '-1',
  '0',
  '2147483648',
  '99999999999999999999',
  '0.5',
];
export const QUERY_OTHER: readonly string[] = [
  '%ZZ',
  '%',
  'x'.repeat(8000),
  '%01%1F%7F',
  '0000-01-01',
  '9999-12-31',
  '0000-01-01T00:00:00Z',
  '%2B275760-09-13T00:00:00Z',
  '2026-02-30',
  'true',
  '',
  '%E2%80%AE',
  '%F0%9F%92%A5',
  '%C0%AF',
  '%FF',
  '%27%20OR%201%3D1%20--',
  '%22',
  '%5C',
  // cursors: not base64, base64 of JSON we did not issue, base64 of bytes
  'abc',
  'eyJ4IjoxfQ',
  'eyJpZCI6IjEiLCJ0cyI6MWU5OTl9',
  '____',
  '!!!',
];
export const HOSTILE_QUERY: readonly string[] = [...QUERY_NUL, ...QUERY_NUMBERS, ...QUERY_OTHER];

/** Path parameter values (percent-encoded). */
export const HOSTILE_PATH: readonly string[] = [
  '%ZZ',
  '%00',
  'a%00b',
  'x'.repeat(401),
  'x'.repeat(400),
  'x'.repeat(101),
  'Infinity',
  '-1',
  '0',
  '2147483648',
  '1e999',
  '..',
  '%2e%2e',
  '%2F',
  '%E2%80%AE',
  '%FF',
  '%C0%AF',
  '11111111-1111-4111-8111-111111111111',
  'null',
  '%20',
  '%01',
];

/** Headers a client may send wrong. */
export const HOSTILE_HEADERS: readonly Record<string, string>[] = [
  { 'x-outerlayer-app-id': 'not-a-uuid' },
  { 'x-outerlayer-app-id': '11111111-1111-4111-8111-111111111111' },
  { 'x-outerlayer-app-id': 'a\u0000' },
  { 'x-outerlayer-runner-version': 'x.y.z' },
  { 'x-outerlayer-runner-version': '99999999999999999999.0.0' },
  { 'x-request-id': 'x'.repeat(500) },
  { range: 'bytes=999999999999999999999-' },
  { range: 'bytes=5-1' },
  { 'content-type': 'text/plain' },
  { 'content-type': 'application/json; charset=latin1' },
];
