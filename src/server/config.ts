// Configuration from the environment (README has the table). Everything has a default that starts the
// gateway on its embedded store, so `attest serve` needs no settings at all.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/web of this checkout: next to the built server (dist/server) and found from src/server too. */
const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist');
const DEFAULT_WEB_DIR = path.join(DIST, 'web');
/** The light CLI package `npm run build` writes (scripts/cli-package.ts). */
const DEFAULT_CLI_PACKAGE = path.join(DIST, 'attest-cli.tgz');

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** postgres:// URL; null = embedded SQLite file in the data directory. */
  databaseUrl: string | null;
  /** PostgreSQL schema to use (search_path); tests give every file its own. */
  databaseSchema: string | null;
  /**
   * DATABASE_READ_URL: a read replica of DATABASE_URL (postgres://) for the dashboard's aggregate and list
   * reads (src/server/read-routing.ts); null = every read on the primary. The SQLite store ignores it.
   */
  databaseReadUrl: string | null;
  /**
   * ATTEST_READ_PRIMARY_SECONDS: after a credential writes, its reads stay on the primary this long, so the
   * replica's lag never hides a caller's own write from it (docs/scale.md).
   */
  readPrimarySeconds: number;
  redisUrl: string | null;
  /** Prefix of every Redis key, so several gateways (or test runs) can share one Redis. */
  redisPrefix: string;
  keyPepper: string | null;
  adminToken: string | null;
  minRunnerVersion: string | null;
  runnerUpgradeDocs: string;
  publicUrl: string;
  /** How long a resolved credential may be reused from memory before the store is asked again. */
  authCacheMs: number;
  /**
   * ATTEST_LIST_ANSWERS_MB: memory for session list answers kept and served again while their factory wrote
   * nothing they read (src/areas/sessions/list-answers.ts). 0 reads the list on every request.
   */
  listAnswersMb: number;
  claimMinTtlSeconds: number;
  /** Dashboard sessions end after this many hours without a request (ATTEST_DASHBOARD_IDLE_HOURS). */
  dashboardIdleHours: number;
  /** ... and this many days after sign-in, used or not (ATTEST_DASHBOARD_MAX_DAYS). */
  dashboardMaxDays: number;
  /** The built dashboard (index.html + assets/); when missing the gateway serves the API only. */
  webDir: string;
  /** The CLI package served at /downloads/attest-cli.tgz (ATTEST_CLI_PACKAGE); missing = a 404 that says so. */
  cliPackage: string;
  /**
   * OTLP exports this process stores at once (ATTEST_OTLP_MAX_IN_FLIGHT, default 64); past it an export
   * answers 503 with Retry-After. Per process: N replicas take N times as many.
   */
  otlpMaxInFlight: number;
  /** How often the job worker looks for due jobs (PR comments); 0 = never (a test runs jobs itself). */
  jobsPollMs: number;
  /** How often expired single-use secrets are deleted (housekeeping.ts); 0 = never. */
  housekeepingMs: number;
  logLevel: string;
  /**
   * ATTEST_OAUTH_ALLOW_PRIVATE_METADATA=1, for tests and development only: client ID metadata documents may
   * be fetched from loopback and private addresses (and over http on a loopback host). Off, the gateway
   * fetches them only from public https addresses (docs/security.md).
   */
  oauthAllowPrivateMetadata: boolean;
  /**
   * ATTEST_NOTIFY_ALLOW_PRIVATE=1, for tests and development only: notification channels may target loopback
   * and private addresses (and plain http on a loopback host). Off, only public https addresses.
   */
  notifyAllowPrivate: boolean;
  github: {
    apiUrl: string;
    appId: string | null;
    privateKey: string | null;
    webhookSecret: string | null;
    /** The App's OAuth credentials: GitHub sign-in (redirect `<public URL>/auth/github/callback`) when both set. */
    clientId: string | null;
    clientSecret: string | null;
    /** Where a browser is sent to authorize (GITHUB_WEB_URL; GitHub Enterprise Server or a test double). */
    webUrl: string;
  };
  /** One OpenID Connect provider for sign-in (ATTEST_OIDC_*; redirect `<public URL>/auth/oidc/callback`), or null. */
  oidc: { issuer: string; clientId: string; clientSecret: string; name: string } | null;
  s3: { endpoint: string; bucket: string; accessKeyId: string; secretAccessKey: string; region: string } | null;
}

type Env = Record<string, string | undefined>;

