// POST /v1/mcp and POST /v1/apps/{appId}/mcp: the Model Context Protocol over Streamable HTTP, stateless
// (a fresh server and transport per request, no session id, JSON answers rather than SSE). Tools answer by
// calling their REST twin in process with the caller's own credential; protocol calls that read no data
// (initialize, ping, tools/list, resources/*) count against the mcp-protocol bucket. Every 401 on these routes carries
// WWW-Authenticate pointing at the matching RFC 9728 document, so an MCP client can start OAuth.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AreaRoutes } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { consumeRateLimit } from '../../server/guard.js';
import { NoBody, Uuid } from '../../server/schemas.js';
import { protectedResourceMetadataUrl } from '../oauth/service.js';
import { buildTools, type Tool } from './tools.js';

const MCP_PATH = '/v1/mcp';
const APP_MCP_PATH = '/v1/apps/:appId/mcp';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A JSON-RPC 2.0 response: `result` on success, `error` (code, message) on failure, never both. */
const JsonRpcResponse = Type.Union([
  Type.Object({
    jsonrpc: Type.Literal('2.0'),
    id: Type.Union([Type.String(), Type.Number()]),
    result: Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'What the method answers (MCP: InitializeResult, ListToolsResult, CallToolResult, ...).',
      },
    ),
  }),
  Type.Object({
    jsonrpc: Type.Literal('2.0'),
    id: Type.Union([Type.String(), Type.Number(), Type.Null()]),
    error: Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) }),
  }),
]);

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

export const mcpRoutes: AreaRoutes = (app) => {
  // Built on first use: the OpenAPI document lists every route only once the app is ready.
  let tools: Tool[] | null = null;
  const toolsOf = (): Tool[] => (tools ??= buildTools(app));
  let sdkLoading: Promise<typeof import('./server.js')> | null = null;

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
      await consumeRateLimit(
        req.ctx.gateway.rateLimits,
        reply,
        'mcp-protocol',
        principal.orgId,
        principal.plan ?? 'free',
      );
    }

    // The MCP SDK (and zod under it) is imported on the first MCP request, not at start-up (about 25 MB of
    // resident memory a gateway without MCP clients never needs; docs/performance.md, Memory).
    const { answerMcp } = await (sdkLoading ??= import('./server.js').catch((err: unknown) => {
      sdkLoading = null;
      throw err;
    }));
    return answerMcp(app, req, reply, toolsOf());
  };

  const notAllowed = async (req: FastifyRequest): Promise<never> => {
    throw apiError(
      'method_not_allowed',
      `${req.method} is not allowed here: this MCP server is stateless and answers POST only.`,
      {},
      { Allow: 'POST' },
    );
  };
  const Body = Type.Unknown({ description: 'A JSON-RPC 2.0 message of the Model Context Protocol.' });
  const response = {
    // The transport's answer is sent as the string it built (Fastify does not serialize strings), so this
    // schema documents the body without reshaping it.
    200: Type.Union([JsonRpcResponse, Type.Array(JsonRpcResponse)], {
      description: 'The JSON-RPC response to each request of the body (one, or an array for a batch).',
    }),
    202: NoBody('Accepted: the body held only notifications or responses, which get no answer.'),
  };

  app.post(
    MCP_PATH,
    {
      config: {
        guard: {
          credentials: ['factory_key', 'login_token', 'oauth_token'],
          factory: 'header-optional-for-key',
          dashboardSession: false,
        },
      },
      schema: {
        summary: 'MCP endpoint (Streamable HTTP, stateless)',
        tags: ['mcp'],
        body: Body,
        response,
        description:
          'A factory key may leave out X-Outerlayer-App-Id. Tools mirror REST reads with their permissions and rate ' +
          'limits; initialize, ping, tools/list and resources/* count against the mcp-protocol bucket.',
      },
    },
    handle,
  );
  app.post(
    APP_MCP_PATH,
    {
      config: {
        guard: {
          credentials: ['login_token', 'oauth_token'],
          factory: 'path',
          appParam: 'appId',
          dashboardSession: false,
        },
      },
      schema: {
        summary: "A factory's MCP endpoint (Streamable HTTP, stateless)",
        tags: ['mcp'],
        body: Body,
        response,
        description:
          'The factory comes from the path. Accepts a login token or an OAuth access token issued for this URL, ' +
          'never an API key.',
        params: Type.Object({ appId: Uuid }),
      },
    },
    handle,
  );
  for (const path of [MCP_PATH, APP_MCP_PATH]) {
    app.get(path, { config: { guard: { credentials: 'public' } }, schema: { hide: true } }, notAllowed);
    app.delete(path, { config: { guard: { credentials: 'public' } }, schema: { hide: true } }, notAllowed);
  }
};
