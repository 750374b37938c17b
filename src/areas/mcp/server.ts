// The MCP server behind POST /v1/mcp and POST /v1/apps/{appId}/mcp (routes.ts), in a module of its own so
// the MCP SDK and zod load on the first MCP request rather than at start-up.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import * as webStreamable from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../../server/context.js';
import { APP_HEADER, RUNNER_HEADER, internalCallHeaders } from '../../server/guard.js';
import { VERSION } from '../../version.js';
import { GUIDE_URI, restUrlOf, toolGuide, type Tool } from './tools.js';

function toolResult(status: number, text: string): CallToolResult {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const structured =
    body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  if (status >= 200 && status < 300) {
    return { content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured } : {}) };
  }
  const error = (structured?.error ?? {}) as { code?: string; message?: string; required_permission?: string };
  const code = error.code ?? `http_${status}`;
  const summary =
    status === 403 && error.required_permission
      ? `forbidden: this credential lacks the permission ${error.required_permission}. ${error.message ?? ''}`.trim()
      : `${code}: ${error.message ?? `the REST route answered ${status}`}`;
  return {
    isError: true,
    content: [{ type: 'text', text: summary }],
    ...(structured ? { structuredContent: structured } : {}),
  };
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
    resources: [
      {
        uri: GUIDE_URI,
        name: 'tool-guide',
        title: 'Guide to the Attest tools',
        mimeType: 'text/markdown',
        description: 'Which tool answers what, and how results and refusals look.',
      },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    if (request.params.uri !== GUIDE_URI)
      throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${request.params.uri}`);
    return { contents: [{ uri: GUIDE_URI, mimeType: 'text/markdown', text: toolGuide(tools) }] };
  });
  return server;
}

/** Answers one MCP POST: a fresh server and transport for this request, the answer sent through Fastify. */
export async function answerMcp(
  app: App,
  req: FastifyRequest,
  reply: FastifyReply,
  tools: readonly Tool[],
): Promise<FastifyReply> {
  // The web-standard transport with JSON responses: the whole answer is one Response, sent through
  // Fastify like any reply (hooks, request id), with no Node ↔ web stream bridge in between.
  const server = buildServer(app, req, tools);
  const transport = new webStreamable.WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  try {
    await server.connect(transport);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const answer = await transport.handleRequest(
      new Request(`${req.ctx.config.publicUrl}${req.url}`, { method: 'POST', headers }),
      { parsedBody: req.body },
    );
    reply.code(answer.status);
    answer.headers.forEach((value, name) => {
      reply.header(name, value);
    });
    const text = await answer.text();
    return reply.send(text === '' ? undefined : text);
  } finally {
    await transport.close();
    await server.close();
  }
}
