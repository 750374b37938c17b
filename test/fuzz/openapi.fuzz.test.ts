// Fuzz every operation of our own /v1/openapi.json with hostile input (issue 19), on this store: wrong types,
// missing and extra fields, huge, non-finite and out-of-range numbers, NUL and other control characters, very
// long strings, bad percent-encoding, bad cursors and headers. With a valid credential of a seeded tenant.
// It asserts: no 5xx; every error answer is the envelope with a code from our closed list (the OAuth protocol
// endpoints answer RFC 6749's shape and MCP JSON-RPC's, each checked as such; every MCP tool called with
// hostile arguments answers a result or an invalid-params error, never an internal one); and every list of the tenant
// that read 200 before still reads 200 after. Seeded and bounded: the same requests every run, a few
// thousand in all. Operations that other areas add later are fuzzed as soon as they are in the document.
import crypto from 'node:crypto';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/server/errors.js';
import { createTenant, type Tenant, type TestGateway } from '../helpers/gateway.js';
import { startGatewayWithGitHub, type GatewayWithGitHub } from '../github-double/setup.js';
import { artifactBody } from '../areas/artifacts/helpers.js';
import { canonical, variant, type Doc } from '../areas/sessions/fixtures.js';
import {
  example,
  HOSTILE_BODIES,
  HOSTILE_HEADERS,
  HOSTILE_NUL,
  HOSTILE_NUMBERS,
  HOSTILE_OTHER,
  HOSTILE_PATH,
  leafPaths,
  pick,
  QUERY_NUL,
  QUERY_NUMBERS,
  QUERY_OTHER,
  rng,
  sample,
  withRaw,
  type Rng,
  type Schema,
} from './generate.js';

const SEED = 19;
/**
 * Bounds per operation: body fields fuzzed (a number field gets every number that does not fit, others one;
 * each gets two NULs and four other hostile values, and is left out), query parameters (a NUL, two hostile
 * numbers and four other values each), path parameters (a NUL and six other values each),
 * and requests with hostile headers or whole bodies.
 */
const PER_OPERATION = { fields: 30, header: 5, whole: 6, pathValues: 6 };
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Operation {
  method: (typeof METHODS)[number];
  path: string;
  parameters: { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema?: Schema }[];
  body?: Schema;
}

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  what: string;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

let setup: GatewayWithGitHub;
let gw: TestGateway;
let t: Tenant;
/** A second tenant for the MCP stage: its tool calls count in their own org's observability-read bucket. */
let mcpTenant: Tenant;
let base = '';
const seeds = {
  itemId: '',
  itemKey: '',
  claimedItemId: '',
  artifactId: '',
  sessionId: '',
  commitSha: 'c'.repeat(40),
  blobSha: '',
  victimKeyId: '',
  victimArtifactId: '',
  victimSessionId: '',
  victimAppId: '',
  victimUserId: '',
  victimOrg: '',
};

function b64(s: string): string {
  return Buffer.from(s).toString('base64');
}

async function ok(status: number, what: string, r: { status: number; text: string }) {
  if (r.status !== status) throw new Error(`seed ${what}: ${r.status} ${r.text.slice(0, 300)}`);
}

