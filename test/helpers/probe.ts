// Probe routes registered only in tests, to exercise the guard, rate limits and error mapping on route
// shapes whose real routes live in other areas. They go through the same plugins as every real route, and
// document their answers like one (the OpenAPI drift check holds them to it).
import { Type } from 'typebox';
import type { Area } from '../../src/areas/index.js';
import { Data, Nullable } from '../../src/server/schemas.js';

const ok = { response: { 200: Data(Type.Object({ ok: Type.Boolean() })) } };

export const probeArea: Area = {
  name: 'probe',
  routes: (app) => {
    app.get(
      '/v1/orgs/:orgName/probe',
      {
        config: {
          guard: { credentials: ['management_key'], factory: 'none', orgParam: 'orgName', permission: 'members.read' },
        },
        schema: {
          params: Type.Object({ orgName: Type.String() }),
          response: { 200: Data(Type.Object({ orgId: Nullable(Type.String()) })) },
        },
      },
      async (req) => ({ data: { orgId: req.ctx.principal?.orgId ?? null } }),
    );

    app.get(
      '/v1/probe/apps/:appId',
      {
        config: { guard: { credentials: ['factory_key', 'login_token'], appParam: 'appId', permission: 'apps.read' } },
        schema: {
          params: Type.Object({ appId: Type.String() }),
          response: { 200: Data(Type.Object({ appId: Nullable(Type.String()) })) },
        },
      },
      async (req) => ({ data: { appId: req.ctx.principal?.appId ?? null } }),
    );

    app.get(
      '/v1/probe/observability',
      {
        config: {
          guard: { credentials: ['factory_key', 'login_token'], permission: 'sessions.read' },
          rateLimit: 'observability-read',
        },
        schema: ok,
      },
      async () => ({ data: { ok: true } }),
    );

    app.get(
      '/v1/probe/detail',
      {
        config: {
          guard: { credentials: ['factory_key', 'login_token'], permission: 'sessions.read' },
          rateLimit: 'session-detail',
        },
        schema: ok,
      },
      async () => ({ data: { ok: true } }),
    );

    app.get('/v1/probe/boom', { config: { guard: { credentials: 'public' } } }, async () => {
      throw new Error('select secret_column from credentials where digest = 42 /work/main/src/x.ts:12');
    });

    app.get(
      '/v1/probe/store',
      {
        config: { guard: { credentials: ['factory_key'] } },
        schema: { response: { 200: Data(Type.Object({ rows: Type.Integer() })) } },
      },
      async (req) => {
        const rows = await req.ctx.db.selectFrom('orgs').select('id').limit(1).execute();
        return { data: { rows: rows.length } };
      },
    );

    app.post(
      '/v1/probe/echo',
      {
        config: { guard: { credentials: 'public' } },
        schema: {
          body: Type.Object(
            { name: Type.String({ minLength: 1 }), count: Type.Integer({ minimum: 0, maximum: 10 }) },
            { additionalProperties: false },
          ),
          querystring: Type.Object(
            { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) },
            { additionalProperties: false },
          ),
          response: { 200: Data(Type.Object({ name: Type.String(), count: Type.Integer() })) },
        },
      },
      async (req) => ({ data: req.body }),
    );

    app.get(
      '/v1/probe/item/:id',
      {
        config: { guard: { credentials: ['factory_key'], permission: 'work.read' } },
        schema: {
          params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
          response: { 200: Data(Type.Object({ id: Type.String() })) },
        },
      },
      async (req) => ({ data: { id: req.params.id } }),
    );
  },
};
