// Routes of the authorization server. /oauth/authorize, /oauth/token, /oauth/register and /oauth/revoke are
// the MCP SDK's own handlers (Express routers): each is a Fastify route, so the guard, the route table,
// 404/405 and OpenAPI know it, whose handler hands the raw request (body already parsed by Fastify) to a
// small Express app holding the SDK handler. Mounting the SDK's mcpAuthRouter as middleware instead would
// run ahead of the guard and shadow the RFC 9728 routes above with the SDK's own shape.
//
// Express, the SDK's handlers and the provider (which pulls in the SDK's zod schemas) are imported on the
// first request that needs them, not at start-up: together they are about 40 MB of resident memory that a
// gateway nobody connects an MCP client to never uses (docs/performance.md, Memory).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type express from 'express';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App, Gateway } from '../../server/context.js';
import { apiError } from '../../server/errors.js';
import { ExpressRedirect, HtmlPage, Redirect, Literals } from '../../server/schemas.js';
import { parsePlaintext } from '../../server/credentials.js';
import type { Principal } from '../../server/auth/principal.js';
import { recordAudit } from '../../server/audit.js';
import { factoriesOfUser } from '../apps/service.js';
import { renderConsentPage, verifyConsentRequest, type ConsentRequest } from './consent.js';
import type { GatewayOAuthProvider } from './provider.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The SDK's protocol endpoints (public, as the whole area): input refused before them answers RFC 6749's shape too. */
const PROTOCOL = { oauthErrors: true };
const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
};

const PAGE_HEADER_DOCS = {
  'Content-Security-Policy': {
    type: 'string',
    description: 'No script; forms post only to this origin; never framed.',
  },
  'X-Frame-Options': { type: 'string', description: '`DENY`' },
} as const;
const CONSENT_PAGE = HtmlPage(
  'The consent page: sign in with a login token and approve or deny the client.',
  PAGE_HEADER_DOCS,
);
const ERROR_REDIRECT = ExpressRedirect(
  'The request failed after the client and redirect_uri were checked (RFC 6749 §4.1.2.1).',
  'The redirect_uri with `error`, `error_description` and `state`.',
);

