// Identity sign-in routes: the providers the sign-in page offers, and each provider's start (303 to the
// provider, binding the flow to this browser with a short cookie) and callback (303 into the dashboard with
// the session cookie, or to /sign-in?reason=… with nothing about whether an account exists).
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AreaRoutes, RequestContext } from '../../server/context.js';
import { Data, HtmlPage, Redirect, Ref } from '../../server/schemas.js';
import { SESSION_COOKIE, cookieValue } from '../../server/guard.js';
import { ApiError } from '../../server/errors.js';
import { wantsPage } from '../../server/web.js';
import { sessionCookie } from '../dashboard/service.js';
import { SignInProvider } from './schema.js';
import * as oidc from './oidc.js';
import * as signIn from './service.js';
import { githubAuthorizationRequest, githubIdentity } from './github.js';
import type { UserToken } from '../../codehost/github-user.js';

const StartQuery = Type.Object({ invite: Type.Optional(Type.String({ maxLength: 200 })) });
const CallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 2000 })),
    state: Type.Optional(Type.String({ maxLength: 2000 })),
    error: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: true },
);
const TOO_MANY = HtmlPage(
  'Too many sign-in attempts from this address (or, at the callback, for this provider account): for a browser (an `Accept` naming `text/html`, not `application/json`) a page that says when to try again; otherwise the error envelope, code `rate_limited`.',
  { 'Retry-After': { type: 'integer', description: 'Seconds until sign-in attempts are taken again.' } },
);
const START_ANSWER = {
  303: Redirect('To the provider, or back to the sign-in page when sign-in is refused.', 'The provider.'),
  429: TOO_MANY,
};
const CALLBACK_ANSWER = {
  303: Redirect(
    'Signed in (with `Set-Cookie`), or refused.',
    "`/` (or the joined org's page) when signed in; `/sign-in?reason=…` otherwise.",
  ),
  429: TOO_MANY,
};
const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
};

