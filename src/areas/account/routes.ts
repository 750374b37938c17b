// Account (spec area Account): what a CLI login token can read about its owner without naming a factory.
import { Type } from 'typebox';
import type { AreaRoutes } from '../../server/context.js';
import { Data, Uuid } from '../../server/schemas.js';
import { myFactories } from './service.js';

const MyFactory = Type.Object({
  id: Uuid,
  name: Type.String(),
  display_name: Type.String(),
  org: Type.Object({ id: Uuid, name: Type.String() }),
  role: Type.String(),
});

export const accountRoutes: AreaRoutes = (app) => {
  app.get('/me/factories', {
    // A login token with no factory header resolves to its owner with no permissions; none is needed here.
    config: { guard: { credentials: ['login_token'], factory: 'none' } },
    schema: {
      summary: "Every factory the login token's owner can use, across their organizations", tags: ['account'],
      response: { 200: Data(Type.Array(MyFactory)) },
    },
  }, async (req) => ({ data: await myFactories(req.ctx) }));
};
