// Every route the gateway registers, read from the areas themselves (not a hand-kept list), so a test that
// walks it covers a route added tomorrow too. Each area's routes function runs against a recorder that
// keeps the method, path and guard of every route and ignores everything else it is asked to do. The path
// and guard are the ones the route runs with: its area's prefix and default guard applied as app.ts does.
import type { FastifyContextConfig } from 'fastify';
import { AREAS } from '../../src/areas/index.js';
import { effectiveRouteConfig, type Area } from '../../src/server/area.js';
import type { App, RouteGuard } from '../../src/server/context.js';

export interface RecordedRoute {
  area: string;
  method: string;
  url: string;
  guard: RouteGuard | undefined;
}

const METHODS = ['get', 'post', 'put', 'delete', 'patch', 'head'] as const;

function recorder(area: Area, into: RecordedRoute[]): App {
  // A callable proxy: any property read yields another one, any call yields another one, so registration
  // code that touches app.attest, hooks or content-type parsers runs without effect.
  const inert: unknown = new Proxy(function inert() {}, {
    get: (_t, prop) => (prop === 'then' ? undefined : prop === Symbol.toPrimitive ? () => 0 : inert),
    apply: () => inert,
  });
  const app = new Proxy(
    {},
    {
      get: (_t, prop) => {
        if (typeof prop === 'string' && (METHODS as readonly string[]).includes(prop)) {
          return (url: string, opts?: { config?: FastifyContextConfig }) => {
            // Complete once the area's defaults are applied (the guard plugin refuses a route otherwise).
            const guard = effectiveRouteConfig(area.defaults, opts?.config).guard as RouteGuard | undefined;
            into.push({ area: area.name, method: prop.toUpperCase(), url: `${area.prefix ?? ''}${url}`, guard });
          };
        }
        return inert;
      },
    },
  );
  return app as App;
}

export function allRoutes(): RecordedRoute[] {
  const routes: RecordedRoute[] = [];
  for (const area of AREAS) area.routes(recorder(area, routes));
  return routes;
}
