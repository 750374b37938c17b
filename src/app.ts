// Builds the gateway: store, migrations, bootstrap, plugins (guard, errors, OpenAPI), every area and the
// background work. The composition root: the one place that joins the plumbing below (src/server, src/db,
// src/blobs, which never import an area) with the areas and the jobs above it.
import crypto from 'node:crypto';
import path from 'node:path';
import Fastify, { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { openDatabase, openReadReplica, type DbHandle } from './db/connection.js';
import { migrateToLatest } from './db/migrate.js';
import { rebuildOwedRollups } from './areas/metrics/rollup-rebuild.js';
import type { Kysely } from 'kysely';
import { FsBlobStore } from './blobs/fs.js';
import type { BlobStore } from './blobs/store.js';
import { PrincipalResolver } from './server/auth/principal.js';
import { systemClock, type Clock } from './server/clock.js';
import type { Config } from './server/config.js';
import type { App, Gateway } from './server/context.js';
import {
  clientErrorHandler,
  errorCodeOf,
  frameworkErrors,
  MAX_PARAM_LENGTH,
  registerErrorHandling,
} from './server/error-handler.js';
import { ERROR_CODES } from './server/errors.js';
import { registerGuard } from './server/guard.js';
import { createWeb } from './server/web.js';
import { registerDownloads } from './server/downloads.js';
import { registerHostileInputChecks } from './server/hostile-input.js';
import { BatchedLogDestination } from './server/log-destination.js';
import { registerQueryRule } from './server/query-rule.js';
import { SendCoalescer } from './server/send-coalescing.js';
import { serializerOnFirstUse } from './server/serialization.js';
import { requestValidatorCompiler } from './server/validation.js';
import { deriveSecret, loadPepper } from './server/pepper.js';
import { RateLimits } from './server/ratelimit.js';
import { bootstrap } from './server/bootstrap.js';
import { AREAS } from './areas/index.js';
import { effectiveRouteConfig, type Area } from './server/area.js';
import { PrCommentWorker } from './jobs/pr-comments/worker.js';
import { NotificationWorker } from './jobs/notifications/worker.js';
import { Housekeeping } from './server/housekeeping.js';
import { ReadRouting } from './server/read-routing.js';

export interface BuildOptions {
  config: Config;
  clock?: Clock;
  logger?: FastifyServerOptions['logger'];
  blobs?: BlobStore;
  /** Areas registered after the built-in ones (tests use it to exercise the guard on probe routes). */
  extraAreas?: readonly Area[];
  /**
   * Called with the bare app before any hook or route is added, so what it adds applies to every route
   * (Fastify copies an instance's hooks into each plugin when the plugin registers). The tests install the
   * OpenAPI drift check here (test/helpers/openapi-drift.ts).
   */
  instrument?: (app: App) => void;
}

/**
 * Logs a request once, when it completes, instead of on arrival and again on completion. The line carries
 * what a 4xx is traced by: method, route pattern (the raw path when no route matched), status, the error
 * envelope's code and the duration in milliseconds (the request id rides on every line as `reqId`).
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const status = reply.statusCode;
    const line = {
      method: request.method,
      route: request.routeOptions.url ?? request.url.split('?')[0],
      status,
      code: errorCodeOf(request) ?? null,
      ms: Math.round(reply.elapsedTime * 100) / 100,
    };
    // A 5xx is logged at error level by the error handler (with the error); this line stays at info.
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** JSON bodies are capped at 1 MiB unless a route says otherwise (API.md §8). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export async function buildApp(options: BuildOptions): Promise<App> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const handle = await openDatabase(config);
  let replica: DbHandle | null = null;
  try {
    await migrateToLatest(handle.db as unknown as Kysely<unknown>, handle.dialect, config.databaseSchema);
    // Aggregates a migration added are filled for existing factories before the first request is served.
    await rebuildOwedRollups(handle.db, handle.dialect);
    // Opened once the primary is migrated, so a replica of it (or the same database) has the schema to check.
    // The embedded SQLite store has no replica: DATABASE_READ_URL is ignored there (docs/scale.md).
    if (config.databaseReadUrl && handle.dialect === 'postgres')
      replica = await openReadReplica(config.databaseReadUrl, config.databaseSchema);
    return await assemble(options, handle, replica, clock);
  } catch (err) {
    await replica?.close().catch(() => undefined);
    await handle.close().catch(() => undefined);
    throw err;
  }
}

async function assemble(options: BuildOptions, handle: DbHandle, replica: DbHandle | null, clock: Clock): Promise<App> {
  const { config } = options;

  // Asynchronous, batched writes: a synchronous write to stdout per request line costs about a third of a small
  // authenticated read, and an asynchronous write per line still about a fifth of GET /health (the write system
  // call). Lines are written in order once 16 KiB have gathered or 200 ms have passed, whichever is first
  // (log-destination.ts); close() and process exit (pino's exit hook, which also runs on an uncaught exception)
  // flush what is pending. Only a SIGKILL can lose the last 200 ms.
  // Only when the gateway logs to stdout itself: a caller's logger (the tests') needs no writer or timer.
  const logStream = options.logger !== undefined ? null : BatchedLogDestination.toDescriptor(1);
  const app = Fastify({
    logger: logStream !== null ? { level: config.logLevel, stream: logStream } : options.logger,
    bodyLimit: DEFAULT_BODY_LIMIT,
    // A body is parsed by JSON.parse alone: hostile-input.ts refuses `__proto__` and `constructor.prototype`
    // keys in the walk it makes of every body anyway, almost for free. Fastify's default would run
    // secure-json-parse's two regular expressions over the whole text again (about 7% of a sync's parse,
    // bench/ingest-cpu.ts), and its refusal says "not valid JSON" of valid JSON.
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
    schemaController: { compilersFactory: { buildSerializer: serializerOnFirstUse } },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    },
    return503OnClosing: true,
    logController: new OneLinePerRequest(),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Errors Fastify and Node raise before a route runs answer the envelope too (API.md §1).
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(requestValidatorCompiler());
  options.instrument?.(app as App);

  const pepper = loadPepper(config.dataDir, config.keyPepper);
  const rateLimits = await RateLimits.create(config.redisUrl, config.redisPrefix, app.log);
  let blobs: BlobStore;
  if (options.blobs) blobs = options.blobs;
  // The S3 client (about 25 MB of resident memory once loaded) loads only when S3 is configured.
  else if (config.s3) blobs = new (await import('./blobs/s3.js')).S3BlobStore(config.s3);
  else {
    const fsBlobs = new FsBlobStore(path.join(config.dataDir, 'blobs'));
    fsBlobs.ensureDir();
    blobs = fsBlobs;
  }
  const gateway: Gateway = {
    config,
    db: handle.db,
    dialect: handle.dialect,
    reads: new ReadRouting(handle.db, replica?.db ?? null, clock, config.readPrimarySeconds),
    clock,
    pepper,
    anonSecret: deriveSecret(pepper, 'actor-pseudonyms'),
    auth: new PrincipalResolver(handle.db, pepper, clock, config.authCacheMs, config.dashboardIdleHours * 3600_000),
    rateLimits,
    blobs,
    bootstrap: await bootstrap(handle.db, pepper, clock, config),
    areas: new Set(),
    startedAt: clock.now(),
    jobs: null as never,
    notifications: null as never,
    housekeeping: null as never,
  };
  gateway.jobs = new PrCommentWorker(gateway, app.log);
  gateway.notifications = new NotificationWorker(gateway, app.log);
  const areas = [...AREAS, ...(options.extraAreas ?? [])];
  gateway.housekeeping = new Housekeeping(gateway, app.log, Object.assign({}, ...areas.map((a) => a.sweeps ?? {})));
  app.decorate('attest', gateway);
  app.decorateRequest('ctx', null as never);
  app.log.info(
    {
      store: handle.location,
      dialect: handle.dialect,
      readReplica: replica?.location ?? null,
      rateLimits: rateLimits.store,
      blobs: blobs.kind,
    },
    'store ready',
  );
  if (config.databaseReadUrl && !replica) app.log.warn('DATABASE_READ_URL is ignored: the SQLite store has no replica');

  // A callback hook: no promise per response. The answer to a request without a body (the reads) is written
  // in the turn's check phase, together with the others of its turn (send-coalescing.ts says why). One with a
  // body goes at once: holding it kept its parsed body alive a turn longer, and a 25-session sync's is
  // megabytes (bench/memory.ts, 100k sessions over 4 clients: peak RSS 258-264 MB against 166-225, 1,743-1,770
  // sessions/s against 1,892-1,952, when every answer was held).
  const sends = new SendCoalescer((err) => app.log.error({ err }, 'writing a held response failed'));
  app.addHook('onSend', (req, reply, payload, done) => {
    reply.header('X-Request-Id', req.id);
    if (req.body === undefined) sends.hold(done, payload);
    else done(null, payload);
  });

  // The job worker starts once the server is ready and stops (waiting for its run) before the store closes.
  app.addHook('onReady', async () => {
    gateway.jobs.start(config.jobsPollMs);
    gateway.notifications.start(config.jobsPollMs);
    gateway.housekeeping.start(config.housekeepingMs);
  });
  app.addHook('onClose', async () => {
    await gateway.jobs.stop();
    await gateway.notifications.stop();
    await gateway.housekeeping.stop();
    await rateLimits.close();
    blobs.close?.();
    await replica?.close();
    await handle.close();
    logStream?.close();
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Attest gateway API',
        version: '1.0.0',
        description: 'Agent Evidence Gateway API (v1). Error codes: see components.schemas.Error.',
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description:
              'sk_outerlayer_ factory key, olu_ login token, olk_ management key, oli_ item key or ola_ admin token',
          },
          appId: { type: 'apiKey', in: 'header', name: 'X-Outerlayer-App-Id' },
        },
        schemas: {
          // The OAuth protocol endpoints' errors (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009 §2.2.1): what their
          // clients read, in place of the envelope (error-handler.ts writes it for refusals before the SDK's own).
          OAuthError: {
            type: 'object',
            required: ['error'],
            additionalProperties: true,
            properties: {
              error: {
                type: 'string',
                description:
                  'An RFC 6749 error code: invalid_request, invalid_client, invalid_grant, unauthorized_client, ' +
                  'unsupported_grant_type, invalid_scope, invalid_target, invalid_client_metadata, ' +
                  'invalid_redirect_uri, server_error, ...',
              },
              error_description: { type: 'string' },
            },
          },
          Error: {
            type: 'object',
            required: ['error'],
            properties: {
              error: {
                type: 'object',
                required: ['code', 'message'],
                additionalProperties: true,
                properties: {
                  code: {
                    type: 'string',
                    enum: Object.keys(ERROR_CODES),
                    description: Object.entries(ERROR_CODES)
                      .map(([c, v]) => `${c} (${v.status}): ${v.description}`)
                      .join('\n'),
                  },
                  message: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
    // Shared schemas (Area.schemas) appear under components.schemas by their `$id`, which route schemas name.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transform: ({ schema, url, route }) => {
      const guard = route.config?.guard;
      const base = (schema ?? {}) as Record<string, unknown>;
      const responses = { ...((base.response as Record<string, unknown> | undefined) ?? {}) };
      const error = route.config?.oauthErrors
        ? { description: 'OAuth error (RFC 6749 §5.2)', $ref: '#/components/schemas/OAuthError' }
        : { description: 'Error envelope', $ref: '#/components/schemas/Error' };
      responses['4XX'] = error;
      responses['5XX'] = error;
      const security = guard && guard.credentials !== 'public' ? [{ bearer: [] }] : [];
      return {
        schema: {
          ...base,
          response: responses,
          security,
          ...(guard?.permission
            ? {
                description: `${String(base.description ?? '')}\n\nRequires permission \`${guard.permission}\`.`.trim(),
              }
            : {}),
        } as typeof schema,
        url,
      };
    },
  });

  const web = createWeb(config.webDir);
  registerErrorHandling(app, { pageFallback: web.fallback });
  registerHostileInputChecks(app);
  // An area's route gets its area's defaults under what it declares, before the guard's own onRoute hook
  // (added next) checks the result: hooks of the root run first, and `this` is the instance the route is
  // declared on, which carries its area.
  app.addHook('onRoute', function applyAreaDefaults(route) {
    const area = this.attestArea;
    if (!area) return;
    route.config = { ...effectiveRouteConfig(area.defaults, route.config), area: area.name };
    gateway.areas.add(area.name);
  });
  registerGuard(app);
  registerQueryRule(app);

  // Shared schemas first: any area's routes may refer to any of them.
  for (const area of areas) for (const schema of area.schemas ?? []) app.addSchema(schema);
  for (const area of areas) {
    await app.register(
      async (scoped) => {
        scoped.decorate('attestArea', area);
        area.routes(scoped as App);
      },
      area.prefix ? { prefix: area.prefix } : {},
    );
  }
  registerDownloads(app as App, config.cliPackage);
  await web.register(app as App);
  return app as App;
}