function flowCookie(ctx: RequestContext, value: string, maxAgeSeconds: number): string {
  // Path /auth: sent only to the callbacks. SameSite=Lax: the provider's redirect back is a top-level GET.
  const secure = ctx.config.publicUrl.startsWith('https:') ? '; Secure' : '';
  return `${signIn.FLOW_COOKIE}=${value}; Path=/auth; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

/**
 * A refusal: back to the sign-in page, which explains the reason (none says whether an account exists). Too
 * many attempts is a 429 with Retry-After: a browser gets a page of this answer's own (going back to the
 * sign-in page would only invite another attempt), anything else the error envelope `rate_limited`.
 */
function refuse(req: { accept: string | undefined }, reply: FastifyReply, refusal: signIn.SignInRefused) {
  if (refusal.reason !== 'rate-limited') return reply.redirect(`/sign-in?reason=${refusal.reason}`, 303);
  const seconds = refusal.retryAfterSeconds;
  if (!wantsPage(req.accept))
    throw new ApiError(
      429,
      'rate_limited',
      `Too many sign-in attempts; try again in ${seconds} seconds.`,
      {},
      { 'Retry-After': String(seconds) },
    );
  return reply
    .code(429)
    .headers({ ...PAGE_HEADERS, 'Retry-After': String(seconds) })
    .type('text/html; charset=utf-8')
    .send(
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Too many sign-in attempts · Attest</title>' +
        '<style>body{font:16px system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem}</style></head>' +
        '<body><h1>Too many sign-in attempts</h1>' +
        `<p data-testid="retry-after">Wait ${seconds} second${seconds === 1 ? '' : 's'}, then sign in again.</p>` +
        '<p><a href="/sign-in">Back to the sign-in page</a></p></body></html>',
    );
}

/** What the start and callback handlers read of a request. */
interface Incoming<Q> {
  ctx: RequestContext;
  ip: string;
  url: string;
  log: FastifyRequest['log'];
  query: Q;
  /** The flow cookie this browser sent. */
  flowCookie: string | null;
  accept: string | undefined;
}
const incoming = <Q>(req: FastifyRequest & { query: Q }): Incoming<Q> => ({
  ctx: req.ctx,
  ip: req.ip,
  url: req.url,
  log: req.log,
  query: req.query,
  flowCookie: cookieValue(req, signIn.FLOW_COOKIE),
  accept: req.headers.accept,
});

async function start(req: Incoming<{ invite?: string | undefined }>, reply: FastifyReply, provider: signIn.ProviderId) {
  const ctx = req.ctx;
  reply.header('Cache-Control', 'no-store');
  try {
    await signIn.rateLimit(ctx, `ip:${req.ip}`);
    const redirectUri = signIn.redirectUriOf(ctx.config, provider);
    let flow: { url: string; state: string; codeVerifier: string; nonce: string | null };
    if (provider === 'oidc') {
      const settings = ctx.config.oidc;
      if (!settings) return reply.redirect('/sign-in', 303);
      flow = await oidc.authorizationRequest(settings, redirectUri);
    } else {
      if (!ctx.config.github.clientId || !ctx.config.github.clientSecret) return reply.redirect('/sign-in', 303);
      flow = await githubAuthorizationRequest(ctx.config, redirectUri);
    }
    await signIn.saveFlow(ctx, provider, flow, req.query.invite ?? null);
    reply.header('Set-Cookie', flowCookie(ctx, flow.state, signIn.FLOW_TTL_MS / 1000));
    return reply.redirect(flow.url, 303);
  } catch (err) {
    if (err instanceof signIn.SignInRefused) return refuse(req, reply, err);
    req.log.warn({ err: { message: (err as Error).message } }, 'sign-in could not reach the identity provider');
    return refuse(req, reply, new signIn.SignInRefused('provider'));
  }
}

async function callback(
  req: Incoming<{ code?: string | undefined; state?: string | undefined; error?: string | undefined }>,
  reply: FastifyReply,
  provider: signIn.ProviderId,
) {
  const ctx = req.ctx;
  reply.header('Cache-Control', 'no-store');
  reply.header('Referrer-Policy', 'no-referrer');
  try {
    await signIn.rateLimit(ctx, `ip:${req.ip}`);
    const flow = await signIn.takeFlow(ctx, provider, req.query.state, req.flowCookie);
    if (req.query.error || !req.query.code) throw new signIn.SignInRefused('provider');
    let who: oidc.ProviderIdentity;
    let githubToken: UserToken | null = null;
    try {
      if (provider === 'oidc') {
        const settings = ctx.config.oidc;
        if (!settings) throw new signIn.SignInRefused('provider');
        who = await oidc.finishAuthorization(settings, new URL(req.url, ctx.config.publicUrl), {
          state: req.query.state ?? '',
          codeVerifier: flow.code_verifier,
          nonce: flow.nonce ?? '',
        });
      } else {
        ({ who, token: githubToken } = await githubIdentity(ctx, req.query.code, flow.code_verifier));
      }
    } catch (err) {
      if (err instanceof signIn.SignInRefused) throw err;
      // The provider's or the library's words stay in the log: the page says only that the provider refused.
      req.log.info({ err: { message: (err as Error).message } }, 'identity provider sign-in refused');
      throw new signIn.SignInRefused('provider');
    }
    const { session, joinedOrg } = await signIn.completeSignIn(ctx, provider, who, flow.invitation, githubToken);
    reply.header('Set-Cookie', [
      sessionCookie(ctx.config, SESSION_COOKIE, session.id, session.maxAgeSeconds),
      flowCookie(ctx, '', 0),
    ]);
    return reply.redirect(joinedOrg ? `/o/${encodeURIComponent(joinedOrg)}` : '/', 303);
  } catch (err) {
    reply.header('Set-Cookie', flowCookie(ctx, '', 0));
    if (err instanceof signIn.SignInRefused) return refuse(req, reply, err);
    // A person's browser is here, not an API client: a page that says the gateway failed (the log says why),
    // never the error itself.
    req.log.error({ err }, 'sign-in failed after the identity provider answered');
    return refuse(req, reply, new signIn.SignInRefused('error'));
  }
}

export const signInRoutes: AreaRoutes = (app) => {
  app.get(
    '/v1/sign-in/providers',
    {
      schema: {
        summary: 'The identity providers this gateway signs in with (a button each on the sign-in page)',
        tags: ['dashboard'],
        response: { 200: Data(Type.Array(Ref(SignInProvider))) },
      },
    },
    async () => ({ data: signIn.providersOf(app.attest.config) }),
  );

  for (const provider of ['oidc', 'github'] as const) {
    app.get(
      `/auth/${provider}/start`,
      {
        schema: {
          summary: `Start signing in with ${provider === 'oidc' ? 'the OpenID Connect provider' : 'GitHub'}`,
          tags: ['dashboard'],
          description:
            '`invite` carries an invitation token to accept once signed in. Not configured: 303 to `/sign-in`.',
          querystring: StartQuery,
          response: START_ANSWER,
        },
      },
      (req, reply) => start(incoming(req), reply, provider),
    );
    app.get(
      `/auth/${provider}/callback`,
      {
        schema: {
          summary: `Where ${provider === 'oidc' ? 'the OpenID Connect provider' : 'GitHub'} sends the browser back`,
          tags: ['dashboard'],
          querystring: CallbackQuery,
          response: CALLBACK_ANSWER,
        },
      },
      (req, reply) => callback(incoming(req), reply, provider),
    );
  }
};
