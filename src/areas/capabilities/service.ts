// What this server has, read from what is actually registered and configured (never a hand-kept list):
// the areas whose routes were registered, and features that depend on configuration or on a route existing.
import type { Gateway } from '../../server/context.js';
import { VERSION } from '../../version.js';
import type { Capabilities } from './schema.js';

/** `hasRoute` answers for a method and URL pattern exactly as registered. */
export interface RouteTable {
  hasRoute(route: { method: 'GET' | 'POST'; url: string }): boolean;
}

export function capabilities(gateway: Gateway, routes: RouteTable): Capabilities {
  const { config } = gateway;
  return {
    version: VERSION,
    apiVersion: '1.0',
    areas: [...gateway.areas].sort(),
    features: {
      redisRateLimits: gateway.rateLimits.store === 'redis',
      s3Blobs: gateway.blobs.kind === 's3',
      githubApp: Boolean(config.github.appId && config.github.privateKey),
      mcp: routes.hasRoute({ method: 'POST', url: '/v1/mcp' }),
      oauth: routes.hasRoute({ method: 'GET', url: '/.well-known/oauth-authorization-server' }),
    },
    stores: { database: gateway.dialect, rateLimits: gateway.rateLimits.store, blobs: gateway.blobs.kind },
  };
}
