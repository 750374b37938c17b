// Dependency checks for /v1/health/ingestion and /v1/health/files. Each check is a real round trip
// (database `select 1`, Redis PING, blob store write-read), timed with the monotonic clock (latency is
// wall time, not the gateway's settable clock), and bounded so a hung store answers "down" rather than
// hanging the health route.
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { apiError } from '../../server/errors.js';
import type { Gateway } from '../../server/context.js';
import type { CheckName, DependencyCheck, HealthReport } from './schema.js';

/** A check that takes longer than this is reported down. */
export const CHECK_TIMEOUT_MS = 3000;
/** Seconds a client should wait before asking again after a 503. */
export const RETRY_AFTER_SECONDS = 5;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function reason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  // Driver messages can name hosts but never carry passwords; keep them short all the same.
  return text.replace(/\/\/[^@/\s]*@/g, '//***@').slice(0, 200);
}

/** Runs `probe`; it resolves false (or throws) when the dependency is unusable. */
async function timed(
  name: CheckName,
  kind: string,
  critical: boolean,
  probe: () => Promise<boolean>,
): Promise<DependencyCheck> {
  const started = performance.now();
  let status: DependencyCheck['status'] = 'ok';
  let message: string | undefined;
  try {
    if (!(await withTimeout(probe(), CHECK_TIMEOUT_MS))) {
      status = 'down';
      message = 'did not answer';
    }
  } catch (err) {
    status = 'down';
    message = reason(err);
  }
  const latencyMs = Math.round((performance.now() - started) * 1000) / 1000;
  return { name, kind, status, critical, latencyMs, ...(message ? { message } : {}) };
}

function checkDatabase(gateway: Gateway, critical: boolean): Promise<DependencyCheck> {
  return timed('database', gateway.dialect, critical, async () => {
    const result = await sql<{ ok: number }>`select 1 as ok`.execute(gateway.db);
    return Number(result.rows[0]?.ok) === 1;
  });
}

function checkRateLimits(gateway: Gateway): Promise<DependencyCheck> {
  // Non-critical: with the rate-limit store down, limits fail open (API.md §4) and ingestion goes on.
  return timed('rate_limits', gateway.rateLimits.store, false, async () => {
    const answer = await gateway.rateLimits.ping();
    return answer === null || answer; // null: counters live in this process, nothing to reach
  });
}

function checkBlobs(gateway: Gateway, critical: boolean): Promise<DependencyCheck> {
  return timed('blobs', gateway.blobs.kind, critical, async () => {
    await gateway.blobs.check();
    return true;
  });
}

function report(checks: DependencyCheck[], what: string): HealthReport {
  const criticalDown = checks.filter((c) => c.critical && c.status === 'down');
  if (criticalDown.length > 0) {
    throw apiError(
      'store_unavailable',
      `${what} is unavailable: ${criticalDown.map((c) => c.name).join(', ')} did not answer.`,
      { checks },
      { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    );
  }
  return { status: checks.every((c) => c.status === 'ok') ? 'ok' : 'degraded', checks };
}

/** Can the gateway take session ingest? The database is critical; rate limits and blobs degrade it. */
export async function ingestionHealth(gateway: Gateway): Promise<HealthReport> {
  const checks = await Promise.all([
    checkDatabase(gateway, true),
    checkRateLimits(gateway),
    checkBlobs(gateway, false),
  ]);
  return report(checks, 'Ingestion');
}

/** Can the gateway store and serve files (artifacts, session images)? The blob store is critical. */
export async function filesHealth(gateway: Gateway): Promise<HealthReport> {
  return report([await checkBlobs(gateway, true)], 'File storage');
}
