// Factories (apps): GET/POST /v1/apps, GET/PATCH/DELETE /v1/apps/{appId} (spec part 2 App, part 5 rule 4).
import { Type } from 'typebox';
import { factoryContext, type AreaRoutes } from '../../server/context.js';
import { Data, Uuid, NoContent, Ref } from '../../server/schemas.js';
import { App, CreateAppBody, ListAppsQuery, UpdateAppBody } from './schema.js';
import { createAppInOrg, deleteApp, getApp, listApps, updateApp } from './service.js';

// The path parameter is checked by the guard first (403 when it names another factory), so by the time
// the schema sees it, it is the uuid of the factory the caller acts on.
const AppParams = Type.Object({ appId: Uuid });

export const appsRoutes: AreaRoutes = (app) => {
  app.get(
    '/apps',
    {
      config: { guard: { permission: 'apps.read' } },
      schema: {
        summary: 'List the factories the caller may see',
        tags: ['apps'],
        description:
          'A login token sees every live factory of the org of the factory its header names; a factory key sees only ' +
          'its own factory. `name` keeps only the factory of that exact name; `limit`/`offset` page the list ' +
          '(ordered as before).',
        querystring: ListAppsQuery,
        response: { 200: Data(Type.Array(Ref(App))) },
      },
    },
    async (req) => ({ data: await listApps(factoryContext(req.ctx), req.query) }),
  );

  app.post(
    '/apps',
    {
      config: { guard: { permission: 'apps.write' } },
      schema: {
        summary: "Create a factory in the caller's organization",
        tags: ['apps'],
        description:
          'Names are slugs, unique per organization case-insensitively (stored lower case); 409 duplicate_app_name ' +
          'otherwise.',
        body: CreateAppBody,
        response: { 201: Data(Ref(App)) },
      },
    },
    async (req, reply) => {
      return reply.status(201).send({ data: await createAppInOrg(factoryContext(req.ctx), req.body) });
    },
  );

  app.get(
    '/apps/:appId',
    {
      config: { guard: { permission: 'apps.read', appParam: 'appId' } },
      schema: { summary: 'Read one factory', tags: ['apps'], params: AppParams, response: { 200: Data(Ref(App)) } },
    },
    async (req) => ({ data: await getApp(factoryContext(req.ctx), req.params.appId) }),
  );

  app.patch(
    '/apps/:appId',
    {
      config: { guard: { permission: 'apps.write', appParam: 'appId' } },
      schema: {
        summary: 'Rename a factory, change how its runners update, or turn the living PR comment on or off',
        tags: ['apps'],
        description:
          '`runner_updates.mode` follow (runners track the version the gateway recommends, answered as `version`; ' +
          'send no version) or pin (runners stay on `version`, a semantic version). `pr_comment` off (default) or ' +
          'on: the evidence comment the GitHub App keeps on each pull request. `pr_check` off (default) or on: the ' +
          "`Attest evidence` check run on each pull request's head commit. `retention` (any of its fields; the " +
          'others keep their value): changing it also needs `sessions.delete` (owners), since it deletes evidence ' +
          'on a schedule; 400 invalid_request_body when a later step comes before an earlier one.',
        params: AppParams,
        body: UpdateAppBody,
        response: { 200: Data(Ref(App)) },
      },
    },
    async (req) => ({ data: await updateApp(factoryContext(req.ctx), req.params.appId, req.body) }),
  );

  app.delete(
    '/apps/:appId',
    {
      config: { guard: { permission: 'apps.write', appParam: 'appId' } },
      schema: {
        response: { 204: NoContent },
        summary: 'Delete (tombstone) a factory and revoke its keys',
        tags: ['apps'],
        description:
          'The factory disappears from every read, its name becomes free, and every key bound to it is revoked at ' +
          'once.',
        params: AppParams,
      },
    },
    async (req, reply) => {
      await deleteApp(factoryContext(req.ctx), req.params.appId);
      return reply.status(204).send(null);
    },
  );
};