/** RFC 6749 §5.1 access token answer. */
const Tokens = Type.Object(
  {
    access_token: Type.String({ description: 'An `olo_` credential for the MCP endpoint it was issued for.' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds the access token lives.' }),
    refresh_token: Type.String({ description: 'Rotates on use; a replayed one revokes the whole grant.' }),
    scope: Type.String(),
  },
  { description: 'RFC 6749 §5.1 token answer (bare JSON).' },
);

/** RFC 7591 §3.2.1 client information: the registered metadata with the client id. */
const RegisteredClient = Type.Object(
  {
    client_id: Type.String(),
    client_id_issued_at: Type.Integer({ description: 'Unix seconds.' }),
    redirect_uris: Type.Array(Type.String()),
    token_endpoint_auth_method: Type.Literal('none', { description: 'Every client is public (PKCE).' }),
  },
  {
    additionalProperties: true,
    description: 'RFC 7591 client information: every metadata field the client sent, with client_id (bare JSON).',
  },
);

const ConsentBody = Type.Object(
  {
    request: Type.String({ minLength: 1, maxLength: 16384 }),
    decision: Literals(['approve', 'deny']),
    login_token: Type.Optional(Type.String({ maxLength: 200 })),
    app_id: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

/**
 * The SDK puts a validation library's issue list (JSON) in `error_description`; a person reads that field.
 * Each answer of the SDK handlers passes here: a JSON body or a redirect's Location whose description is
 * such a list gets a sentence instead (`client_id is required; redirect_uri must be a URL.`).
 */
function readableErrorDescriptions(res: ServerResponse): void {
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    try {
      const location = res.getHeader('location');
      if (typeof location === 'string' && location.includes('error_description=')) {
        const url = new URL(location);
        const readable = sentenceOf(url.searchParams.get('error_description'));
        if (readable) {
          url.searchParams.set('error_description', readable);
          res.setHeader('location', url.href);
        }
      }
      const [chunk] = args;
      if (
        (typeof chunk === 'string' || Buffer.isBuffer(chunk)) &&
        String(res.getHeader('content-type') ?? '').includes('json')
      ) {
        const text = chunk.toString();
        if (text.includes('error_description')) {
          const body = JSON.parse(text) as { error_description?: unknown };
          const readable = typeof body.error_description === 'string' ? sentenceOf(body.error_description) : null;
          if (readable) {
            const out = JSON.stringify({ ...body, error_description: readable });
            if (!res.headersSent) res.setHeader('content-length', Buffer.byteLength(out));
            args[0] = out;
          }
        }
      }
    } catch {
      // not JSON after all: send it as it was
    }
    return end(...args);
  }) as typeof res.end;
}

interface Issue {
  path?: unknown;
  message?: unknown;
}

/** A sentence for a JSON list of validation issues, or null when the description is already prose. */
export function sentenceOf(description: string | null): string | null {
  if (!description || !/^\s*[[{]/.test(description)) return null;
  let issues: unknown;
  try {
    issues = JSON.parse(description);
  } catch {
    return null;
  }
  const list = (Array.isArray(issues) ? issues : [issues]) as Issue[];
  const parts = list.slice(0, 5).map((issue) => {
    const field = Array.isArray(issue.path) && issue.path.length > 0 ? issue.path.join('.') : 'the request';
    const message = (typeof issue.message === 'string' ? issue.message : 'is invalid').replace(
      /^invalid input:?\s*/i,
      '',
    );
    if (/^required$/i.test(message) || /received undefined/i.test(message)) return `${field} is required`;
    return `${field} is invalid: ${message.charAt(0).toLowerCase()}${message.slice(1).replace(/\.$/, '')}`;
  });
  // Field names keep their case (client_id), so the sentence starts with one as it is spelled.
  return parts.length === 0 ? 'The request is invalid.' : `${parts.join('; ')}.`;
}

interface Bridge {
  provider: GatewayOAuthProvider;
  app: express.Express;
}

async function buildBridge(gateway: Gateway, log: FastifyBaseLogger): Promise<Bridge> {
  const [
    { default: express },
    { GatewayOAuthProvider },
    { authorizationHandler },
    { tokenHandler },
    { clientRegistrationHandler },
    { revocationHandler },
  ] = await Promise.all([
    import('express'),
    import('./provider.js'),
    import('@modelcontextprotocol/sdk/server/auth/handlers/authorize.js'),
    import('@modelcontextprotocol/sdk/server/auth/handlers/token.js'),
    import('@modelcontextprotocol/sdk/server/auth/handlers/register.js'),
    import('@modelcontextprotocol/sdk/server/auth/handlers/revoke.js'),
  ]);
  const provider = new GatewayOAuthProvider(gateway, log);
  // The SDK handlers' own per-IP limiters are off: counters in process memory would not hold across
  // replicas, and a consent needs a valid login token anyway.
  const bridge = express();
  bridge.disable('x-powered-by');
  bridge.use('/oauth/authorize', authorizationHandler({ provider, rateLimit: false }));
  bridge.use('/oauth/token', tokenHandler({ provider, rateLimit: false }));
  bridge.use('/oauth/register', clientRegistrationHandler({ clientsStore: provider.clientsStore, rateLimit: false }));
  bridge.use('/oauth/revoke', revocationHandler({ provider, rateLimit: false }));
  return { provider, app: bridge };
}

export function registerAuthorizationServer(app: App): void {
  const gateway = app.attest;
  // Built once, on the first OAuth request; a failed import is not kept, so the next request tries again.
  let bridgeLoading: Promise<Bridge> | null = null;
  const bridgeOf = (): Promise<Bridge> =>
    (bridgeLoading ??= buildBridge(gateway, app.log).catch((err: unknown) => {
      bridgeLoading = null;
      throw err;
    }));

  // Form posts (token, revoke, consent) arrive urlencoded; only this area accepts that media type.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  const forward = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const bridge = (await bridgeOf()).app;
    reply.hijack();
    const raw = req.raw as IncomingMessage & { body?: unknown };
    // Fastify has read the body; the SDK's body parsers see a finished stream and keep this.
    raw.body = req.body ?? {};
    reply.raw.setHeader('X-Request-Id', req.id);
    readableErrorDescriptions(reply.raw);
    await new Promise<void>((resolve) => {
      reply.raw.on('finish', () => {
        // The SDK handlers answer an unexpected failure with 500 server_error themselves, past the error
        // handler and without logging it; every 5xx must still leave an error line with the request id.
        if (reply.raw.statusCode >= 500) {
          req.log.error(
            { requestId: req.id, statusCode: reply.raw.statusCode, url: req.url.split('?')[0] },
            'OAuth endpoint answered 5xx',
          );
        }
        resolve();
      });
      reply.raw.on('close', resolve);
      bridge(
        raw as unknown as express.Request,
        reply.raw as ServerResponse as unknown as express.Response,
        (err?: unknown) => {
          if (err) req.log.error({ err, requestId: req.id }, 'OAuth handler failed');
          if (!reply.raw.headersSent) {
            reply.raw.writeHead(err ? 500 : 404, { 'content-type': 'application/json' });
            reply.raw.end(JSON.stringify({ error: err ? 'server_error' : 'invalid_request' }));
          }
          resolve();
        },
      );
    });
  };

  // The SDK handlers write the answers (the reply is hijacked); these schemas only document them.
  const authorizeResponse = { 200: CONSENT_PAGE, 302: ERROR_REDIRECT };
  app.get(
    '/oauth/authorize',
    {
      config: PROTOCOL,
      schema: {
        summary: 'Authorization endpoint (OAuth 2.1, PKCE S256): shows the consent page',
        tags: ['oauth'],
        response: authorizeResponse,
      },
    },
    forward,
  );
  app.post(
    '/oauth/authorize',
    {
      config: PROTOCOL,
      schema: { summary: 'Authorization endpoint (form post)', tags: ['oauth'], response: authorizeResponse },
    },
    forward,
  );
  app.post(
    '/oauth/token',
    {
      config: PROTOCOL,
      schema: {
        summary: 'Token endpoint: authorization_code and refresh_token grants',
        tags: ['oauth'],
        response: { 200: Tokens },
      },
    },
    forward,
  );
  app.post(
    '/oauth/register',
    {
      config: PROTOCOL,
      schema: {
        summary: 'Dynamic client registration (RFC 7591); clients are public (PKCE)',
        tags: ['oauth'],
        response: { 201: RegisteredClient },
      },
    },
    forward,
  );
  app.post(
    '/oauth/revoke',
    {
      config: PROTOCOL,
      schema: {
        summary: 'Token revocation (RFC 7009)',
        tags: ['oauth'],
        response: { 200: Type.Object({}, { description: 'Revoked, or the token was unknown (RFC 7009 §2.2): `{}`.' }) },
      },
    },
    forward,
  );
  // CORS preflight for browser-based MCP clients (answered by the SDK handlers' cors()).
  for (const path of ['/oauth/token', '/oauth/register', '/oauth/revoke']) {
    app.options(path, { config: PROTOCOL, schema: { hide: true } as object }, forward);
  }

  app.post(
    '/oauth/consent',
    {
      schema: {
        summary: "The consent page's approval: issues the authorization code and redirects to the client",
        tags: ['oauth'],
        body: ConsentBody,
        response: {
          200: HtmlPage('The consent page again, asking which factory the client may read.', PAGE_HEADER_DOCS),
          302: Redirect(
            'The decision, back to the client.',
            'The redirect_uri with `code` (approved) or `error=access_denied`, `state` and `iss`.',
          ),
          // The page again, saying what to fix; a body that fails validation or an expired request answers the
          // error envelope (4XX) instead.
          400: HtmlPage('The consent page again: the factory id is not a uuid.', PAGE_HEADER_DOCS),
          401: HtmlPage(
            'The consent page again: not a login token, or not one of a member of that factory.',
            PAGE_HEADER_DOCS,
          ),
          403: HtmlPage('The consent page again: the login token belongs to no factory.', PAGE_HEADER_DOCS),
        },
      },
    },
    async (req, reply) => {
      const request = verifyConsentRequest(gateway, req.body.request);
      if (!request)
        throw apiError(
          'invalid_request_body',
          'The consent request expired or was altered; start the authorization again.',
        );

      const back = (params: Record<string, string>) => {
        const url = new URL(request.redirectUri);
        for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
        if (request.state !== null) url.searchParams.set('state', request.state);
        url.searchParams.set('iss', gateway.config.publicUrl); // RFC 9207
        return reply.header('Cache-Control', 'no-store').redirect(url.href, 302);
      };
      const page = (
        status: 200 | 400 | 401 | 403,
        message: string | null,
        step?: Parameters<typeof renderConsentPage>[3],
      ) =>
        reply
          .code(status)
          .headers(PAGE_HEADERS)
          .type('text/html; charset=utf-8')
          .send(renderConsentPage(request, req.body.request, message, step));
      const again = (status: 400 | 401 | 403, message: string) => page(status, message);
      const invalidToken = "The login token is not valid, or you are not a member of that factory's organization.";

      if (req.body.decision === 'deny')
        return back({ error: 'access_denied', error_description: 'The user denied the request.' });

      const token = (req.body.login_token ?? '').trim();
      if (parsePlaintext(token) !== 'login_token') return again(401, 'That is not a login token (olu_…).');
      const appId = (request.appId ?? req.body.app_id ?? '').trim().toLowerCase();
      if (appId === '') {
        // The resource names no factory and none was entered: show the user's factories to choose from.
        let user: Principal;
        try {
          user = await gateway.auth.resolve(token, null);
        } catch {
          return again(401, invalidToken);
        }
        const choices = user.userId ? await factoriesOfUser(req.ctx.db, user.userId) : [];
        if (choices.length === 0) return again(403, 'You are not a member of any factory.');
        return page(200, 'Choose the factory this client may read.', {
          choices: choices.map((f) => ({ id: f.id, label: `${f.org.name} / ${f.display_name || f.name} (${f.role})` })),
          loginToken: token,
        });
      }
      if (!UUID.test(appId)) return again(400, 'Enter the factory id (a uuid).');
      let principal: Principal;
      try {
        principal = await gateway.auth.resolve(token, appId);
      } catch {
        return again(401, invalidToken);
      }
      if (principal.kind !== 'login_token' || !principal.userId || !principal.orgId || principal.appId !== appId)
        return again(401, invalidToken);
      const { provider } = await bridgeOf();
      const code = await provider.issueCode(request, { userId: principal.userId, orgId: principal.orgId, appId });
      await auditGrant(req, principal, request, appId);
      return back({ code });
    },
  );
}

async function auditGrant(
  req: FastifyRequest,
  principal: Principal,
  request: ConsentRequest,
  appId: string,
): Promise<void> {
  try {
    await recordAudit(req.ctx.db, req.ctx.clock, {
      orgId: principal.orgId!,
      actionType: 'oauth.authorized',
      actor: principal,
      targetType: 'app',
      targetId: appId,
      targetIdentifier: request.clientName.slice(0, 200),
      details: { client_id: request.clientId, scopes: request.scopes, resource: request.resource },
    });
  } catch (err) {
    req.log.warn({ err }, 'could not record the OAuth grant in the audit log');
  }
}
