// Repositories (API.md §6): GET/POST /v1/repositories, DELETE /v1/repositories/{owner}/{repo}.
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, Int53, NoContent } from '../../server/schemas.js';
import { connectRepository, disconnectRepository, listRepositories } from './service.js';

/** GitHub's owner and repository name rules (owner ≤ 39, name ≤ 100, letters, digits, - _ .). */
const OWNER = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})';
const NAME = '[A-Za-z0-9_.-]{1,100}';
export const RepositoryName = Type.String({ pattern: `^${OWNER}/${NAME}$`, maxLength: 140, description: '`owner/repo`' });

const Entry = Type.Object({
  repository: Type.String({ description: '`owner/repo` as GitHub spells it' }),
  connected: Type.Boolean(),
  installationId: Type.Integer(),
  defaultBranch: Type.String(),
  pullRequestWrite: Type.Union([Type.Literal('granted'), Type.Literal('pending'), Type.Literal('missing')], {
    description: 'granted: the installation lets the App open pull requests; pending: the App asks for pull request write but the installation has not accepted it; missing: the App does not ask for it, or the installation no longer includes the repository',
  }),
  commentWrite: Type.Union([Type.Literal('granted'), Type.Literal('pending'), Type.Literal('missing')], {
    description: 'Whether the App may keep the PR comment (pr_comment) on pull requests here: granted when the installation has pull requests write or issues write; pending when the App asks for one but the installation has not accepted it; missing otherwise',
  }),
  defaultBranchRequiresPullRequest: Type.Boolean({ description: 'a pull_request branch rule or classic protection with required reviews applies to the default branch' }),
});

const READ = { credentials: ['factory_key', 'login_token'], permission: 'repositories.read' } as const;
const WRITE = { credentials: ['factory_key', 'login_token'], permission: 'repositories.write' } as const;

export const repositoriesRoutes: AreaRoutes = (app) => {
  app.get('/v1/repositories', {
    config: { guard: READ },
    schema: {
      summary: "List the factory's connected repositories with what the App installation lets builds do", tags: ['repositories'],
      description: 'Read live from GitHub. 503 repository_tokens_unavailable without a GitHub App; 503 github_unavailable (Retry-After) when GitHub is failing or rate limiting.',
      response: { 200: Data(Type.Array(Entry)) },
    },
  }, async (req) => ({ data: await listRepositories(factoryContext(req.ctx)) }));

  app.post('/v1/repositories', {
    config: { guard: WRITE },
    schema: {
      summary: 'Connect a repository of a GitHub App installation', tags: ['repositories'],
      description: '201 when connected, 200 when it was already connected (the installation is updated). 422 repository_not_in_installation when the installation does not list the repository or does not exist.',
      body: Type.Object({
        repository: RepositoryName,
        installationId: Int53({ minimum: 1 }),
      }, { additionalProperties: false }),
      response: { 200: Data(Entry), 201: Data(Entry) },
    },
  }, async (req, reply) => {
    const { entry, created } = await connectRepository(factoryContext(req.ctx), req.body);
    return reply.status(created ? 201 : 200).send({ data: entry });
  });

  app.delete('/v1/repositories/:owner/:repo', {
    config: { guard: WRITE },
    schema: { response: { 204: NoContent },
      summary: 'Disconnect a repository', tags: ['repositories'],
      description: '204; 404 repository_not_found when it is not connected. Needs no GitHub call.',
      params: Type.Object({ owner: Type.String({ pattern: `^${OWNER}$` }), repo: Type.String({ pattern: `^${NAME}$` }) }),
    },
  }, async (req, reply) => {
    await disconnectRepository(factoryContext(req.ctx), `${req.params.owner}/${req.params.repo}`);
    return reply.status(204).send(null);
  });
};
