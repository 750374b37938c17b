// Repositories (API.md §6): GET/POST /v1/repositories, DELETE /v1/repositories/{owner}/{repo}.
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, Int53, NoContent, Redirect, Uuid } from '../../server/schemas.js';
import type { FastifyRequest } from 'fastify';
import { ApiError, apiError } from '../../server/errors.js';
import { SESSION_COOKIE, cookieValue } from '../../server/guard.js';
import { wantsPage } from '../../server/web.js';
import { parsePlaintext } from '../../server/credentials.js';
import { connectRepository, disconnectRepository, listRepositories } from './service.js';
import { completeInstall, issueInstallLink, listBindings, unbindFromFactory } from './installations.js';
import { Binding, ConnectRepository, InstallLink, NAME, OWNER, RepositoryEntry, Unbound } from './schema.js';

/** The user of the dashboard session the browser carries (the setup URL is public: GitHub sends the browser). */
async function sessionUserOf(req: FastifyRequest): Promise<string | null> {
  const plaintext = cookieValue(req, SESSION_COOKIE);
  if (!plaintext || parsePlaintext(plaintext) !== 'dashboard_session') return null;
  try {
    const principal = await req.ctx.gateway.auth.resolve(plaintext, null);
    return principal.kind === 'dashboard_session' ? principal.userId : null;
  } catch {
    return null; // a session that ended is no session
  }
}

