// Account (spec area Account): what a CLI login token can read about its owner without naming a factory.
import { Type } from 'typebox';
import type { AreaRoutes } from '../../server/context.js';
import { Data, Ref } from '../../server/schemas.js';
import { MyFactory } from '../apps/schema.js';
import { JoinedOrg } from '../orgs/schema.js';
import { acceptInvitation, myFactories } from './service.js';

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
          'The token is the last segment of the invitation link. A used, revoked or expired link answers 410; one for another email 403 `invitation_email_mismatch`.',
        body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
        response: { 201: Data(Ref(JoinedOrg)) },
      },
    },
    async (req, reply) => reply.status(201).send({ data: await acceptInvitation(req.ctx, req.body.token) }),
  );
};
