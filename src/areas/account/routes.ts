// Account (spec area Account): what a CLI login token can read about its owner without naming a factory.
import { Type } from 'typebox';
import type { AreaRoutes } from '../../server/context.js';
import { Data, NoContent, Ref, Uuid } from '../../server/schemas.js';
import { MyFactory } from '../apps/schema.js';
import { JoinedOrg } from '../orgs/schema.js';
import { MyLoginToken } from './schema.js';
import { acceptInvitation, myFactories, myLoginTokens, revokeMyLoginToken } from './service.js';

export const accountRoutes: AreaRoutes = (app) => {
  app.get(
    '/me/factories',
    {
      // A login token with no factory header resolves to its owner with no permissions; none is needed here.
      config: { guard: { credentials: ['login_token'], factory: 'none' } },
      schema: {
        summary: "Every factory the login token's owner can use, across their organizations",
        tags: ['account'],
        response: { 200: Data(Type.Array(Ref(MyFactory))) },
      },
    },
    async (req) => ({ data: await myFactories(req.ctx) }),
  );

  app.post(
    '/invitations/accept',
    {
      config: { guard: { credentials: ['login_token'], factory: 'none' } },
      schema: {
        summary: 'Accept an invitation: the signed-in user joins its organization with its role',
        tags: ['account'],
        description:
          'The token is the last segment of the invitation link. A used, revoked or expired link answers ' +
          '410; one for another email 403 `invitation_email_mismatch`.',
        body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
        response: { 201: Data(Ref(JoinedOrg)) },
      },
    },
    async (req, reply) => reply.status(201).send({ data: await acceptInvitation(req.ctx, req.body.token) }),
  );

  app.get(
    '/me/login-tokens',
    {
      config: { guard: { credentials: ['login_token'], factory: 'none' } },
      schema: {
        summary: "The caller's own live login tokens: the CLI's and those behind dashboard sessions",
        tags: ['account'],
        description: 'Newest first. `current` marks the token the request is made with (or its session came from).',
        response: { 200: Data(Type.Array(Ref(MyLoginToken))) },
      },
    },
    async (req, reply) => {
      reply.header('Cache-Control', 'no-store');
      return { data: await myLoginTokens(req.ctx) };
    },
  );

  app.delete(
    '/me/login-tokens/:tokenId',
    {
      config: { guard: { credentials: ['login_token'], factory: 'none' } },
      schema: {
        summary: 'Revoke one of your own login tokens',
        tags: ['account'],
        description:
          'The token and every dashboard session signed in with it stop working. 404 ' +
          "`login_token_not_found` for an id that is not a live login token of yours (another person's " +
          'included).',
        params: Type.Object({ tokenId: Uuid }),
        response: { 204: NoContent },
      },
    },
    async (req, reply) => {
      await revokeMyLoginToken(req.ctx, req.params.tokenId);
      return reply.status(204).send(null);
    },
  );
};
