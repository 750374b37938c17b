// GET /.well-known/oauth-protected-resource and its path-suffixed forms (RFC 9728 §3.1): the bare document
// for the gateway, for /v1/mcp and for /v1/apps/{appId}/mcp. Public; bare JSON (the RFC fixes the shape).
// The OAuth 2.1 authorization server for MCP connector clients: RFC 8414 metadata, /oauth/authorize,
// /oauth/token, /oauth/register (RFC 7591), /oauth/revoke (RFC 7009) and the consent page's POST.
import { Type } from 'typebox';
import type { AreaRoutes } from '../../server/context.js';
import { Uuid } from '../../server/schemas.js';
import { ProtectedResourceMetadata } from './schema.js';
import { authorizationServerMetadata, protectedResourceMetadata } from './service.js';
import { registerAuthorizationServer } from './server-routes.js';

const BASE = '/.well-known/oauth-protected-resource';
const CACHE = 'public, max-age=3600';

export const oauthRoutes: AreaRoutes = (app) => {
  app.get(
    BASE,
    {
      schema: {
        summary: 'Protected resource metadata of the gateway (RFC 9728)',
        tags: ['oauth'],
        response: { 200: ProtectedResourceMetadata },
      },
    },
    async (req, reply) => {
      reply.header('Cache-Control', CACHE);
      return protectedResourceMetadata(req.ctx.config, '');
    },
  );

  app.get(
    `${BASE}/v1/mcp`,
    {
      schema: {
        summary: 'Protected resource metadata of /v1/mcp (RFC 9728)',
        tags: ['oauth'],
        response: { 200: ProtectedResourceMetadata },
      },
    },
    async (req, reply) => {
      reply.header('Cache-Control', CACHE);
      return protectedResourceMetadata(req.ctx.config, '/v1/mcp');
    },
  );

  app.get(
    `${BASE}/v1/apps/:appId/mcp`,
    {
      schema: {
        summary: "Protected resource metadata of a factory's /v1/apps/{appId}/mcp (RFC 9728)",
        tags: ['oauth'],
        params: Type.Object({ appId: Uuid }),
        response: { 200: ProtectedResourceMetadata },
      },
    },
    async (req, reply) => {
      reply.header('Cache-Control', CACHE);
      return protectedResourceMetadata(req.ctx.config, `/v1/apps/${req.params.appId.toLowerCase()}/mcp`);
    },
  );

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      schema: {
        summary: 'Authorization server metadata (RFC 8414)',
        tags: ['oauth'],
        response: {
          200: Type.Object({}, { additionalProperties: true, description: 'RFC 8414 metadata (bare JSON).' }),
        },
      },
    },
    async (req, reply) => {
      reply.header('Cache-Control', CACHE);
      return authorizationServerMetadata(req.ctx.config);
    },
  );

  registerAuthorizationServer(app);
};
