// Dashboard sign-in routes (DASHBOARD-CONTRACT.md, API.md §10): the only private routes the dashboard uses.
import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import type { AreaRoutes } from '../../server/context.js';
import type { Config } from '../../server/config.js';
import { Data, NoContent, Redirect, Ref } from '../../server/schemas.js';
import { SESSION_COOKIE } from '../../server/guard.js';
import { DashboardSession, SignInLink } from './schema.js';
import * as dashboard from './service.js';

function setSession(reply: FastifyReply, config: Config, session: dashboard.NewSession): void {
  reply.header('Set-Cookie', dashboard.sessionCookie(config, SESSION_COOKIE, session.id, session.maxAgeSeconds));
  reply.header('Cache-Control', 'no-store');
}

export const dashboardRoutes: AreaRoutes = (app) => {
  app.post(
    '/v1/me/dashboard-links',
    {
      config: { guard: { credentials: ['login_token'], factory: 'none' } },
      schema: {
        summary: 'A one-time dashboard sign-in link for the caller',
        tags: ['dashboard'],
        description:
          'Single use, valid 10 minutes. Opening it signs the browser in as the login token (or dashboard session) ' +
          'that asked for it.',
        response: { 201: Data(SignInLink) },
      },
    },
    async (req, reply) => reply.status(201).send({ data: await dashboard.createLink(req.ctx) }),
  );

  app.get(
    '/auth/link/:token',
    {
      config: { guard: { credentials: 'public' } },
      schema: {
        summary: 'Open a sign-in link',
        tags: ['dashboard'],
        description:
          'A live link sets the session cookie and answers 303 to `/`; a used, expired or unknown one answers 303 to ' +
          '`/sign-in?reason=used|expired|invalid`.',
        params: Type.Object({ token: Type.String() }),
        response: {
          303: Redirect(
            'Signed in (with `Set-Cookie`), or the link did not sign in.',
            '`/` when signed in; `/sign-in?reason=used|expired|invalid` otherwise.',
          ),
        },
      },
    },
    async (req, reply) => {
      const outcome = await dashboard.openLink(req.ctx, req.params.token);
      reply.header('Cache-Control', 'no-store');
      reply.header('Referrer-Policy', 'no-referrer');
      if (!outcome.ok) return reply.redirect(`/sign-in?reason=${outcome.reason}`, 303);
      setSession(reply, req.ctx.config, outcome.session);
      return reply.redirect('/', 303);
    },
  );

  app.post(
    '/v1/dashboard/session',
    {
      config: { guard: { credentials: 'public', dashboardHeader: true } },
      schema: {
        summary: 'Sign the browser in with a pasted login token',
        tags: ['dashboard'],
        description:
          'Needs the header `X-Attest-Dashboard: 1`. Only a login token signs in; an API key, item key, management ' +
          'key or admin token answers 401.',
        body: Type.Object(
          { loginToken: Type.String({ minLength: 1, maxLength: 200 }) },
          { additionalProperties: false },
        ),
        response: { 201: Data(Ref(DashboardSession)) },
      },
    },
    async (req, reply) => {
      const session = await dashboard.signIn(req.ctx, req.body.loginToken);
      setSession(reply, req.ctx.config, session);
      return reply.status(201).send({ data: { user: session.user, expiresAt: session.expiresAt } });
    },
  );

  app.get(
    '/v1/dashboard/session',
    {
      config: { guard: { credentials: ['dashboard_session'], factory: 'none' } },
      schema: {
        summary: 'Who the dashboard session cookie signs in',
        tags: ['dashboard'],
        response: { 200: Data(Ref(DashboardSession)) },
      },
    },
    async (req, reply) => {
      reply.header('Cache-Control', 'no-store');
      return { data: await dashboard.currentSession(req.ctx) };
    },
  );

  app.delete(
    '/v1/dashboard/session',
    {
      config: { guard: { credentials: ['dashboard_session'], factory: 'none' } },
      schema: {
        response: { 204: NoContent },
        summary: 'Sign out: revoke the session and clear its cookie',
        tags: ['dashboard'],
        description: 'Needs the header `X-Attest-Dashboard: 1`.',
      },
    },
    async (req, reply) => {
      await dashboard.signOut(req.ctx);
      reply.header('Set-Cookie', dashboard.sessionCookie(req.ctx.config, SESSION_COOKIE, '', 0));
      return reply.status(204).send(null);
    },
  );
};
