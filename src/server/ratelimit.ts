// Per-org rate limits (API.md §4) with rate-limiter-flexible: in process for one node, in Redis when
// REDIS_URL is set so replicas share counters. Windows are fixed 60-second windows that start at an org's
// first request in the bucket. With Redis unreachable the limits fail open and a warning is logged.
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { FastifyBaseLogger } from 'fastify';
import type { Plan } from './auth/principal.js';

export const BUCKETS = {
  'observability-read': { free: 100, paid: 1000 },
  'session-detail': { free: 30, paid: 300 },
  'mcp-protocol': { free: 300, paid: 1000 },
  /** OTLP exports (POST /v1/logs, /v1/metrics, /v1/traces): a developer's exporters send about 13 a minute. */
  'otlp-ingest': { free: 600, paid: 6000 },
  /** Identity sign-in attempts, counted per client IP and per provider subject (not per org). */
  'sign-in': { free: 30, paid: 30 },
  /** `attest login` through the browser: code exchanges, device polls and user-code look-ups, per client IP. */
  'cli-login': { free: 60, paid: 60 },
} as const;

export type BucketName = keyof typeof BUCKETS;
export const WINDOW_SECONDS = 60;
/** How long a connection to Redis may take, at start-up and on every reconnect. */
const CONNECT_TIMEOUT_MS = 2000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix ms when the window resets, when known. */
  resetAt: number | null;
  retryAfterSeconds: number;
}

type Tier = 'free' | 'paid';

export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private lastWarning = 0;

  constructor(
    private readonly redis: Redis | null,
    private readonly prefix: string,
    private readonly log: FastifyBaseLogger,
  ) {
    // ioredis reconnects on its own; an error event without a listener would crash the process.
    redis?.on('error', (err: Error) => this.warnOnce(err));
  }

  /** ioredis (about 20 MB of resident memory once loaded) loads only when REDIS_URL is set. */
  static async create(redisUrl: string | null, prefix: string, log: FastifyBaseLogger): Promise<RateLimits> {
    if (!redisUrl) return new RateLimits(null, prefix, log);
    const redis = new (await import('ioredis')).Redis(redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      lazyConnect: false,
      connectTimeout: CONNECT_TIMEOUT_MS,
    });
    const limits = new RateLimits(redis, prefix, log);
    // Start with the connection made, or known not to be made (refused at once, or no answer within the
    // connect timeout). Until ioredis is ready a command fails at once (there is no offline queue), so the
    // first requests' limits failed open and /v1/health/ingestion said `degraded` of a store that was only
    // still connecting: the health test right after start-up failed so in a CI run on PostgreSQL and Redis.
    await new Promise<void>((resolve) => {
      const settle = () => {
        clearTimeout(bound);
        redis.off('ready', settle);
        redis.off('error', settle);
        resolve();
      };
      const bound = setTimeout(settle, CONNECT_TIMEOUT_MS);
      redis.once('ready', settle);
      redis.once('error', settle);
    });
    return limits;
  }

  get store(): 'memory' | 'redis' {
    return this.redis ? 'redis' : 'memory';
  }

  private limiter(bucket: BucketName, tier: Tier): RateLimiterAbstract {
    const name = `${bucket}:${tier}`;
    let limiter = this.limiters.get(name);
    if (!limiter) {
      const opts = { points: BUCKETS[bucket][tier], duration: WINDOW_SECONDS, keyPrefix: `${this.prefix}:rl:${name}` };
      limiter = this.redis
        ? new RateLimiterRedis({ ...opts, storeClient: this.redis, rejectIfRedisNotReady: true })
        : new RateLimiterMemory(opts);
      this.limiters.set(name, limiter);
    }
    return limiter;
  }

  private warnOnce(err: unknown): void {
    const now = Date.now();
    if (now - this.lastWarning < 60_000) return;
    this.lastWarning = now;
    this.log.warn({ err }, 'rate-limit store unreachable: limits fail open until it answers');
  }

  async consume(bucket: BucketName, orgId: string, plan: Plan): Promise<RateDecision> {
    const tier: Tier = plan === 'free' ? 'free' : 'paid';
    const limit = BUCKETS[bucket][tier];
    try {
      const res = await this.limiter(bucket, tier).consume(orgId, 1);
      return {
        allowed: true,
        limit,
        remaining: res.remainingPoints,
        resetAt: Date.now() + res.msBeforeNext,
        retryAfterSeconds: 0,
      };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        const wait = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        return {
          allowed: false,
          limit,
          remaining: 0,
          resetAt: Date.now() + rejection.msBeforeNext,
          retryAfterSeconds: wait,
        };
      }
      this.warnOnce(rejection);
      return { allowed: true, limit, remaining: limit, resetAt: null, retryAfterSeconds: 0 };
    }
  }

  /** Redis health for /v1/health/*: null when limits are in process. */
  async ping(): Promise<boolean | null> {
    if (!this.redis) return null;
    try {
      return (await this.redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.redis) this.redis.disconnect();
  }
}