beforeAll(async () => {
  setup = await startGatewayWithGitHub();
  gw = setup.gw;
  t = await createTenant(gw);
  mcpTenant = await createTenant(gw);
  const as = { token: t.factoryKey, appId: t.appId };
  const item = await gw.call('POST', '/v1/work-items', {
    ...as,
    body: { tracker: 'github', trackerKey: 'acme/api#1', title: 'Seed', repository: 'acme/api' },
  });
  await ok(201, 'item', item);
  seeds.itemId = item.body.data.id;
  await ok(
    200,
    'criteria',
    await gw.call('PUT', `/v1/work-items/${seeds.itemId}/criteria`, {
      ...as,
      body: { criteria: [{ id: 'c1', text: 'works' }] },
    }),
  );
  await ok(
    201,
    'finding',
    await gw.call('POST', `/v1/work-items/${seeds.itemId}/findings`, {
      ...as,
      body: { source: 'ci', about: 'change', severity: 'low', title: 't', path: 'a.ts', line: 3 },
    }),
  );
  await ok(
    201,
    'pr link',
    await gw.call('POST', `/v1/work-items/${seeds.itemId}/pull-requests`, {
      ...as,
      body: { repository: 'acme/api', number: 7 },
    }),
  );
  const claimed = await gw.call('POST', '/v1/work-items', {
    ...as,
    body: { tracker: 'github', trackerKey: 'acme/api#2', title: 'Claimed', repository: 'acme/api' },
  });
  await ok(201, 'claimed item', claimed);
  seeds.claimedItemId = claimed.body.data.id;
  const claim = await gw.call('POST', `/v1/work-items/${seeds.claimedItemId}/claims`, {
    ...as,
    body: { source: 'fuzz', branch: 'fuzz/x', ttlSeconds: 86_400 },
  });
  await ok(201, 'claim', claim);
  seeds.itemKey = claim.body.data.itemKey;
  const content = Buffer.from('fuzz artifact bytes');
  const artifact = await gw.call('POST', '/v1/artifacts', { ...as, body: artifactBody(content) });
  await ok(201, 'artifact', artifact);
  seeds.artifactId = artifact.body.data.id;
  seeds.blobSha = crypto.createHash('sha256').update(content).digest('hex');
  const doc = variant(canonical('full'), (d: Doc) => {
    d.id = 'fuzz-session';
    d.title = 'Fuzzed session';
  });
  seeds.sessionId = doc.id as string;
  const sync = await gw.call('POST', '/v1/agents/sync', { ...as, body: { schemaVersion: 1, sessions: [doc] } });
  await ok(200, 'session', sync);
  // Victims of the DELETE routes (issue 42), so the reads of the seeds above still answer after the fuzz.
  const victimArtifact = await gw.call('POST', '/v1/artifacts', {
    ...as,
    body: artifactBody(Buffer.from('fuzz victim artifact')),
  });
  await ok(201, 'victim artifact', victimArtifact);
  seeds.victimArtifactId = victimArtifact.body.data.id;
  const victimDoc = variant(canonical('full'), (d: Doc) => {
    d.id = 'fuzz-victim-session';
  });
  seeds.victimSessionId = victimDoc.id as string;
  await ok(
    200,
    'victim session',
    await gw.call('POST', '/v1/agents/sync', { ...as, body: { schemaVersion: 1, sessions: [victimDoc] } }),
  );
  await ok(
    201,
    'context',
    await gw.call('POST', '/v1/context/sync', {
      ...as,
      body: {
        commitSha: seeds.commitSha,
        branch: 'main',
        files: [{ path: '.outerlayer/rules.md', content: b64('# rules\n') }],
      },
    }),
  );
  const emit = {
    schemaVersion: 1,
    emit: {
      clientEmitId: 'fuzz-1',
      name: 'unit',
      result: 'pass',
      link: 'https://ci.example.com/1',
      emittedAt: '2026-10-01T00:00:00Z',
      prNumber: 7,
      repository: 'acme/api',
    },
  };
  await ok(201, 'emitted result', await gw.call('POST', '/v1/emitted-results', { ...as, body: emit }));
  // Victims: what the fuzz may delete or change without touching the credentials it uses.
  const victimKey = await gw.call('POST', '/v1/api-keys', {
    token: t.loginToken,
    appId: t.appId,
    body: { name: 'victim', preset: 'ingest' },
  });
  await ok(201, 'victim key', victimKey);
  seeds.victimKeyId = victimKey.body.data.id;
  const victimApp = await gw.call('POST', `/v1/admin/orgs/${t.orgName}/apps`, {
    token: gw.adminToken,
    body: { name: 'victim' },
  });
  await ok(201, 'victim app', victimApp);
  seeds.victimAppId = victimApp.body.data.id;
  const user = await gw.call('POST', '/v1/admin/users', {
    token: gw.adminToken,
    body: { email: 'victim@example.com', name: 'Victim' },
  });
  await ok(201, 'victim user', user);
  seeds.victimUserId = user.body.data.id;
  await ok(
    201,
    'victim member',
    await gw.call('POST', `/v1/admin/orgs/${t.orgName}/members`, {
      token: gw.adminToken,
      body: { userId: seeds.victimUserId, role: 'write' },
    }),
  );
  seeds.victimOrg = `victim-${crypto.randomBytes(3).toString('hex')}`;
  await ok(
    201,
    'victim org',
    await gw.call('POST', '/v1/admin/orgs', {
      token: gw.adminToken,
      body: { name: seeds.victimOrg, plan: 'enterprise' },
    }),
  );
  await gw.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(gw.app.server.address() as net.AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await setup?.close();
});

/** The seeded value a path parameter takes, by route. */
function pathValue(path: string, name: string, method: string): string {
  if (method === 'delete' && path === '/v1/sessions/{traceId}') return seeds.victimSessionId;
  if (method === 'delete' && path === '/v1/artifacts/{id}') return seeds.victimArtifactId;
  // The claimed item has no evidence: the seeded item's artifacts stay readable for the reads after the fuzz.
  if (method === 'delete' && path === '/v1/work-items/{id}/artifacts') return seeds.claimedItemId;
  if (name === 'orgName') return path.startsWith('/v1/admin/') ? seeds.victimOrg : t.orgName;
  if (name === 'userId') return seeds.victimUserId;
  if (name === 'appId')
    return path.startsWith('/v1/apps/{appId}') && !path.endsWith('/mcp') ? seeds.victimAppId : t.appId;
  if (name === 'traceId') return seeds.sessionId;
  if (name === 'sha256') return seeds.blobSha;
  if (name === 'owner') return 'acme';
  if (name === 'repo') return 'api';
  if (name === 'number') return '7';
  if (name === 'workItemId') return seeds.claimedItemId;
  if (name === 'id') {
    if (path.startsWith('/v1/api-keys/')) return seeds.victimKeyId;
    if (path.startsWith('/v1/artifacts/')) return seeds.artifactId;
    return seeds.itemId;
  }
  return 'x';
}

function queryValue(name: string, schema: Schema | undefined): string {
  const known: Record<string, string> = {
    repository: 'acme/api',
    prNumber: '7',
    commitSha: seeds.commitSha,
    path: '.outerlayer/rules.md',
    repoScope: 'all',
    repo: 'acme/api',
  };
  return known[name] ?? String(example(schema, name));
}

/** A body the route should accept (hand-written where a generic example cannot be valid). */
function validBody(op: Operation): unknown {
  const key = `${op.method.toUpperCase()} ${op.path}`;
  const content = Buffer.from(`fuzz ${key}`);
  const bodies: Record<string, unknown> = {
    'POST /v1/work-items': {
      tracker: 'github',
      trackerKey: 'acme/api#fuzz',
      title: 'Fuzz',
      repository: 'acme/api',
      specNumber: 3,
    },
    'PATCH /v1/work-items/{id}': { title: 'Seed' },
    'POST /v1/work-items/{id}/claims': { source: 'fuzz', branch: 'fuzz/y', ttlSeconds: 3600 },
    'PUT /v1/work-items/{id}/criteria': { criteria: [{ id: 'c1', text: 'works', proof: null }] },
    'POST /v1/work-items/{id}/findings': {
      source: 'ci',
      about: 'change',
      severity: 'low',
      title: 't',
      path: 'a.ts',
      line: 3,
      prNumber: 7,
    },
    'POST /v1/work-items/{id}/pull-requests': { repository: 'acme/api', number: 7 },
    'POST /v1/api-keys': { name: 'fuzz', preset: 'ingest' },
    'POST /v1/context/sync': {
      commitSha: seeds.commitSha,
      branch: 'main',
      files: [{ path: '.outerlayer/rules.md', content: b64('# rules\n') }],
    },
    'POST /v1/artifacts': artifactBody(content, {
      session: { sessionId: seeds.sessionId, turnIndex: 1 },
      workItemId: seeds.itemId,
    }),
    'POST /v1/emitted-results': {
      schemaVersion: 1,
      emit: {
        clientEmitId: 'fuzz-2',
        name: 'unit',
        result: 'pass',
        link: 'https://ci.example.com/2',
        emittedAt: '2026-10-01T00:00:00Z',
        prNumber: 7,
        repository: 'acme/api',
      },
    },
    'POST /v1/agents/sync': {
      schemaVersion: 1,
      sessions: [
        variant(canonical('minimal'), (d: Doc) => {
          d.id = 'fuzz-minimal';
        }),
      ],
    },
    'POST /v1/repositories': { repository: 'acme/api', installationId: 1 },
    'PUT /v1/work-items/{workItemId}/pull-request': { title: 'Fuzz', body: 'Evidence.' },
    'POST /v1/mcp': { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    'POST /v1/apps/{appId}/mcp': { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  };
  return key in bodies ? bodies[key] : example(op.body);
}

type Auth = Record<string, string>;

function credentials(): Auth[] {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  return [
    { ...bearer(t.loginToken), 'x-outerlayer-app-id': t.appId },
    { ...bearer(t.factoryKey), 'x-outerlayer-app-id': t.appId },
    bearer(t.managementKey),
    bearer(gw.adminToken),
    bearer(seeds.itemKey),
  ];
}

function urlOf(op: Operation, pathValues: Record<string, string>, query: [string, string][]): string {
  const path = op.path.replace(
    /\{(\w+)\}/g,
    (_, name: string) => pathValues[name] ?? encodeURIComponent(pathValue(op.path, name, op.method)),
  );
  return query.length ? `${path}?${query.map(([k, v]) => `${k}=${v}`).join('&')}` : path;
}

function baselineQuery(op: Operation): [string, string][] {
  return op.parameters
    .filter((p) => p.in === 'query' && p.required)
    .map((p) => [p.name, encodeURIComponent(queryValue(p.name, p.schema))]);
}

const isOauthProtocol = (path: string) => path.startsWith('/oauth/') && path !== '/oauth/consent';
const isMcp = (path: string) => path.endsWith('/mcp') && !path.startsWith('/.well-known');

async function send(req: Sent): Promise<Answer | null> {
  // The OAuth handlers read the request stream themselves: they need a real socket.
  if (isOauthProtocol(req.url.split('?')[0]!)) {
    try {
      const res = await fetch(`${base}${req.url}`, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        redirect: 'manual',
      });
      return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
    } catch {
      return null; // the client refused to send it (e.g. a header value it will not encode)
    }
  }
  try {
    const res = await gw.app.inject({
      method: req.method as 'GET',
      url: req.url,
      headers: req.headers,
      ...(req.body !== undefined ? { payload: req.body } : {}),
    });
    return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), text: res.body };
  } catch {
    return null;
  }
}

