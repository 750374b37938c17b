// The public price list: the catalog of src/pricing/ at the gateway's clock, optionally for one provider.
import { apiError } from '../../server/errors.js';
import type { RequestContext } from '../../server/context.js';
import { priceCatalog, priceProviders, type PriceCatalog } from '../../pricing/catalog.js';

export async function listPrices(ctx: RequestContext, query: { provider?: string }): Promise<PriceCatalog> {
  if (query.provider !== undefined) {
    const known = await priceProviders();
    if (!known.includes(query.provider.toLowerCase())) {
      throw apiError('invalid_query_params', `Unknown provider "${query.provider.slice(0, 60)}".`, {
        details: [{ path: 'provider', message: `is not a known provider (one of: ${known.join(', ')})` }],
      });
    }
  }
  return priceCatalog(ctx.clock.now(), query);
}
