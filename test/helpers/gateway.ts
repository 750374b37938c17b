// Starts a real gateway for a test file: a temp data dir, a fresh SQLite file, or a fresh PostgreSQL
// schema when TEST_DATABASE_URL is set (and Redis rate limits when TEST_REDIS_URL is set). Requests go
// through the whole server with app.inject (same routing, hooks, validation and serialization as a socket).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import type { InjectOptions, RouteOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/connection.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { ManualClock } from '../../src/server/clock.js';
import { loadConfig, type Config } from '../../src/server/config.js';
import type { App, BootstrapResult } from '../../src/server/context.js';
import type { Area } from '../../src/areas/index.js';
import { installDriftCheck } from './openapi-drift.js';
import { testTempDir } from './tmp.js';

export const usingPostgres = Boolean(process.env.TEST_DATABASE_URL);
export const usingRedis = Boolean(process.env.TEST_REDIS_URL);

export interface TestGateway {
  app: App;
  clock: ManualClock;
  config: Config;
  boot: BootstrapResult;
  /** The operator token (ola_). */
  adminToken: string;
  call(method: InjectOptions['method'], url: string, opts?: CallOptions): Promise<CallResult>;
  close(): Promise<void>;
}

export interface CallOptions {
  token?: string;
  appId?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Send this exact payload (string or Buffer) instead of JSON-encoding body. */
  raw?: string | Buffer;
}

export interface CallResult {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  // Tests read arbitrary response bodies; a loose type keeps assertions short.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

export interface StartOptions {
  env?: Record<string, string>;
  clock?: ManualClock;
  /** Start a second replica on the same store (and pepper) as this one. */
  replicaOf?: TestGateway;
  /** Extra areas (probe routes) registered after the built-in ones. */
  extraAreas?: readonly Area[];
  /** Write the gateway's log lines (level info) here instead of discarding them. */
  logStream?: { write(line: string): void };
  /**
   * Check every 2xx/3xx answer against the OpenAPI document (test/helpers/openapi-drift.ts). On by default
   * under vitest, where test/helpers/openapi-drift-setup.ts fails the test that produced a violation; off
   * elsewhere (bench/ scripts start gateways with this helper and measure them as served).
   */
  openApiCheck?: boolean;
  /** Called for every route as it registers (Fastify's onRoute hook, installed before any route). */
  onRoute?: (route: RouteOptions) => void;
}

async function freshSchema(url: string): Promise<string> {
  const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`create schema ${schema}`);
  } finally {
    await client.end();
  }
  return schema;
}

let sqliteTemplate: Promise<string> | undefined;

/**
 * A SQLite file with every migration applied, made once per test process. Each gateway starts on a copy, so
 * a file pays its migrations once (about 40 transactions, each synced to disk) instead of once per gateway;
 * the gateway still runs the migrator, which finds nothing left to apply. The migration tests start from
 * empty stores of their own.
 */
function migratedSqliteFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = testTempDir('attest-template-');
    const handle = await openDatabase({ dataDir: dir, databaseUrl: null });
    await migrateToLatest(handle.db as unknown as Kysely<unknown>, 'sqlite');
    // Everything into the main file, so a copy of that one file is the whole database.
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(handle.db);
    await handle.close();
    return path.join(dir, 'attest.db');
  })();
  return sqliteTemplate;
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}

