// POST /v1/mcp and POST /v1/apps/{appId}/mcp: the Model Context Protocol over Streamable HTTP, stateless
// (a fresh server and transport per request, no session id, JSON answers rather than SSE). Tools answer by calling their REST twin in
// process with the caller's own credential; protocol calls that read no data (initialize, ping,
// tools/list, resources/*) count against the mcp-protocol bucket. Every 401 on these routes carries
// WWW-Authenticate pointing at the matching RFC 9728 document, so an MCP client can start OAuth.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListToolsRequestSchema, McpError, ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { App, AreaRoutes } from '../../server/context.js';
import { ApiError, apiError } from '../../server/errors.js';
import { APP_HEADER, RUNNER_HEADER, internalCallHeaders, setRateHeaders } from '../../server/guard.js';
import { Uuid } from '../../server/schemas.js';
import { protectedResourceMetadataUrl } from '../oauth/service.js';
import { VERSION } from '../../version.js';
import { buildTools, GUIDE_URI, restUrlOf, toolGuide, type Tool } from './tools.js';

const MCP_PATH = '/v1/mcp';
const APP_MCP_PATH = '/v1/apps/:appId/mcp';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** JSON-RPC requests in a POST body that read no data (everything but tools/call); notifications are free. */
export function protocolCallCount(body: unknown): number {
  const messages = Array.isArray(body) ? body : [body];
  return messages.filter((m): boolean => {
    if (!m || typeof m !== 'object') return false;
    const msg = m as { method?: unknown; id?: unknown };
    return typeof msg.method === 'string' && msg.id !== undefined && msg.method !== 'tools/call';
  }).length;
}

function challengeUrl(req: FastifyRequest): string | null {
  const route = req.routeOptions.url;
  if (route === MCP_PATH) return protectedResourceMetadataUrl(req.ctx.config, MCP_PATH);
  if (route === APP_MCP_PATH) {
    const appId = (req.params as { appId?: string } | undefined)?.appId ?? '';
    if (!UUID.test(appId)) return null;
    return protectedResourceMetadataUrl(req.ctx.config, `/v1/apps/${appId.toLowerCase()}/mcp`);
  }
  return null;
}

function toolResult(status: number, text: string): CallToolResult {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const structured = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  if (status >= 200 && status < 300) {
    return { content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured } : {}) };
  }
  const error = (structured?.error ?? {}) as { code?: string; message?: string; required_permission?: string };
  const code = error.code ?? `http_${status}`;
  const summary = status === 403 && error.required_permission
    ? `forbidden: this credential lacks the permission ${error.required_permission}. ${error.message ?? ''}`.trim()
    : `${code}: ${error.message ?? `the REST route answered ${status}`}`;
  return { isError: true, content: [{ type: 'text', text: summary }], ...(structured ? { structuredContent: structured } : {}) };
}