export const repositoriesRoutes: AreaRoutes = (app) => {
  app.get(
    '/repositories',
    {
      config: { guard: { permission: 'repositories.read' } },
      schema: {
        summary: "List the factory's connected repositories with what the App installation lets builds do",
        tags: ['repositories'],
        description:
          'Read live from GitHub. 503 repository_tokens_unavailable without a GitHub App; 503 github_unavailable ' +
          '(Retry-After) when GitHub is failing or rate limiting.',
        response: { 200: Data(Type.Array(RepositoryEntry)) },
      },
    },
    async (req) => ({ data: await listRepositories(factoryContext(req.ctx)) }),
  );

  app.post(
    '/repositories',
    {
      config: { guard: { permission: 'repositories.write' } },
      schema: {
        summary: 'Connect a repository of a GitHub App installation',
        tags: ['repositories'],
        description:
          '201 when connected, 200 when it was already connected (the installation is updated). 422 ' +
          'installation_not_bound when the installation is not bound to this factory (install link or operator, ' +
          'see docs/github-app.md); 422 repository_not_in_installation when the installation does not list the ' +
          'repository or does not exist.',
        body: ConnectRepository,
        response: { 200: Data(RepositoryEntry), 201: Data(RepositoryEntry) },
      },
    },
    async (req, reply) => {
      const { entry, created } = await connectRepository(factoryContext(req.ctx), req.body);
      return reply.status(created ? 201 : 200).send({ data: entry });
    },
  );

  app.post(
    '/github/install-links',
    {
      // A person installs the App on GitHub, so only a person's credential asks for the link.
      config: { guard: { credentials: ['login_token'], permission: 'repositories.write' } },
      schema: {
        summary: "The GitHub App's install URL with a state bound to this factory and user",
        tags: ['repositories'],
        description:
          "Open `url` in a browser and install (or reconfigure) the App; GitHub sends the browser back to the App's " +
          'setup URL, `GET /v1/github/setup`, which binds the installation to this factory. The state is signed, ' +
          'single use and expires at `expiresAt` (30 minutes). Login tokens and dashboard sessions only (an API ' +
          'key gets 401: a person installs the App). 503 repository_tokens_unavailable without a GitHub App.',
        response: {
          201: Data(InstallLink),
        },
      },
    },
    async (req, reply) => reply.status(201).send({ data: await issueInstallLink(factoryContext(req.ctx)) }),
  );

  app.get(
    '/github/installations',
    {
      config: { guard: { permission: 'repositories.read' } },
      schema: {
        summary: 'The App installations bound to this factory (the ones it may connect repositories from)',
        tags: ['repositories'],
        response: { 200: Data(Type.Array(Binding)) },
      },
    },
    async (req) => ({ data: await listBindings(factoryContext(req.ctx)) }),
  );

  app.delete(
    '/github/installations/:installationId',
    {
      config: { guard: { permission: 'repositories.write' } },
      schema: {
        summary: 'Unbind an App installation from this factory, disconnecting the repositories connected through it',
        tags: ['repositories'],
        description:
          '200 with the repositories disconnected along with it (each is also a `repository.disconnected` in the ' +
          'audit log, beside `installation.unbound`). The installation stays installed on GitHub: uninstall it ' +
          'there to revoke the App everywhere. 404 installation_binding_not_found when this factory has no binding ' +
          'of it. Needs no GitHub call.',
        params: Type.Object({ installationId: Int53({ minimum: 1 }) }),
        response: { 200: Data(Unbound) },
      },
    },
    async (req) => ({ data: await unbindFromFactory(factoryContext(req.ctx), req.params.installationId) }),
  );

  app.get(
    '/github/setup',
    {
      // GitHub redirects the browser here; the signed state, not a credential, says which factory and user.
      config: { guard: { credentials: 'public' } },
      schema: {
        summary: "The GitHub App's setup URL: binds the installation to the factory the install link was issued for",
        tags: ['repositories'],
        description:
          'Set it as the App\'s **Setup URL** (with "Redirect on update" on). 200 when bound (or already bound); a ' +
          "browser (an `Accept` naming `text/html` and not `application/json`, as GitHub's redirect sends) gets " +
          "303 to the factory's settings page, `/f/{appId}/settings?installed={installationId}`, instead. The " +
          'installation_id GitHub sends is not signed, so the browser must carry the dashboard session (cookie) of ' +
          'the user the link was issued to, who signed in with GitHub in the last 8 hours, and that GitHub account ' +
          'must reach the installation (`GET /user/installations` with its token). 400 invalid_install_state (not ' +
          'signed by this gateway, altered, or its user can no longer connect repositories there); 410 ' +
          'install_state_expired; 409 install_state_used (each link works once); 403 github_sign_in_required (no ' +
          'such session; a browser gets 303 to `/sign-in?reason=github-install` instead); 404 ' +
          'installation_not_found (GitHub does not know the installation); 403 installation_not_reachable (that ' +
          'GitHub account cannot reach it; a browser: 303 to `/sign-in?reason=installation-unreachable`); none of ' +
          'these refusals spends the state; 400 invalid_query_params when installation_id is missing (GitHub sends ' +
          'none while an organization owner has yet to approve the install: open a new link once approved).',
        querystring: Type.Object({
          installation_id: Type.Optional(Int53({ minimum: 1 })),
          state: Type.String({ minLength: 1, maxLength: 1000 }),
          setup_action: Type.Optional(
            Type.String({ maxLength: 20, description: 'install, update or request (sent by GitHub; not used)' }),
          ),
          code: Type.Optional(
            Type.String({
              maxLength: 100,
              description: 'sent by GitHub when the App asks for user authorization during install; not used',
            }),
          ),
        }),
        response: {
          200: Data(
            Type.Object({
              appId: Uuid,
              installation: Binding,
              created: Type.Boolean({ description: 'false when the factory already had this installation' }),
            }),
          ),
          303: Redirect(
            'Bound, a browser is sent to the dashboard; or a browser must sign in with GitHub first.',
            '`/f/{appId}/settings?installed={installationId}`, or `/sign-in?reason=github-install` or ' +
              '`installation-unreachable`',
          ),
        },
      },
    },
    async (req, reply) => {
      const { installation_id: installationId, state } = req.query;
      if (installationId === undefined) {
        throw apiError(
          'invalid_query_params',
          'installation_id is missing: GitHub sends none while an organization owner has yet to approve the ' +
            'installation. Once it is approved, open a new install link.',
          {
            details: [{ path: 'installation_id', message: 'is required' }],
          },
        );
      }
      let bound: Awaited<ReturnType<typeof completeInstall>>;
      try {
        bound = await completeInstall(req.ctx, installationId, state, await sessionUserOf(req));
      } catch (err) {
        // A person who must sign in with GitHub (or with another GitHub account) is shown the sign-in page that
        // says so; the state is not spent, so the install link works once they have.
        const reason =
          err instanceof ApiError &&
          { github_sign_in_required: 'github-install', installation_not_reachable: 'installation-unreachable' }[
            err.code as string
          ];
        if (reason && wantsPage(req.headers.accept))
          return reply.header('Cache-Control', 'no-store').redirect(`/sign-in?reason=${reason}`, 303);
        throw err;
      }
      const { appId, binding, created } = bound;
      // GitHub sends the person's browser here: show them the factory's settings with the installation bound,
      // not a JSON body. Any other refusal stays the error envelope, whose message says what to do.
      if (wantsPage(req.headers.accept))
        return reply
          .header('Cache-Control', 'no-store')
          .redirect(`/f/${appId}/settings?installed=${binding.installationId}`, 303);
      return { data: { appId, installation: binding, created } };
    },
  );

  app.delete(
    '/repositories/:owner/:repo',
    {
      config: { guard: { permission: 'repositories.write' } },
      schema: {
        response: { 204: NoContent },
        summary: 'Disconnect a repository',
        tags: ['repositories'],
        description: '204; 404 repository_not_found when it is not connected. Needs no GitHub call.',
        params: Type.Object({
          owner: Type.String({ pattern: `^${OWNER}$` }),
          repo: Type.String({ pattern: `^${NAME}$` }),
        }),
      },
    },
    async (req, reply) => {
      await disconnectRepository(factoryContext(req.ctx), `${req.params.owner}/${req.params.repo}`);
      return reply.status(204).send(null);
    },
  );
};
