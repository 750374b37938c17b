// Account (spec area Account): what a CLI login token can read about its owner without naming a factory.
import { Type } from 'typebox';
import type { AreaRoutes } from '../../server/context.js';
import { Data, Ref } from '../../server/schemas.js';
import { MyFactory } from '../apps/schema.js';
import { myFactories } from './service.js';

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
};
