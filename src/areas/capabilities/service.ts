// What this server has, read from what is actually registered and configured (never a hand-kept list):
// the areas whose routes were registered, and features that depend on configuration or on a route existing.
import type { Gateway } from '../../server/context.js';
import { VERSION } from '../../version.js';

export interface Capabilities {
  version: string;
  apiVersion: '1.0';
  areas: string[];
  features: {
    /** Rate-limit counters shared through Redis (REDIS_URL), so limits hold across replicas. */
    redisRateLimits: boolean;
    /** Blobs in S3 rather than the data directory. */
    s3Blobs: boolean;
    /**
     * A GitHub App is configured (GITHUB_APP_ID + GITHUB_APP_PRIVATE_KEY): pull requests and repository checks work.
     */
    githubApp: boolean;
    /** The MCP protocol endpoint POST /v1/mcp is served. */
    mcp: boolean;
    /** The OAuth 2.1 authorization server for MCP connector clients is served (RFC 8414 metadata route). */
    oauth: boolean;
  };
  stores: { database: string; rateLimits: string; blobs: string };
}

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