export async function startGateway(opts: StartOptions = {}): Promise<TestGateway> {
  const clock = opts.clock ?? opts.replicaOf?.clock ?? new ManualClock(Date.parse('2026-11-01T12:00:00Z'));
  let config: Config;
  let ownsStore = false;
  if (opts.replicaOf) {
    config = { ...opts.replicaOf.config, ...loadConfig({ ...envOf(opts.replicaOf.config), ...opts.env }) };
  } else {
    ownsStore = true;
    const dataDir = testTempDir('attest-test-');
    const env: Record<string, string> = {
      ATTEST_DATA_DIR: dataDir,
      ATTEST_KEY_PEPPER: crypto.randomBytes(16).toString('hex'),
      ATTEST_PUBLIC_URL: 'http://attest.test',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ATTEST_REDIS_PREFIX: `test-${crypto.randomBytes(4).toString('hex')}`,
      // Tests run due jobs themselves (app.attest.jobs.runDueJobs()) on the test clock.
      ATTEST_JOBS_POLL_MS: '0',
      // Likewise housekeeping (app.attest.housekeeping.run()).
      ATTEST_HOUSEKEEPING_MINUTES: '0',
    };
    if (process.env.TEST_DATABASE_URL) {
      env.DATABASE_URL = process.env.TEST_DATABASE_URL;
      // A caller that names the schema has made it (test/db/read-replica.test.ts: with its replica's copy).
      env.ATTEST_DATABASE_SCHEMA =
        opts.env?.ATTEST_DATABASE_SCHEMA ?? (await freshSchema(process.env.TEST_DATABASE_URL));
      // A replica stand-in with no lag (the same database): every `reads: 'replica'` route reads through the
      // read-only pool, so the suite proves those routes never write (docs/scale.md).
      if (process.env.TEST_DATABASE_READ_URL) env.DATABASE_READ_URL = process.env.TEST_DATABASE_READ_URL;
    }
    if (process.env.TEST_REDIS_URL) env.REDIS_URL = process.env.TEST_REDIS_URL;
    config = loadConfig({ ...env, ...opts.env });
    if (!config.databaseUrl && config.dataDir === dataDir) {
      const file = path.join(dataDir, 'attest.db');
      fs.copyFileSync(await migratedSqliteFile(), file);
      fs.chmodSync(file, 0o600);
    }
  }
  let app: App;
  try {
    app = await buildApp({
      config,
      clock,
      ...(opts.extraAreas ? { extraAreas: opts.extraAreas } : {}),
      ...(opts.logStream ? { logger: { level: 'info', stream: opts.logStream } } : {}),
      instrument: (built: App) => {
        if (opts.openApiCheck ?? Boolean(process.env.VITEST)) installDriftCheck(built);
        if (opts.onRoute) built.addHook('onRoute', opts.onRoute);
      },
    });
  } catch (err) {
    // A gateway that refuses to start must not leave its schema or data dir behind.
    if (ownsStore) {
      if (config.databaseUrl && config.databaseSchema) await dropSchema(config.databaseUrl, config.databaseSchema);
      fs.rmSync(config.dataDir, { recursive: true, force: true });
    }
    throw err;
  }
  await app.ready();
  const boot = app.attest.bootstrap;
  const adminToken = boot.adminToken ?? opts.replicaOf?.adminToken ?? '';

  const call = async (method: InjectOptions['method'], url: string, o: CallOptions = {}): Promise<CallResult> => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.appId) headers['x-outerlayer-app-id'] = o.appId;
    let payload: string | Buffer | undefined = o.raw;
    if (payload === undefined && o.body !== undefined) {
      payload = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await app.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
    let body: unknown;
    try {
      body = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      body = undefined;
    }
    return { status: res.statusCode, headers: res.headers, body, text: res.body };
  };

  return {
    app,
    clock,
    config,
    boot,
    adminToken,
    call,
    close: async () => {
      await app.close().catch(() => undefined);
      if (ownsStore) {
        if (config.databaseUrl && config.databaseSchema) await dropSchema(config.databaseUrl, config.databaseSchema);
        fs.rmSync(config.dataDir, { recursive: true, force: true });
      }
    },
  };
}

function envOf(config: Config): Record<string, string> {
  const env: Record<string, string> = {
    ATTEST_DATA_DIR: config.dataDir,
    ATTEST_PUBLIC_URL: config.publicUrl,
    LOG_LEVEL: config.logLevel,
    ATTEST_REDIS_PREFIX: config.redisPrefix,
    ATTEST_JOBS_POLL_MS: String(config.jobsPollMs),
    ATTEST_HOUSEKEEPING_MINUTES: String(config.housekeepingMs / 60_000),
  };
  if (config.keyPepper) env.ATTEST_KEY_PEPPER = config.keyPepper;
  if (config.databaseUrl) env.DATABASE_URL = config.databaseUrl;
  if (config.databaseSchema) env.ATTEST_DATABASE_SCHEMA = config.databaseSchema;
  if (config.databaseReadUrl) env.DATABASE_READ_URL = config.databaseReadUrl;
  if (config.redisUrl) env.REDIS_URL = config.redisUrl;
  return env;
}

