// The capabilities area's contract: the route serializes with it, the service returns its type.
import { Type, type Static } from 'typebox';

export const Capabilities = Type.Object({
  version: Type.String({ description: 'Gateway version.' }),
  apiVersion: Type.Literal('1.0'),
  areas: Type.Array(Type.String(), { description: 'Areas whose routes this server registered.' }),
  features: Type.Object({
    /** Rate-limit counters shared through Redis (REDIS_URL), so limits hold across replicas. */
    redisRateLimits: Type.Boolean(),
    /** Blobs in S3 rather than the data directory. */
    s3Blobs: Type.Boolean(),
    /** A GitHub App is configured (GITHUB_APP_ID + GITHUB_APP_PRIVATE_KEY): pull requests and checks work. */
    githubApp: Type.Boolean(),
    /** The MCP protocol endpoint POST /v1/mcp is served. */
    mcp: Type.Boolean(),
    /** The OAuth 2.1 authorization server for MCP connector clients is served (RFC 8414 metadata route). */
    oauth: Type.Boolean(),
  }),
  stores: Type.Object({
    database: Type.String({ description: 'sqlite | postgres' }),
    rateLimits: Type.String({ description: 'memory | redis' }),
    blobs: Type.String({ description: 'fs | s3' }),
  }),
});
export type Capabilities = Static<typeof Capabilities>;