/** One MCP server for one request: its tools call the REST twins with this request's credential. */
function buildServer(app: App, req: FastifyRequest, tools: readonly Tool[]): Server {
  const server = new Server({ name: 'attest', version: VERSION }, { capabilities: { tools: {}, resources: {} } });
  const principal = req.ctx.principal;

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((t) => ({
      name: t.spec.name,
      description: t.permission ? `${t.spec.description} Needs the permission ${t.permission}.` : t.spec.description,
      inputSchema: t.inputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = tools.find((t) => t.spec.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const headers: Record<string, string> = { 'x-request-id': req.id };
    if (req.headers.authorization) headers.authorization = req.headers.authorization;
    if (principal?.appId) headers[APP_HEADER] = principal.appId;
    const runner = req.headers[RUNNER_HEADER];
    if (typeof runner === 'string') headers[RUNNER_HEADER] = runner;
    if (principal?.kind === 'oauth_token') Object.assign(headers, internalCallHeaders());
    const res = await app.inject({ method: 'GET', url: restUrlOf(tool, request.params.arguments ?? {}), headers });
    return toolResult(res.statusCode, res.body);
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [{ uri: GUIDE_URI, name: 'tool-guide', title: 'Guide to the Attest tools', mimeType: 'text/markdown', description: 'Which tool answers what, and how results and refusals look.' }],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    if (request.params.uri !== GUIDE_URI) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${request.params.uri}`);
    return { contents: [{ uri: GUIDE_URI, mimeType: 'text/markdown', text: toolGuide(tools) }] };
  });
  return server;
}

export const mcpRoutes: AreaRoutes = (app) => {
  // Built on first use: the OpenAPI document lists every route only once the app is ready.
  let tools: Tool[] | null = null;
  const toolsOf = (): Tool[] => (tools ??= buildTools(app));

  app.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode !== 401) return payload;
    const url = challengeUrl(req);
    if (!url) return payload;
    const error = req.headers.authorization ? ', error="invalid_token"' : '';
    reply.header('WWW-Authenticate', `Bearer resource_metadata="${url}"${error}`);
    return payload;
  });

  const handle = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const principal = req.ctx.principal;
    if (!principal?.orgId) throw apiError('internal_error', 'route is missing its factory guard');
    // Calls that read no data count against mcp-protocol; a tools/call counts in its REST twin's bucket.
    for (let i = protocolCallCount(req.body); i > 0; i--) {
      const decision = await req.ctx.gateway.rateLimits.consume('mcp-protocol', principal.orgId, principal.plan ?? 'free');
      setRateHeaders(reply, decision.limit, decision.remaining, decision.resetAt);
      if (!decision.allowed) {
        throw new ApiError(429, 'rate_limited', `Rate limit of ${decision.limit} requests a minute reached for this organization.`, {}, {
          'Retry-After': String(decision.retryAfterSeconds),
        });
      }
    }

    // The web-standard transport with JSON responses: the whole answer is one Response, sent through
    // Fastify like any reply (hooks, request id), with no Node ↔ web stream bridge in between.
    const server = buildServer(app, req, toolsOf());
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const answer = await transport.handleRequest(new Request(`${req.ctx.config.publicUrl}${req.url}`, { method: 'POST', headers }), { parsedBody: req.body });
      reply.code(answer.status);
      answer.headers.forEach((value, name) => { reply.header(name, value); });
      const text = await answer.text();
      return reply.send(text === '' ? undefined : text);
    } finally {
      await transport.close();
      await server.close();
    }
  };

  const notAllowed = async (req: FastifyRequest): Promise<never> => {
    throw apiError('method_not_allowed', `${req.method} is not allowed here: this MCP server is stateless and answers POST only.`, {}, { Allow: 'POST' });
  };
  const Body = Type.Unknown({ description: 'A JSON-RPC 2.0 message of the Model Context Protocol.' });

  app.post(MCP_PATH, {
    config: { guard: { credentials: ['factory_key', 'login_token', 'oauth_token'], factory: 'header-optional-for-key', dashboardSession: false } },
    schema: {
      summary: 'MCP endpoint (Streamable HTTP, stateless)', tags: ['mcp'], body: Body,
      description: 'A factory key may leave out X-Outerlayer-App-Id. Tools mirror REST reads with their permissions and rate limits; initialize, ping, tools/list and resources/* count against the mcp-protocol bucket.',
    },
  }, handle);
  app.post(APP_MCP_PATH, {
    config: { guard: { credentials: ['login_token', 'oauth_token'], factory: 'path', appParam: 'appId', dashboardSession: false } },
    schema: {
      summary: "A factory's MCP endpoint (Streamable HTTP, stateless)", tags: ['mcp'], body: Body,
      description: 'The factory comes from the path. Accepts a login token or an OAuth access token issued for this URL, never an API key.',
      params: Type.Object({ appId: Uuid }),
    },
  }, handle);
  for (const path of [MCP_PATH, APP_MCP_PATH]) {
    app.get(path, { config: { guard: { credentials: 'public' } }, schema: { hide: true } }, notAllowed);
    app.delete(path, { config: { guard: { credentials: 'public' } }, schema: { hide: true } }, notAllowed);
  }
};
