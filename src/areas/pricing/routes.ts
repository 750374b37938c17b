// GET /v1/pricing: per-model LLM prices (public, no credential), from @pydantic/genai-prices.
import { Type } from 'typebox';
import type { AreaRoutes } from '../../server/context.js';
import { Data, Nullable } from '../../server/schemas.js';
import { listPrices } from './service.js';

const TokenPrice = Nullable(
  Type.Object({
    perMTok: Type.Number({ minimum: 0, description: 'USD per million tokens (the base rate).' }),
    tiers: Type.Array(
      Type.Object({
        startTokens: Type.Integer({
          minimum: 0,
          description: 'The rate applies when the request has at least this many input tokens.',
        }),
        perMTok: Type.Number({ minimum: 0 }),
      }),
    ),
  }),
);

const ModelPrice = Type.Object({
  provider: Type.String({ description: 'Provider id, e.g. anthropic, openai, google.' }),
  providerName: Type.String(),
  model: Type.String({ description: 'Model id as genai-prices names it.' }),
  name: Nullable(Type.String()),
  input: TokenPrice,
  output: TokenPrice,
  cacheRead: TokenPrice,
  cacheWrite: TokenPrice,
  cacheWrite1h: TokenPrice,
  conditional: Type.Boolean({
    description: 'The prices change with time (dated change or time-of-day rate); these are the ones in force at `at`.',
  }),
  deprecated: Type.Boolean(),
});

export const pricingRoutes: AreaRoutes = (app) => {
  app.get(
    '/pricing',
    {
      config: { guard: { credentials: 'public' } },
      schema: {
        summary: 'Per-model LLM prices (input, output, cache read, cache write per million tokens)',
        tags: ['pricing'],
        description:
          'Prices come from @pydantic/genai-prices; `version` is that data version. A price is null when the ' +
          'provider does not charge for that kind of token separately.',
        querystring: Type.Object(
          {
            provider: Type.Optional(
              Type.String({ minLength: 1, maxLength: 100, description: 'Only this provider id.' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Data(
            Type.Object({
              source: Type.Literal('@pydantic/genai-prices'),
              version: Type.String(),
              currency: Type.Literal('USD'),
              unit: Type.Literal('per_million_tokens'),
              at: Type.String({
                format: 'date-time',
                description: 'The instant conditional prices were resolved for.',
              }),
              models: Type.Array(ModelPrice),
            }),
          ),
        },
      },
    },
    async (req, reply) => {
      const catalog = await listPrices(req.ctx, req.query);
      reply.header('Cache-Control', 'public, max-age=300');
      return { data: { ...catalog, at: new Date(catalog.at).toISOString() } };
    },
  );
};
