// Serves the built dashboard (dist/web, or ATTEST_WEB_DIR) from the gateway process (DASHBOARD-CONTRACT.md):
// `/assets/*` are content-hashed files, cached for a year as immutable and sent pre-compressed (.br/.gz
// siblings chosen by Accept-Encoding); any other GET outside the API's prefixes gets index.html (no-cache),
// so every dashboard URL (e.g. an artifact's `url`, /artifacts/{id}) opens the app. API paths (any `/v<digits>`
// prefix, so an unknown version is a 404 as the spec's versioning part wants) and requests that ask for JSON
// keep the JSON 404. Without a build the gateway serves the API only and those pages say how to build the dashboard.
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from './context.js';

/** A browser navigating (an Accept naming text/html, not application/json), not an API client (any type, or JSON). */
export function wantsPage(accept: string | undefined): boolean {
  return accept !== undefined && /\btext\/html\b/i.test(accept) && !/\bapplication\/json\b/i.test(accept);
}

/** Paths that belong to the API (or to assets): never answered with index.html. */
const NOT_SPA = ['/oauth', '/.well-known', '/health', '/auth', '/mcp', '/assets', '/downloads'];
/** A version prefix of the API, known or not: `/v1`, `/v2/anything`. */
const API_VERSION = /^\/v\d+(\/|$)/;
const YEAR_MS = 365 * 24 * 3600_000;

export function isSpaPath(pathname: string): boolean {
  if (API_VERSION.test(pathname)) return false;
  return !NOT_SPA.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}

/** A client that names a JSON media type and not HTML in Accept is a program, not a browser: it gets the API's 404. */
export function asksForJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((part) => (part.split(';')[0] ?? '').trim().toLowerCase());
  const json = types.some((type) => type === 'application/json' || type.endsWith('+json'));
  return json && !types.includes('text/html');
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Attest</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;line-height:1.5">
<h1>Attest gateway</h1>
<p>The API is running, but the dashboard has not been built.</p>
<p>Build it with <code>npm run build</code> (or <code>npm start</code>, which builds first), then restart the
gateway. It serves the files in <code>dist/web</code> (or the directory named by <code>ATTEST_WEB_DIR</code>).</p>
<p>The API is under <a href="/v1/openapi.json"><code>/v1</code></a>.</p>
</body></html>
`;

export interface Web {
  /** True when index.html was found at start. */
  readonly built: boolean;
  register(app: App): Promise<void>;
  /** Answers a GET/HEAD for a dashboard page that matched no route; false when the path is not one. */
  fallback(req: FastifyRequest, reply: FastifyReply): boolean;
}

export function createWeb(webDir: string): Web {
  const built = fs.existsSync(path.join(webDir, 'index.html'));
  return {
    built,
    async register(app) {
      if (!built) {
        app.log.info({ webDir }, 'no dashboard build found; serving the API only');
        return;
      }
      // serve: false: the plugin only provides reply.sendFile; the route below declares its guard like every route.
      await app.register(fastifyStatic, {
        root: webDir,
        serve: false,
        preCompressed: true,
        index: false,
        dotfiles: 'deny',
      });
      app.get('/assets/*', { config: { guard: { credentials: 'public' } }, schema: { hide: true } }, (req, reply) => {
        const rest = (req.params as Record<string, string | undefined>)['*'] ?? '';
        return reply.sendFile(`assets/${rest}`, { immutable: true, maxAge: YEAR_MS });
      });
    },
    fallback(req, reply) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      const pathname = req.url.split('?')[0] ?? req.url;
      if (!isSpaPath(pathname) || asksForJson(req.headers.accept)) return false;
      if (!built) {
        reply.status(200).type('text/html; charset=utf-8').header('Cache-Control', 'no-cache').send(NOT_BUILT);
        return true;
      }
      reply.header('Cache-Control', 'no-cache');
      void reply.sendFile('index.html', { cacheControl: false });
      return true;
    },
  };
}
