// Identity sign-in routes: the providers the sign-in page offers, and each provider's start (303 to the
// provider, binding the flow to this browser with a short cookie) and callback (303 into the dashboard with
// the session cookie, or to /sign-in?reason=… with nothing about whether an account exists).
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AreaRoutes, RequestContext } from '../../server/context.js';
import { Data, HtmlPage, NoContent, Redirect, Ref } from '../../server/schemas.js';
import { SESSION_COOKIE, cookieValue } from '../../server/guard.js';
import { ApiError } from '../../server/errors.js';
import { wantsPage } from '../../server/web.js';
import { sessionCookie } from '../dashboard/service.js';
import {
  CliLoginCodeExchange,
  CliLoginRedirect,
  CliLoginToken,
  DeviceAuthorization,
  DevicePoll,
  DeviceRequest,
  NewCliLoginCode,
  NewDeviceCode,
  SignInProvider,
  UserCodeParams,
} from './schema.js';
import * as cliLogin from './cli-login.js';
import * as oidc from './oidc.js';
import * as signIn from './service.js';
import { githubAuthorizationRequest, githubIdentity } from './github.js';
import type { UserToken } from '../../codehost/github-user.js';

const StartQuery = Type.Object({
  invite: Type.Optional(Type.String({ maxLength: 200 })),
  next: Type.Optional(Type.String({ maxLength: 2000 })),
});
const CallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 2000 })),
    state: Type.Optional(Type.String({ maxLength: 2000 })),
    error: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: true },
);
const TOO_MANY = HtmlPage(
  'Too many sign-in attempts from this address (or, at the callback, for this provider account): for a browser (an ' +
    '`Accept` naming `text/html`, not `application/json`) a page that says when to try again; otherwise the error ' +
    'envelope, code `rate_limited`.',
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

async function start(
  req: Incoming<{ invite?: string | undefined; next?: string | undefined }>,
  reply: FastifyReply,
  provider: signIn.ProviderId,
) {
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
    await signIn.saveFlow(ctx, provider, flow, req.query.invite ?? null, signIn.dashboardPath(req.query.next));
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
    return reply.redirect(joinedOrg ? `/o/${encodeURIComponent(joinedOrg)}` : (flow.next_path ?? '/'), 303);
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
            '`invite` carries an invitation token to accept once signed in; `next`, a dashboard path to ' +
            'land on (one leading `/`). Not configured: 303 to `/sign-in`.',
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
  cliLoginRoutes(app);
};

const DASHBOARD_ONLY = { guard: { credentials: ['dashboard_session' as const], factory: 'none' as const } };
const NO_STORE = 'no-store';

/** `attest login` through the browser: the loopback redirect with PKCE, and the device flow. */
export const cliLoginRoutes: AreaRoutes = (app) => {
  app.post(
    '/v1/cli-login/codes',
    {
      config: DASHBOARD_ONLY,
      schema: {
        summary: 'Confirm an `attest login` on this machine: a one-time code for its loopback redirect',
        tags: ['account'],
        description:
          'The dashboard page `/cli-login` calls this once the signed-in person confirms, then sends the ' +
          'browser to `redirectTo` (the redirect URI with `code` and `state`). The code works once, for ' +
          '60 seconds, with the PKCE verifier of `codeChallenge` and the same `redirectUri`. 400 ' +
          '`invalid_redirect_uri` unless the redirect is exactly `http://127.0.0.1:<port>/<path>`.',
        body: NewCliLoginCode,
        response: { 201: Data(Ref(CliLoginRedirect)) },
      },
    },
    async (req, reply) => {
      reply.header('Cache-Control', NO_STORE);
      return reply.status(201).send({ data: await cliLogin.issueLoginCode(req.ctx, req.body) });
    },
  );

  app.post(
    '/v1/cli-login/token',
    {
      schema: {
        summary: 'Exchange a loopback code and its PKCE verifier for a login token',
        tags: ['account'],
        description:
          'No credential: the code is one. 400 `invalid_grant` for a code that is unknown, used, expired, ' +
          'or whose verifier or redirect URI does not match (the code is used up either way). 429 ' +
          '`rate_limited` past 60 attempts a minute from one address.',
        body: CliLoginCodeExchange,
        response: { 201: Data(Ref(CliLoginToken)) },
      },
    },
    async (req, reply) => {
      reply.header('Cache-Control', NO_STORE);
      return reply.status(201).send({ data: await cliLogin.exchangeLoginCode(req.ctx, req.ip, req.body) });
    },
  );

  app.post(
    '/v1/cli-login/device',
    {
      schema: {
        summary: 'Start a device sign-in (`attest login --device`): a device code and the code a person confirms',
        tags: ['account'],
        description:
          'No credential. The person opens `verificationUri` signed in and confirms `userCode`; the CLI ' +
          'polls `POST /v1/cli-login/device/token` every `interval` seconds until then. Both codes expire ' +
          'after `expiresIn` seconds (600).',
        body: NewDeviceCode,
        response: { 201: Data(Ref(DeviceAuthorization)) },
      },
    },
    async (req, reply) => {
      reply.header('Cache-Control', NO_STORE);
      return reply.status(201).send({ data: await cliLogin.startDeviceLogin(req.ctx, req.ip, req.body.clientName) });
    },
  );

  app.post(
    '/v1/cli-login/device/token',
    {
      schema: {
        summary: 'Poll a device sign-in: the login token once the code is confirmed',
        tags: ['account'],
        description:
          'Until then 400 `authorization_pending` (with `interval`); polled sooner than `interval` after ' +
          'the last poll, 400 `slow_down` with the longer `interval` to keep from now on; 400 ' +
          '`expired_token` after 10 minutes; 400 `access_denied` when the person refused; 400 ' +
          '`invalid_grant` for an unknown or already exchanged device code.',
        body: DevicePoll,
        response: { 201: Data(Ref(CliLoginToken)) },
      },
    },
    async (req, reply) => {
      reply.header('Cache-Control', NO_STORE);
      return reply.status(201).send({ data: await cliLogin.pollDeviceLogin(req.ctx, req.ip, req.body.deviceCode) });
    },
  );

  app.get(
    '/v1/cli-login/device/:userCode',
    {
      config: DASHBOARD_ONLY,
      schema: {
        summary: 'A pending device sign-in by its user code: which machine asks, from where, since when',
        tags: ['account'],
        description:
          'For the confirmation page `/device`. 404 `device_code_not_found` when no sign-in waits for the ' +
          'code (unknown, expired, or already confirmed or refused).',
        params: UserCodeParams,
        response: { 200: Data(Ref(DeviceRequest)) },
      },
    },
    async (req) => ({ data: await cliLogin.describeUserCode(req.ctx, req.params.userCode) }),
  );

  for (const decision of ['approve', 'deny'] as const) {
    app.post(
      `/v1/cli-login/device/:userCode/${decision}`,
      {
        config: DASHBOARD_ONLY,
        schema: {
          summary:
            decision === 'approve'
              ? 'Confirm a device sign-in: the CLI that shows this code gets a login token acting as you'
              : 'Refuse a device sign-in: the CLI that shows this code gets `access_denied`',
          tags: ['account'],
          description: '404 `device_code_not_found` when no sign-in waits for the code.',
          params: UserCodeParams,
          response: { 204: NoContent },
        },
      },
      async (req, reply) => {
        await cliLogin.decideUserCode(req.ctx, req.params.userCode, decision === 'approve');
        return reply.status(204).send(null);
      },
    );
  }
};