const CODES = new Set(Object.keys(ERROR_CODES));

/** Why an answer breaks the contract, or null when it keeps it. */
function verdict(path: string, a: Answer): string | null {
  if (a.status >= 500) return 'a 5xx';
  if (a.status < 400) return null;
  let body: unknown;
  try {
    body = a.text === '' ? undefined : JSON.parse(a.text);
  } catch {
    body = undefined;
  }
  if (path.startsWith('/oauth/') && a.contentType.startsWith('text/html')) return null; // the consent page
  const b = body as { error?: unknown; error_description?: unknown; jsonrpc?: unknown } | undefined;
  if (isOauthProtocol(path)) {
    if (typeof b?.error !== 'string') return 'an OAuth error without `error`';
    if (
      b.error_description !== undefined &&
      (typeof b.error_description !== 'string' || /^\s*[[{]/.test(b.error_description))
    )
      return 'an unreadable error_description';
    return null;
  }
  if (isMcp(path) && b?.jsonrpc === '2.0') {
    const e = (b as { error?: { code?: unknown; message?: unknown } }).error;
    return e && typeof e.code === 'number' && typeof e.message === 'string'
      ? null
      : 'a JSON-RPC answer without an error';
  }
  const e = (b as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (!e || typeof e !== 'object') return 'no error envelope';
  if (typeof e.code !== 'string' || !CODES.has(e.code)) return `code ${String(e.code)} is not in the closed list`;
  if (typeof e.message !== 'string') return 'no message';
  return null;
}

function valueAt(value: unknown, path: (string | number)[]): unknown {
  let node = value;
  for (const key of path) node = (node as Record<string | number, unknown> | undefined)?.[key];
  return node;
}

function hostileRequests(op: Operation, auth: Auth, r: Rng): Sent[] {
  const method = op.method.toUpperCase();
  const query = baselineQuery(op);
  const json = op.body ? validBody(op) : undefined;
  const baseHeaders: Record<string, string> = {
    ...auth,
    ...(isMcp(op.path) ? { accept: 'application/json, text/event-stream' } : {}),
  };
  const withBody = (body: string | undefined, extra: Record<string, string> = {}): Pick<Sent, 'headers' | 'body'> =>
    body === undefined
      ? { headers: { ...baseHeaders, ...extra } }
      : { headers: { 'content-type': 'application/json', ...baseHeaders, ...extra }, body };
  const baselineBody = json === undefined ? undefined : JSON.stringify(json);
  const out: Sent[] = [];

  // Body fields: each leaf replaced by a number that does not fit, a NUL, another hostile value; and removed.
  if (json !== undefined) {
    const url = urlOf(op, {}, query);
    for (const path of sample(
      r,
      leafPaths(json).filter((p) => p.length > 0),
      PER_OPERATION.fields,
    )) {
      const at = path.join('.');
      // A number field gets every number that does not fit; any other field one of them.
      const numbers = typeof valueAt(json, path) === 'number' ? HOSTILE_NUMBERS : [pick(r, HOSTILE_NUMBERS)];
      for (const raw of [...numbers, ...sample(r, HOSTILE_NUL, 2), ...sample(r, HOSTILE_OTHER, 4)]) {
        out.push({ method, url, ...withBody(withRaw(json, path, raw)), what: `body ${at} = ${raw.slice(0, 40)}` });
      }
      out.push({ method, url, ...withBody(withRaw(json, path, undefined)), what: `body ${at} missing` });
    }
    const extra =
      json !== null && typeof json === 'object' && !Array.isArray(json) ? { ...(json as object), fuzzExtra: 1 } : json;
    out.push({ method, url, ...withBody(JSON.stringify(extra)), what: 'body with an extra field' });
    const whole = [
      ...HOSTILE_BODIES.map((b) => ({ method, url, ...withBody(b), what: `body ${b.slice(0, 30)}` })),
      { method, url, ...withBody('x'.repeat(1024 * 1024 + 10)), what: 'body over 1 MiB' },
      { method, url, ...withBody(baselineBody, { 'content-type': 'text/plain' }), what: 'body as text/plain' },
    ];
    out.push(...sample(r, whole, PER_OPERATION.whole));
  }

  // Query parameters: each declared one gets a NUL, a hostile number and another hostile value; plus a
  // repeated one and an undeclared one.
  for (const p of op.parameters.filter((x) => x.in === 'query')) {
    for (const v of [pick(r, QUERY_NUL), ...sample(r, QUERY_NUMBERS, 2), ...sample(r, QUERY_OTHER, 4)]) {
      const q = query.filter(([k]) => k !== p.name);
      q.push([p.name, v]);
      out.push({ method, url: urlOf(op, {}, q), ...withBody(baselineBody), what: `query ${p.name}=${v.slice(0, 30)}` });
    }
    out.push({
      method,
      url: urlOf(op, {}, [...query, [p.name, '1'], [p.name, '2']]),
      ...withBody(baselineBody),
      what: `query ${p.name} twice`,
    });
  }
  out.push({
    method,
    url: urlOf(op, {}, [...query, ['fuzzUnknown', '1']]),
    ...withBody(baselineBody),
    what: 'an unknown query parameter',
  });

  // Path parameters: a NUL and a few other hostile values each.
  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    for (const v of ['a%00b', ...sample(r, HOSTILE_PATH, PER_OPERATION.pathValues)]) {
      out.push({
        method,
        url: urlOf(op, { [p.name]: v }, query),
        ...withBody(baselineBody),
        what: `path ${p.name}=${v.slice(0, 30)}`,
      });
    }
  }

  // Headers.
  out.push(
    ...sample(r, HOSTILE_HEADERS, PER_OPERATION.header).map((h) => ({
      method,
      url: urlOf(op, {}, query),
      ...withBody(baselineBody, h),
      what: `header ${JSON.stringify(h).slice(0, 60)}`,
    })),
  );
  return out;
}

describe('fuzz: every operation of /v1/openapi.json with hostile input', () => {
  it('answers no 5xx, only envelopes with known codes, and leaves every list readable', async () => {
    const doc = (await gw.call('GET', '/v1/openapi.json')).body as { paths: Record<string, Record<string, Schema>> };
    const ops: Operation[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const o = item[method];
        if (!o) continue;
        ops.push({
          method,
          path,
          parameters: o.parameters ?? [],
          body: o.requestBody?.content?.['application/json']?.schema,
        });
      }
    }
    expect(ops.length).toBeGreaterThan(60);

    // The credential of each operation: the first that the baseline request is not refused with (401/403).
    const chosen = new Map<Operation, Auth>();
    const listsBefore: Operation[] = [];
    const failures: string[] = [];
    for (const op of ops) {
      let pickedAuth = credentials()[0]!;
      for (const auth of credentials()) {
        const json = op.body ? validBody(op) : undefined;
        const a = await send({
          method: op.method.toUpperCase(),
          url: urlOf(op, {}, baselineQuery(op)),
          headers: {
            ...auth,
            ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
            ...(isMcp(op.path) ? { accept: 'application/json, text/event-stream' } : {}),
          },
          ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
          what: 'baseline',
        });
        if (!a) continue;
        const bad = verdict(op.path, a);
        if (bad)
          failures.push(
            `${op.method.toUpperCase()} ${op.path} [baseline] → ${a.status} ${bad}: ${a.text.slice(0, 200)}`,
          );
        if (a.status !== 401 && a.status !== 403) {
          pickedAuth = auth;
          if (op.method === 'get' && a.status === 200 && !op.path.startsWith('/oauth/')) listsBefore.push(op);
          break;
        }
      }
      chosen.set(op, pickedAuth);
    }

    const r = rng(SEED);
    let sent = 0;
    const byStatus = new Map<number, number>();
    for (const op of ops) {
      for (const req of hostileRequests(op, chosen.get(op)!, r)) {
        const a = await send(req);
        if (!a) continue;
        sent++;
        byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
        const bad = verdict(op.path, a);
        if (bad)
          failures.push(
            `${req.method} ${req.url.slice(0, 160)} [${req.what}] → ${a.status} ${bad}: ${a.text.slice(0, 200)}`,
          );
      }
    }

    // MCP tools (they call the REST routes with their arguments): each argument of each tool gets hostile
    // values. A refusal is a tool result with isError or a JSON-RPC invalid-params error, never an internal one.
    const mcpHeaders = {
      authorization: `Bearer ${mcpTenant.factoryKey}`,
      'x-outerlayer-app-id': mcpTenant.appId,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const rpc = async (body: unknown) =>
      send({
        method: 'POST',
        url: '/v1/mcp',
        headers: mcpHeaders,
        body: typeof body === 'string' ? body : JSON.stringify(body),
        what: 'mcp',
      });
    const listed = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const tools =
      (JSON.parse(listed?.text ?? '{}') as { result?: { tools?: { name: string; inputSchema?: Schema }[] } }).result
        ?.tools ?? [];
    expect(tools.length).toBeGreaterThan(5);
    let toolCalls = 0;
    for (const tool of tools) {
      const props = Object.keys(tool.inputSchema?.properties ?? {});
      const cases: string[] = [`{}`];
      for (const prop of props) {
        for (const raw of [...sample(r, HOSTILE_NUMBERS, 2), pick(r, HOSTILE_NUL), ...sample(r, HOSTILE_OTHER, 2)])
          cases.push(`{${JSON.stringify(prop)}:${raw}}`);
      }
      cases.push('{"fuzzUnknown":1}');
      for (const args of cases) {
        const a = await rpc(
          `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":${JSON.stringify(tool.name)},"arguments":` +
            `${args}}}`,
        );
        if (!a) continue;
        toolCalls++;
        const body = (() => {
          try {
            return JSON.parse(a.text) as {
              result?: { isError?: boolean; content?: { text?: string }[] };
              error?: { code?: number };
            };
          } catch {
            return {};
          }
        })();
        const text = body.result?.content?.map((c) => c.text ?? '').join(' ') ?? '';
        const bad =
          a.status >= 500
            ? 'a 5xx'
            : body.error
              ? body.error.code === -32603
                ? 'a JSON-RPC internal error'
                : null
              : !body.result
                ? 'neither a result nor an error'
                : /internal_error|http_5\d\d|store_unavailable/.test(text)
                  ? 'the REST twin failed'
                  : null;
        if (bad) failures.push(`MCP ${tool.name}(${args.slice(0, 80)}) → ${a.status} ${bad}: ${a.text.slice(0, 200)}`);
      }
    }

    // Every list that read 200 before reads 200 after: nothing stored broke a read.
    for (const op of listsBefore) {
      const a = await send({
        method: 'GET',
        url: urlOf(op, {}, baselineQuery(op)),
        headers: chosen.get(op)!,
        what: 'list after',
      });
      if (a?.status !== 200)
        failures.push(
          `GET ${op.path} [list after the fuzz] → ${a?.status ?? 'not sent'}: ${a?.text.slice(0, 200) ?? ''}`,
        );
    }

    const summary =
      `${ops.length} operations, ${sent} hostile requests, ${toolCalls} MCP tool calls, ${listsBefore.length} ` +
      `reads checked after; statuses ` +
      `${JSON.stringify(Object.fromEntries([...byStatus].sort((x, y) => x[0] - y[0])))}`;
    console.log(`fuzz: ${summary}`);
    expect(failures.slice(0, 40), `${failures.length} failures; ${summary}`).toEqual([]);
    expect(sent).toBeGreaterThan(2000);
    expect(listsBefore.length).toBeGreaterThan(20);
  }, 240_000);
});
