// What an area is to the server: a name, the path its routes live under, the route config its routes share,
// the shared schemas it names, and the function that declares its routes. app.ts registers each one.
import type { FastifyContextConfig } from 'fastify';
import type { TSchema } from 'typebox';
import type { AreaRoutes, RouteGuard } from './context.js';
import type { Sweeps } from './housekeeping.js';

/** Route config an area's routes get unless they say otherwise: a route's own fields win, one by one. */
export interface RouteDefaults {
  guard?: Partial<RouteGuard>;
  rateLimit?: FastifyContextConfig['rateLimit'];
}

export interface Area {
  name: string;
  /** Put before every path the area declares (Fastify's register prefix), e.g. '/v1'. */
  prefix?: string;
  /** What the area's routes share, so each route declares only what differs (its permission, mostly). */
  defaults?: RouteDefaults;
  /**
   * Schemas with an `$id` that the area's routes (or another area's) refer to with `Ref` (schemas.ts): each
   * is registered once, and the OpenAPI document lists it under components.schemas.
   */
  schemas?: readonly TSchema[];
  routes: AreaRoutes;
  /** What the housekeeping loop deletes of this area's rows once they are past keeping. */
  sweeps?: Sweeps;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The area whose routes this instance declares (app.ts decorates each area's plugin with it). */
    attestArea?: Area;
  }
}

/** The config a route runs with: its area's defaults under what it declares itself (the guard field by field). */
export function effectiveRouteConfig(
  defaults: RouteDefaults | undefined,
  declared: FastifyContextConfig | undefined,
): FastifyContextConfig {
  if (!defaults) return { ...declared };
  const config: FastifyContextConfig = { ...declared };
  if (defaults.rateLimit !== undefined && config.rateLimit === undefined) config.rateLimit = defaults.rateLimit;
  if (defaults.guard) config.guard = { ...defaults.guard, ...declared?.guard };
  return config;
}
