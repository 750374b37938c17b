// Operator routes (API.md §9): admin token only. `attest admin ...` wraps them.
import { Type } from 'typebox';
import type { AreaRoutes } from '../../server/context.js';
import { Data, DateTime, Nullable, Slug, Uuid, NoContent, Ref } from '../../server/schemas.js';
import { PERMISSIONS, ROLES } from '../../server/permissions.js';
import { APP_IDENTITY } from '../apps/schema.js';
import { Member, Org, User } from '../orgs/schema.js';
import { PLANS } from '../orgs/service.js';
import * as admin from './service.js';
import { adminBind, adminUnbind } from '../repositories/installations.js';
import { Binding, Unbound } from '../repositories/schema.js';
import { Int53 } from '../../server/schemas.js';

const Plan = Type.Union(PLANS.map((p) => Type.Literal(p)));
const Role = Type.Union(ROLES.map((r) => Type.Literal(r)));
const App = Type.Object({
  ...APP_IDENTITY,
  runner_updates: Type.Object({ mode: Type.String(), version: Nullable(Type.String()) }),
});
const OrgParams = Type.Object({ orgName: Slug });

export const adminRoutes: AreaRoutes = (app) => {
  app.post(
    '/admin/orgs',
    {
      schema: {
        summary: 'Create an organization',
        tags: ['admin'],
        body: Type.Object({ name: Slug, plan: Type.Optional(Plan) }, { additionalProperties: false }),
        response: { 201: Data(Ref(Org)) },
      },
    },
    async (req, reply) =>
      reply.status(201).send({ data: await admin.createOrg(req.ctx, req.body.name, req.body.plan ?? 'free') }),
  );

  app.patch(
    '/admin/orgs/:orgName',
    {
      schema: {
        summary: "Change an organization's plan",
        tags: ['admin'],
        params: OrgParams,
        body: Type.Object({ plan: Plan }, { additionalProperties: false }),
        response: { 200: Data(Ref(Org)) },
      },
    },
    async (req) => ({ data: await admin.changePlan(req.ctx, req.params.orgName, req.body.plan) }),
  );

  app.post(
    '/admin/users',
    {
      schema: {
        summary: 'Create a user',
        tags: ['admin'],
        body: Type.Object(
          {
            email: Type.String({ format: 'email', maxLength: 320 }),
            name: Type.String({ minLength: 1, maxLength: 200 }),
          },
          { additionalProperties: false },
        ),
        response: { 201: Data(Ref(User)) },
      },
    },
    async (req, reply) =>
      reply.status(201).send({ data: await admin.createUser(req.ctx, req.body.email, req.body.name) }),
  );

  app.post(
    '/admin/orgs/:orgName/members',
    {
      schema: {
        summary: 'Add a user to an organization',
        tags: ['admin'],
        params: OrgParams,
        body: Type.Object({ userId: Uuid, role: Role }, { additionalProperties: false }),
        response: { 201: Data(Ref(Member)) },
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send({ data: await admin.addMember(req.ctx, req.params.orgName, req.body.userId, req.body.role) }),
  );

  app.delete(
    '/admin/orgs/:orgName/members/:userId',
    {
      schema: {
        response: { 204: NoContent },
        summary: 'Remove a member',
        tags: ['admin'],
        params: Type.Object({ orgName: Slug, userId: Uuid }),
      },
    },
    async (req, reply) => {
      await admin.removeMember(req.ctx, req.params.orgName, req.params.userId);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/admin/users/:userId/login-tokens',
    {
      schema: {
        summary: 'Mint a CLI login token for a user',
        tags: ['admin'],
        params: Type.Object({ userId: Uuid }),
        response: { 201: Data(Type.Object({ token: Type.String(), id: Uuid, userId: Uuid })) },
      },
    },
    async (req, reply) => reply.status(201).send({ data: await admin.mintLoginToken(req.ctx, req.params.userId) }),
  );

  app.delete(
    '/admin/login-tokens/:tokenId',
    {
      schema: {
        response: { 204: NoContent },
        summary: 'Revoke a CLI login token',
        tags: ['admin'],
        params: Type.Object({ tokenId: Uuid }),
        description:
          'The token and every dashboard session signed in with it stop working (on other replicas within ' +
          'ATTEST_AUTH_CACHE_MS).',
      },
    },
    async (req, reply) => {
      await admin.revokeLoginToken(req.ctx, req.params.tokenId);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/admin/orgs/:orgName/management-keys',
    {
      schema: {
        summary: 'Mint an org management key',
        tags: ['admin'],
        params: OrgParams,
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 100 }),
            createdBy: Uuid,
            permissions: Type.Array(Type.Union(PERMISSIONS.map((p) => Type.Literal(p))), {
              maxItems: PERMISSIONS.length,
              uniqueItems: true,
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Data(
            Type.Object({
              key: Type.String(),
              id: Uuid,
              name: Type.String(),
              permissions: Type.Array(Type.String()),
              key_prefix: Type.String(),
              created_at: DateTime,
              created_by: Uuid,
            }),
          ),
        },
      },
    },
    async (req, reply) =>
      reply.status(201).send({
        data: await admin.mintManagementKey(
          req.ctx,
          req.params.orgName,
          req.body.name,
          req.body.createdBy,
          req.body.permissions,
        ),
      }),
  );

  app.post(
    '/admin/orgs/:orgName/apps',
    {
      schema: {
        summary: 'Create a factory in an organization',
        tags: ['admin'],
        params: OrgParams,
        body: Type.Object(
          { name: Slug, display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
          { additionalProperties: false },
        ),
        response: { 201: Data(App) },
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send({ data: await admin.createApp(req.ctx, req.params.orgName, req.body.name, req.body.display_name) }),
  );

  app.post(
    '/admin/apps/:appId/installations',
    {
      schema: {
        summary: "Bind a GitHub App installation to a factory (the operator's way; users use the install link)",
        tags: ['admin'],
        description:
          '201 when bound, 200 when the factory already had it. 404 app_not_found; 404 installation_not_found when ' +
          'GitHub does not know the installation; 503 repository_tokens_unavailable without a GitHub App.',
        params: Type.Object({ appId: Uuid }),
        body: Type.Object({ installationId: Int53({ minimum: 1 }) }, { additionalProperties: false }),
        response: { 200: Data(Binding), 201: Data(Binding) },
      },
    },
    async (req, reply) => {
      const { binding, created } = await adminBind(req.ctx, req.params.appId.toLowerCase(), req.body.installationId);
      return reply.status(created ? 201 : 200).send({ data: binding });
    },
  );

  app.delete(
    '/admin/apps/:appId/installations/:installationId',
    {
      schema: {
        summary: 'Unbind a GitHub App installation from a factory, disconnecting the repositories connected through it',
        tags: ['admin'],
        description:
          '200 with the repositories disconnected along with it. 404 app_not_found; 404 ' +
          'installation_binding_not_found when the factory has no binding of it. Needs no GitHub call.',
        params: Type.Object({ appId: Uuid, installationId: Int53({ minimum: 1 }) }),
        response: { 200: Data(Unbound) },
      },
    },
    async (req) => ({ data: await adminUnbind(req.ctx, req.params.appId.toLowerCase(), req.params.installationId) }),
  );
};