export interface Tenant {
  orgName: string;
  orgId: string;
  appId: string;
  ownerId: string;
  /** The owner's login token (olu_). */
  loginToken: string;
  /** A full-access factory key (sk_outerlayer_) minted by the owner. */
  factoryKey: string;
  /** A management key (olk_) with every permission, minted by the owner. */
  managementKey: string;
}

export interface TenantOptions {
  plan?: 'free' | 'paid' | 'enterprise';
  name?: string;
}

let tenantCounter = 0;

/** A new org (plan given), an owner with a login token, one factory, a full-access key and a management key. */
export async function createTenant(gw: TestGateway, opts: TenantOptions = {}): Promise<Tenant> {
  const suffix = `${process.pid}-${++tenantCounter}-${crypto.randomBytes(3).toString('hex')}`;
  const orgName = opts.name ?? `org-${suffix}`;
  const admin = { token: gw.adminToken };
  const ok = (r: CallResult, what: string) => {
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text}`);
    return r.body.data;
  };
  const org = ok(
    await gw.call('POST', '/v1/admin/orgs', { ...admin, body: { name: orgName, plan: opts.plan ?? 'enterprise' } }),
    'create org',
  );
  const user = ok(
    await gw.call('POST', '/v1/admin/users', {
      ...admin,
      body: { email: `owner-${suffix}@example.com`, name: `Owner ${suffix}` },
    }),
    'create user',
  );
  ok(
    await gw.call('POST', `/v1/admin/orgs/${orgName}/members`, { ...admin, body: { userId: user.id, role: 'owner' } }),
    'add member',
  );
  const app = ok(
    await gw.call('POST', `/v1/admin/orgs/${orgName}/apps`, { ...admin, body: { name: 'main' } }),
    'create app',
  );
  const login = ok(await gw.call('POST', `/v1/admin/users/${user.id}/login-tokens`, admin), 'login token');
  const key = ok(
    await gw.call('POST', '/v1/api-keys', {
      token: login.token,
      appId: app.id,
      body: { name: 'full', preset: 'full-access' },
    }),
    'factory key',
  );
  const mk = ok(
    await gw.call('POST', `/v1/admin/orgs/${orgName}/management-keys`, {
      ...admin,
      body: { name: 'mgmt', createdBy: user.id, permissions: ['members.read', 'members.write', 'audit.read'] },
    }),
    'management key',
  );
  return {
    orgName,
    orgId: org.id,
    appId: app.id,
    ownerId: user.id,
    loginToken: login.token,
    factoryKey: key.plaintext_key,
    managementKey: mk.key,
  };
}

/** A user with `role` in the tenant's org, and a login token for them. */
export async function addMember(
  gw: TestGateway,
  tenant: Tenant,
  role: 'owner' | 'admin' | 'write' | 'read',
): Promise<{ userId: string; loginToken: string }> {
  const admin = { token: gw.adminToken };
  const suffix = crypto.randomBytes(4).toString('hex');
  const user = (
    await gw.call('POST', '/v1/admin/users', {
      ...admin,
      body: { email: `${role}-${suffix}@example.com`, name: `${role} ${suffix}` },
    })
  ).body.data;
  const added = await gw.call('POST', `/v1/admin/orgs/${tenant.orgName}/members`, {
    ...admin,
    body: { userId: user.id, role },
  });
  if (added.status !== 201) throw new Error(`add member: ${added.status} ${added.text}`);
  const login = (await gw.call('POST', `/v1/admin/users/${user.id}/login-tokens`, admin)).body.data;
  return { userId: user.id, loginToken: login.token };
}