function intFrom(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

function positive(env: Env, name: string, fallback: number): number {
  const n = intFrom(env, name, fallback);
  if (n === 0) throw new Error(`${name} must be at least 1`);
  return n;
}

function str(env: Env, name: string): string | null {
  const v = env[name];
  return v === undefined || v === '' ? null : v;
}

function oidcFrom(env: Env): Config['oidc'] {
  const issuer = str(env, 'ATTEST_OIDC_ISSUER');
  const clientId = str(env, 'ATTEST_OIDC_CLIENT_ID');
  const clientSecret = str(env, 'ATTEST_OIDC_CLIENT_SECRET');
  if (!issuer && !clientId && !clientSecret) return null;
  if (!issuer || !clientId || !clientSecret)
    throw new Error('ATTEST_OIDC_ISSUER, ATTEST_OIDC_CLIENT_ID and ATTEST_OIDC_CLIENT_SECRET are set together');
  if (!URL.canParse(issuer)) throw new Error(`ATTEST_OIDC_ISSUER must be a URL, got "${issuer}"`);
  return { issuer, clientId, clientSecret, name: str(env, 'ATTEST_OIDC_NAME') ?? 'Single sign-on' };
}

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const port = intFrom(env, 'PORT', 8787);
  const databaseUrl = str(env, 'DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error('DATABASE_URL must be a postgres:// URL (unset it to use the embedded SQLite store)');
  }
  const databaseReadUrl = str(env, 'DATABASE_READ_URL');
  if (databaseReadUrl && !/^postgres(ql)?:\/\/./.test(databaseReadUrl)) {
    throw new Error(
      'DATABASE_READ_URL must be a postgres:// URL of a read replica of DATABASE_URL (unset it to read the primary)',
    );
  }
  const s3Endpoint = str(env, 'S3_ENDPOINT');
  const config: Config = {
    port,
    host: env.HOST ?? '0.0.0.0',
    dataDir: path.resolve(env.ATTEST_DATA_DIR ?? './.attest'),
    databaseUrl,
    databaseSchema: str(env, 'ATTEST_DATABASE_SCHEMA'),
    databaseReadUrl,
    readPrimarySeconds: intFrom(env, 'ATTEST_READ_PRIMARY_SECONDS', 30),
    redisUrl: str(env, 'REDIS_URL'),
    redisPrefix: env.ATTEST_REDIS_PREFIX ?? 'attest',
    keyPepper: str(env, 'ATTEST_KEY_PEPPER'),
    adminToken: str(env, 'ATTEST_ADMIN_TOKEN'),
    minRunnerVersion: str(env, 'ATTEST_MIN_RUNNER_VERSION'),
    runnerUpgradeDocs: env.ATTEST_RUNNER_UPGRADE_DOCS ?? 'https://attest.dev/docs/upgrade',
    publicUrl: (env.ATTEST_PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    authCacheMs: intFrom(env, 'ATTEST_AUTH_CACHE_MS', 5000),
    listAnswersMb: intFrom(env, 'ATTEST_LIST_ANSWERS_MB', 16),
    claimMinTtlSeconds: intFrom(env, 'ATTEST_CLAIM_MIN_TTL_SECONDS', 60),
    dashboardIdleHours: positive(env, 'ATTEST_DASHBOARD_IDLE_HOURS', 12),
    dashboardMaxDays: positive(env, 'ATTEST_DASHBOARD_MAX_DAYS', 7),
    webDir: path.resolve(env.ATTEST_WEB_DIR ?? DEFAULT_WEB_DIR),
    cliPackage: path.resolve(env.ATTEST_CLI_PACKAGE ?? DEFAULT_CLI_PACKAGE),
    otlpMaxInFlight: positive(env, 'ATTEST_OTLP_MAX_IN_FLIGHT', 64),
    jobsPollMs: intFrom(env, 'ATTEST_JOBS_POLL_MS', 2000),
    housekeepingMs: intFrom(env, 'ATTEST_HOUSEKEEPING_MINUTES', 60) * 60_000,
    logLevel: env.LOG_LEVEL ?? 'info',
    oauthAllowPrivateMetadata: env.ATTEST_OAUTH_ALLOW_PRIVATE_METADATA === '1',
    notifyAllowPrivate: env.ATTEST_NOTIFY_ALLOW_PRIVATE === '1',
    github: {
      apiUrl: env.GITHUB_API_URL ?? 'https://api.github.com',
      appId: str(env, 'GITHUB_APP_ID'),
      privateKey: str(env, 'GITHUB_APP_PRIVATE_KEY'),
      webhookSecret: str(env, 'GITHUB_WEBHOOK_SECRET'),
      clientId: str(env, 'GITHUB_CLIENT_ID'),
      clientSecret: str(env, 'GITHUB_CLIENT_SECRET'),
      webUrl: (env.GITHUB_WEB_URL ?? 'https://github.com').replace(/\/+$/, ''),
    },
    oidc: oidcFrom(env),
    s3: s3Endpoint
      ? {
          endpoint: s3Endpoint,
          bucket: env.S3_BUCKET ?? 'attest',
          accessKeyId: env.S3_ACCESS_KEY_ID ?? '',
          secretAccessKey: env.S3_SECRET_ACCESS_KEY ?? '',
          region: env.S3_REGION ?? 'us-east-1',
        }
      : null,
  };
  return { ...config, ...overrides };
}
