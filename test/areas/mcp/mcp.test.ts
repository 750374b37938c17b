// POST /v1/mcp and /v1/apps/{appId}/mcp with the MCP SDK's own client over a real socket: every registered
// tool answers exactly what its REST twin answers, denials name the permission, protocol calls use the
// mcp-protocol bucket and tool calls their twin's bucket, and 401s point at the RFC 9728 documents.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TOOL_SPECS } from '../../../src/areas/mcp/tools.js';
import { addMember, createTenant, startGateway, type Tenant, type TestGateway } from '../../helpers/gateway.js';

const FIXTURE = new URL('../../fixtures/outerlayer-session-schema/canonical/full.json', import.meta.url);

let gw: TestGateway;
let base: string;
let a: Tenant;
let b: Tenant;
let traceId: string;
let workItemId: string;

async function connect(path: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'attest-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`), { requestInit: { headers } }));
  return client;
}

const auth = (token: string, appId?: string): Record<string, string> => ({
  Authorization: `Bearer ${token}`,
  ...(appId ? { 'X-Outerlayer-App-Id': appId } : {}),
});

async function mintKey(t: Tenant, body: Record<string, unknown>): Promise<string> {
  const r = await gw.call('POST', '/v1/api-keys', {
    token: t.loginToken,
    appId: t.appId,
    body: { name: `k-${crypto.randomUUID()}`, ...body },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.data.plaintext_key;
}

/** A raw JSON-RPC POST (what an MCP client sends), for status codes and headers the SDK client hides. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
function rpc(
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<Omit<Response, 'json'> & { json(): Promise<Json> }> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

beforeAll(async () => {
  gw = await startGateway();
  await gw.app.listen({ port: 0, host: '127.0.0.1' });
  const address = gw.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  base = `http://127.0.0.1:${address.port}`;
  a = await createTenant(gw);
  b = await createTenant(gw);
  const session = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as { id: string };
  const sync = await gw.call('POST', '/v1/agents/sync', {
    token: a.factoryKey,
    appId: a.appId,
    body: { schemaVersion: 1, sessions: [session] },
  });
  expect(sync.status, sync.text).toBeLessThan(300);
  const list = await gw.call('GET', '/v1/sessions?repoScope=all', { token: a.loginToken, appId: a.appId });
  traceId = list.body.data.sessions[0].traceId;
  const item = await gw.call('POST', '/v1/work-items', {
    token: a.factoryKey,
    appId: a.appId,
    body: { tracker: 'local', trackerKey: 'MCP-1', title: 'Tool test' },
  });
  expect(item.status, item.text).toBe(201);
  workItemId = item.body.data.id;
  await gw.call('POST', '/v1/hosts/heartbeat', {
    token: a.factoryKey,
    appId: a.appId,
    body: { hostId: 'h1', name: 'h1', capacity: 1, running: 0 },
  });
});

afterAll(async () => {
  await gw?.close();
});

/** Arguments each tool is called with, and the REST URL they amount to. */
function cases(): { name: string; args: Record<string, unknown>; rest: string }[] {
  return [
    { name: 'list_sessions', args: { repoScope: 'all', limit: 5 }, rest: '/v1/sessions?repoScope=all&limit=5' },
    { name: 'get_session', args: { traceId }, rest: `/v1/sessions/${traceId}` },
    {
      name: 'get_model_costs',
      args: { from: '2020-01-01', to: '2026-11-01' },
      rest: '/v1/metrics/models?from=2020-01-01&to=2026-11-01',
    },
    { name: 'get_fleet_overview', args: {}, rest: '/v1/metrics/overview' },
    {
      name: 'compare_windows',
      args: { aFrom: '2026-09-01', aTo: '2026-09-30', bFrom: '2026-10-01', bTo: '2026-10-31' },
      rest: '/v1/metrics/compare?aFrom=2026-09-01&aTo=2026-09-30&bFrom=2026-10-01&bTo=2026-10-31',
    },
    {
      name: 'get_breakdown',
      args: { by: 'model', from: '2020-01-01' },
      rest: '/v1/metrics/breakdown?by=model&from=2020-01-01',
    },
    { name: 'get_trends', args: {}, rest: '/v1/metrics/trends' },
    { name: 'get_pr_outcomes', args: {}, rest: '/v1/prs/outcomes' },
    { name: 'get_pr', args: { owner: 'acme', repo: 'api', number: 7 }, rest: '/v1/prs/acme/api/7' },
    { name: 'get_pr_verdict', args: { owner: 'acme', repo: 'api', number: 7 }, rest: '/v1/prs/acme/api/7/verdict' },
    { name: 'list_context_changes', args: {}, rest: '/v1/context/changes' },
    { name: 'get_context_source', args: {}, rest: '/v1/context/source' },
    { name: 'list_work_items', args: {}, rest: '/v1/work-items' },
    { name: 'list_work_item_artifacts', args: { id: workItemId }, rest: `/v1/work-items/${workItemId}/artifacts` },
    { name: 'list_emitted_results', args: {}, rest: '/v1/emitted-results' },
    { name: 'list_hosts', args: {}, rest: '/v1/hosts' },
  ];
}

describe('POST /v1/mcp with the SDK client', () => {
  it('connects, lists every tool whose REST twin exists, with the twin parameters as input schema', async () => {
    const client = await connect('/v1/mcp', auth(a.factoryKey));
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(TOOL_SPECS.map((s) => s.name)); // every twin is served in this build
    const breakdown = tools.find((t) => t.name === 'get_breakdown')!;
    // `by` or its alias `dimension` (issue 15 §6): neither is required by the schema; the route answers 400 without
    // both.
    expect(breakdown.inputSchema.required).toBeUndefined();
    expect(Object.keys(breakdown.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['by', 'dimension']));
    expect(Object.keys(breakdown.inputSchema.properties ?? {}).sort()).toEqual([
      'by',
      'dimension',
      'from',
      'limit',
      'repo',
      'to',
    ]);
    expect(tools.find((t) => t.name === 'get_session')!.inputSchema.required).toEqual(['traceId']);
    expect(client.getServerVersion()?.name).toBe('attest');
    await client.close();
  });

  it('answers every tool exactly as its REST twin (structured content and text), errors included', async () => {
    const client = await connect('/v1/mcp', auth(a.loginToken, a.appId));
    let successes = 0;
    for (const c of cases()) {
      const rest = await gw.call('GET', c.rest, { token: a.loginToken, appId: a.appId });
      const result = await client.callTool({ name: c.name, arguments: c.args });
      if (rest.status === 200) {
        successes++;
        expect(result.isError, `${c.name}: ${JSON.stringify(result.content)}`).toBeFalsy();
        expect(result.structuredContent, c.name).toEqual(rest.body);
        expect(JSON.parse((result.content as { text: string }[])[0]!.text), c.name).toEqual(rest.body);
      } else {
        expect(result.isError, c.name).toBe(true);
        expect((result.structuredContent as { error: { code: string } }).error.code, c.name).toBe(rest.body.error.code);
        expect((result.content as { text: string }[])[0]!.text, c.name).toContain(rest.body.error.code);
      }
    }
    expect(successes).toBeGreaterThanOrEqual(12);
    // The data is really there: the seeded session, work item and host come back through the tools.
    const sessions = await client.callTool({ name: 'list_sessions', arguments: { repoScope: 'all' } });
    expect(
      (sessions.structuredContent as { data: { sessions: { traceId: string }[] } }).data.sessions.map((s) => s.traceId),
    ).toContain(traceId);
    await client.close();
  });

  it('passes validation to the REST route: a bad argument is an error result with invalid_query_params', async () => {
    const client = await connect('/v1/mcp', auth(a.factoryKey));
    const bad = await client.callTool({ name: 'get_breakdown', arguments: { by: 'colour' } });
    expect(bad.isError).toBe(true);
    expect((bad.structuredContent as { error: { code: string } }).error.code).toBe('invalid_query_params');
    const missing = await client.callTool({ name: 'get_breakdown', arguments: {} });
    expect((missing.structuredContent as { error: { code: string } }).error.code).toBe('invalid_query_params');
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });

  it('a denied call is an error result naming the missing permission', async () => {
    const key = await mintKey(a, { permissions: ['work.read'] });
    const client = await connect('/v1/mcp', auth(key));
    const denied = await client.callTool({ name: 'get_fleet_overview', arguments: {} });
    expect(denied.isError).toBe(true);
    expect((denied.structuredContent as { error: { required_permission: string } }).error.required_permission).toBe(
      'metrics.read',
    );
    expect((denied.content as { text: string }[])[0]!.text).toContain('metrics.read');
    const allowed = await client.callTool({ name: 'list_work_items', arguments: {} });
    expect(allowed.isError).toBeFalsy();
    await client.close();
  });

  it('list_work_items lists withdrawn items with withdrawn: true, as GET /v1/work-items?withdrawn=true', async () => {
    const made = await gw.call('POST', '/v1/work-items', {
      token: a.factoryKey,
      appId: a.appId,
      body: { tracker: 'local', trackerKey: 'MCP-GONE', title: 'Withdrawn one' },
    });
    expect(made.status, made.text).toBe(201);
    const gone = await gw.call('POST', `/v1/work-items/${made.body.data.id}/withdraw`, {
      token: a.factoryKey,
      appId: a.appId,
      body: {},
    });
    expect(gone.status, gone.text).toBe(200);
    const client = await connect('/v1/mcp', auth(a.factoryKey));
    const { tools } = await client.listTools();
    const schema = tools.find((t) => t.name === 'list_work_items')!.inputSchema;
    expect(schema.properties?.withdrawn).toMatchObject({ type: 'boolean' });
    type Entries = { data: { trackerKey: string }[] };
    const keys = (r: Record<string, unknown>) => (r.structuredContent as Entries).data.map((e) => e.trackerKey);

    const withdrawn = await client.callTool({ name: 'list_work_items', arguments: { withdrawn: true } });
    expect(withdrawn.isError).toBeFalsy();
    expect(keys(withdrawn)).toEqual(['MCP-GONE']);
    const rest = await gw.call('GET', '/v1/work-items?withdrawn=true', { token: a.factoryKey, appId: a.appId });
    expect(withdrawn.structuredContent).toEqual(rest.body);
    // The REST spellings still work, and false (or leaving it out) is the live list without the withdrawn item.
    expect(keys(await client.callTool({ name: 'list_work_items', arguments: { withdrawn: '1' } }))).toEqual([
      'MCP-GONE',
    ]);
    expect(keys(await client.callTool({ name: 'list_work_items', arguments: { withdrawn: false } }))).toEqual([
      'MCP-1',
    ]);
    expect(keys(await client.callTool({ name: 'list_work_items', arguments: {} }))).toEqual(['MCP-1']);
    const bad = await client.callTool({ name: 'list_work_items', arguments: { withdrawn: 'maybe' } });
    expect((bad.structuredContent as { error: { code: string } }).error.code).toBe('invalid_query_params');
    await client.close();

    // Another factory sees none of A's withdrawn items.
    const other = await connect('/v1/mcp', auth(b.factoryKey));
    expect(keys(await other.callTool({ name: 'list_work_items', arguments: { withdrawn: true } }))).toEqual([]);
    await other.close();
  });

  it("sees only its own factory: another factory's key reads nothing of A", async () => {
    const client = await connect('/v1/mcp', auth(b.factoryKey));
    const sessions = await client.callTool({ name: 'list_sessions', arguments: { repoScope: 'all' } });
    expect((sessions.structuredContent as { data: { total: number } }).data.total).toBe(0);
    const one = await client.callTool({ name: 'get_session', arguments: { traceId } });
    expect((one.structuredContent as { error: { code: string } }).error.code).toBe('session_not_found');
    await client.close();
  });

  it('serves the tool guide as a resource', async () => {
    const client = await connect('/v1/mcp', auth(a.factoryKey));
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['attest://guide/tools']);
    const read = await client.readResource({ uri: 'attest://guide/tools' });
    const text = (read.contents[0] as { text: string }).text;
    for (const s of TOOL_SPECS) expect(text).toContain(s.name);
    expect(text).toContain('metrics.read');
    await expect(client.readResource({ uri: 'attest://nope' })).rejects.toThrow(/Unknown resource/);
    await client.close();
  });
});

describe('credentials and factory on the MCP routes', () => {
  it('a factory key may leave out the factory header; a login token may not (400 app_id_required)', async () => {
    const key = await rpc('/v1/mcp', auth(a.factoryKey), INIT);
    expect(key.status).toBe(200);
    expect((await key.json()).result.serverInfo.name).toBe('attest');
    const login = await rpc('/v1/mcp', auth(a.loginToken), INIT);
    expect(login.status).toBe(400);
    expect((await login.json()).error.code).toBe('app_id_required');
  });

  it('a factory key naming another factory in the header answers 401 with WWW-Authenticate', async () => {
    const res = await rpc('/v1/mcp', auth(a.factoryKey, b.appId), INIT);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="http://attest.test/.well-known/oauth-protected-resource/v1/mcp", ` +
        `error="invalid_token"`,
    );
  });

  it('no credential: 401 with WWW-Authenticate naming the /v1/mcp metadata document', async () => {
    const res = await rpc('/v1/mcp', {}, INIT);
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('unauthorized');
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer resource_metadata="http://attest.test/.well-known/oauth-protected-resource/v1/mcp"',
    );
  });

  it('/v1/apps/{appId}/mcp takes a login token with the factory from the path', async () => {
    const client = await connect(`/v1/apps/${a.appId}/mcp`, auth(a.loginToken));
    const r = await client.callTool({ name: 'list_work_items', arguments: {} });
    expect((r.structuredContent as { data: { id: string }[] }).data.map((w) => w.id)).toContain(workItemId);
    await client.close();
  });

  it('/v1/apps/{appId}/mcp refuses an API key with 401 and WWW-Authenticate for that factory', async () => {
    const res = await rpc(`/v1/apps/${a.appId}/mcp`, auth(a.factoryKey), INIT);
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('unauthorized');
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="http://attest.test/.well-known/oauth-protected-resource/v1/apps/${a.appId}/mcp", ` +
        `error="invalid_token"`,
    );
    const none = await rpc(`/v1/apps/${a.appId.toUpperCase()}/mcp`, {}, INIT);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="http://attest.test/.well-known/oauth-protected-resource/v1/apps/${a.appId}/mcp"`,
    );
  });

  it("/v1/apps/{appId}/mcp with a login token of someone outside that factory's org answers 401", async () => {
    const res = await rpc(`/v1/apps/${b.appId}/mcp`, auth(a.loginToken), INIT);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(`/v1/apps/${b.appId}/mcp`);
  });

  it('a malformed app id in the path is 400 invalid_path_params (no challenge)', async () => {
    const res = await rpc('/v1/apps/not-a-uuid/mcp', auth(a.loginToken), INIT);
    expect(res.status).toBe(400);
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it('GET and DELETE answer 405 with Allow: POST (stateless server, no SSE stream)', async () => {
    for (const method of ['GET', 'DELETE']) {
      for (const path of ['/v1/mcp', `/v1/apps/${a.appId}/mcp`]) {
        const res = await fetch(`${base}${path}`, { method, headers: auth(a.factoryKey) });
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')).toBe('POST');
        expect(((await res.json()) as Json).error.code).toBe('method_not_allowed');
      }
    }
  });

  it('a read-role member sees metrics through the tools but not what the role lacks', async () => {
    const reader = await addMember(gw, a, 'read');
    const client = await connect(`/v1/apps/${a.appId}/mcp`, auth(reader.loginToken));
    const ok = await client.callTool({ name: 'get_trends', arguments: {} });
    expect(ok.isError).toBeFalsy();
    await client.close();
  });
});

describe('OpenAPI', () => {
  it('documents the MCP and OAuth routes (POST only for MCP)', async () => {
    const doc = (await gw.call('GET', '/v1/openapi.json')).body;
    expect(Object.keys(doc.paths['/v1/mcp'])).toEqual(['post']);
    expect(Object.keys(doc.paths['/v1/apps/{appId}/mcp'])).toEqual(['post']);
    for (const path of [
      '/oauth/token',
      '/oauth/register',
      '/oauth/revoke',
      '/oauth/consent',
      '/.well-known/oauth-authorization-server',
    ]) {
      expect(doc.paths[path], path).toBeTruthy();
    }
  });
});

describe('rate limits', () => {
  it('protocol calls consume mcp-protocol; tool calls consume their REST twin bucket', async () => {
    const t = await createTenant(gw, { plan: 'free' });
    // mcp-protocol: 300 a minute on the free plan. initialize is one call; the header says what is left.
    const first = await rpc('/v1/mcp', auth(t.factoryKey), INIT);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('300');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('299');
    const list = await rpc('/v1/mcp', auth(t.factoryKey), { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(list.headers.get('x-ratelimit-remaining')).toBe('298');
    // A notification is not a call.
    const note = await rpc('/v1/mcp', auth(t.factoryKey), { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(note.status).toBe(202);
    // A tool call leaves mcp-protocol alone and counts in observability-read (100 a minute, free).
    const call = await rpc('/v1/mcp', auth(t.factoryKey), {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'get_trends', arguments: {} },
    });
    expect(call.status).toBe(200);
    expect(call.headers.get('x-ratelimit-remaining')).toBeNull();
    const rest = await gw.call('GET', '/v1/metrics/trends', { token: t.factoryKey, appId: t.appId });
    expect(rest.headers['x-ratelimit-limit']).toBe('100');
    expect(rest.headers['x-ratelimit-remaining']).toBe('98'); // the tool call took one
    const again = await rpc('/v1/mcp', auth(t.factoryKey), { jsonrpc: '2.0', id: 4, method: 'ping' });
    expect(again.headers.get('x-ratelimit-remaining')).toBe('297');
  });

  it('an exhausted twin bucket makes the tool call an error result with rate_limited', async () => {
    const t = await createTenant(gw, { plan: 'free' });
    for (let i = 0; i < 30; i++)
      await gw.call('GET', `/v1/sessions/${traceId}`, { token: t.factoryKey, appId: t.appId });
    const client = await connect('/v1/mcp', auth(t.factoryKey));
    const r = await client.callTool({ name: 'get_session', arguments: { traceId } });
    expect(r.isError).toBe(true);
    expect((r.structuredContent as { error: { code: string } }).error.code).toBe('rate_limited');
    await client.close();
  });

  it('an exhausted mcp-protocol bucket answers 429 rate_limited with Retry-After', async () => {
    const t = await createTenant(gw, { plan: 'free' });
    const batch = Array.from({ length: 300 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'ping' }));
    // One POST may carry many calls (a JSON-RPC batch); each counts.
    await rpc('/v1/mcp', auth(t.factoryKey), batch);
    const res = await rpc('/v1/mcp', auth(t.factoryKey), { jsonrpc: '2.0', id: 9, method: 'tools/list' });
    expect(res.status).toBe(429);
    expect((await res.json()).error.code).toBe('rate_limited');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    // tools/call is not in that bucket, so it still works.
    const call = await rpc('/v1/mcp', auth(t.factoryKey), {
      jsonrpc: '2.0',
      id: 10,
      method: 'tools/call',
      params: { name: 'list_hosts', arguments: {} },
    });
    expect(call.status).toBe(200);
  });
});
