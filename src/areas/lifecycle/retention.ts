// The retention sweep (issue 42): per factory with a `retention` setting, in small batches, each its own
// transaction: delete sessions past `sessionsDays`, cut sessions past `redactedDays` to the metrics tier and those
// past `fullDays` to the redacted tier (the capture's tier rules, so metrics and costs stay exact), delete
// artifacts past `artifactsDays`. Ages count from a session's start and an artifact's arrival, on the gateway's
// clock. A lease per factory (retention_runs) lets one replica sweep it at a time; every step is a query of what
// is still due, so a sweep that crashed is simply resumed by the next run (once its lease has run out).
import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { CaptureTier } from '../../capture/index.js';
import { recordAudit } from '../../server/audit.js';
import type { Gateway } from '../../server/context.js';
import { type Db, isPostgres } from '../../db/connection.js';
import type { Sweep } from '../../server/housekeeping.js';
import { forgetImages } from '../agents/service.js';
import { factoriesWithRetention, type FactoryRetention } from '../apps/service.js';
import { artifactsCreatedBefore } from '../artifacts/service.js';
import { imagesOfSessions, imagesStillNamed, sessionsAtTierBefore } from '../sessions/delete.js';
import { fadeStoredSessions } from '../sessions/fade.js';
import { deleteArtifactsInTransaction, deleteSessionsInTransaction, dropUnheldBlobs } from './service.js';
import * as store from './store.js';

const DAY_MS = 86_400_000;
/**
 * Rows of the first transaction, and the most of any. After each, the size is scaled towards the store's
 * BATCH_TARGET_MS of the transaction's wall time, whatever the machine's speed and load. On SQLite a batch holds
 * the one connection and, its driver being synchronous, the event loop: every request waits it out, so batches
 * stay short. On PostgreSQL it holds only the rollup rows it adjusts, and the event loop runs on while the server
 * works, so a batch delays only the syncs that touch the same counters (the factory-wide ones: every sync), by at
 * most its length. Twice SQLite's target keeps batches of tens of rows, where 5 ms shrank them to 2 rows each
 * paying a round trip per statement.
 */
export const RETENTION_BATCH = 100;
const FIRST_BATCH = 20;
const MIN_BATCH = 2;
const BATCH_TARGET_MS = { sqlite: 5, postgres: 10 } as const;
/**
 * After each transaction the sweep rests this many times as long as it took (at least MIN_REST_MS): a duty
 * cycle that leaves the store and the event loop free most of the time, so a sync that arrives mid-batch waits
 * at most one batch and then runs through, instead of waiting behind each of the sweep's next statements.
 */
const REST_RATIO = 2;
const MIN_REST_MS = 10;
/** How long a replica's claim on a factory lasts unless renewed (renewed once half of it is left). */
export const RETENTION_LEASE_MS = 5 * 60_000;
/** Wall time one run spends on one factory; what is left is the next run's. */
const RUN_BUDGET_MS = 10 * 60_000;

/** This process's name on the leases it takes. */
const OWNER = `retention-${crypto.randomUUID()}`;

export interface RetentionReport {
  redacted: number;
  metrics: number;
  sessionsDeleted: number;
  artifactsDeleted: number;
  blobsRemoved: number;
}

export interface SweepOptions {
  /** Rows in every transaction (tests; not scaled to the target time). */
  batch?: number;
  /** Stop after this many batches (the rest is the next run's): tests show a sweep resumes. */
  maxBatches?: number;
  /** The lease owner (tests play a second replica). */
  owner?: string;
  /** Wall time this run may take (bench/lifecycle.ts sweeps in rounds); default 10 minutes. */
  budgetMs?: number;
}

/** Housekeeping's entry: every factory with a retention setting. Answers how many rows it changed. */
export const retentionSweep: Sweep = async (gateway, now, log) => {
  let total = 0;
  for (const f of await factoriesWithRetention(gateway.db)) {
    try {
      const r = await sweepFactory(gateway, f, now, log);
      if (r) total += r.redacted + r.metrics + r.sessionsDeleted + r.artifactsDeleted;
    } catch (err) {
      log.error({ err, appId: f.appId }, 'retention sweep of a factory failed; the next run resumes it');
    }
  }
  return total;
};

/** Sweep one factory; null when another replica holds its lease. */
export async function sweepFactory(
  gateway: Gateway,
  f: FactoryRetention,
  now: number,
  log: FastifyBaseLogger,
  opts: SweepOptions = {},
): Promise<RetentionReport | null> {
  const { db, clock } = gateway;
  const targetMs = BATCH_TARGET_MS[isPostgres(db) ? 'postgres' : 'sqlite'];
  const owner = opts.owner ?? OWNER;
  const maxBatches = opts.maxBatches ?? Number.POSITIVE_INFINITY;
  const budgetMs = opts.budgetMs ?? RUN_BUDGET_MS;
  let leaseUntil = clock.now() + RETENTION_LEASE_MS;
  if (!(await store.claim(db, f.appId, owner, clock.now(), leaseUntil))) return null;
  const report: RetentionReport = { redacted: 0, metrics: 0, sessionsDeleted: 0, artifactsDeleted: 0, blobsRemoved: 0 };
  const ctx = { orgId: f.orgId, appId: f.appId, clock, log };
  const startedMs = Date.now();
  let batches = 0;
  let finished = false;
  let batch = opts.batch ?? FIRST_BATCH;
  /** Whether another batch may run: within budget, and the lease still ours (renewed once half is left). */
  const another = async (): Promise<boolean> => {
    if (batches >= maxBatches || Date.now() - startedMs > budgetMs) return false;
    batches++;
    if (leaseUntil - clock.now() > RETENTION_LEASE_MS / 2) return true;
    leaseUntil = clock.now() + RETENTION_LEASE_MS;
    return store.claim(db, f.appId, owner, clock.now(), leaseUntil);
  };
  /** One batch's transaction, then the rest of its duty cycle; the next batch is sized by this one's time. */
  const paced = async <T>(work: (trx: Db) => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const result = await db.transaction().execute(work);
    const ms = performance.now() - t0;
    if (opts.batch === undefined)
      batch = Math.max(MIN_BATCH, Math.min(RETENTION_BATCH, Math.round((batch * targetMs) / Math.max(ms, 1))));
    await new Promise((resolve) => setTimeout(resolve, Math.max(MIN_REST_MS, ms * REST_RATIO)));
    return result;
  };
  const cutoff = (days: number) => now - days * DAY_MS;

  try {
    const r = f.retention;
    let stopped = false;
    // Deleted first, so nothing is cut down that is about to go.
    if (r.sessionsDays !== null) {
      for (const tier of ['full', 'redacted', 'metrics'] as const) {
        while (!stopped) {
          const rows = await sessionsAtTierBefore(db, f.appId, tier, cutoff(r.sessionsDays), batch);
          if (!rows.length) break;
          if (!(await another())) {
            stopped = true;
            break;
          }
          const released = await paced((trx) =>
            deleteSessionsInTransaction(trx, f.appId, rows, 'retention', clock.now()),
          );
          report.sessionsDeleted += rows.length;
          report.blobsRemoved += await dropUnheldBlobs(db, gateway.blobs, released, log);
        }
      }
    }
    const fade = async (from: CaptureTier, to: CaptureTier, days: number) => {
      while (!stopped) {
        const rows = await sessionsAtTierBefore(db, f.appId, from, cutoff(days), batch);
        if (!rows.length) return;
        if (!(await another())) {
          stopped = true;
          return;
        }
        const ids = rows.map((row) => row.id);
        const images = await imagesOfSessions(db, f.appId, ids);
        const { cut, released } = await paced(async (trx) => {
          const cut = await fadeStoredSessions(
            ctx,
            trx,
            rows.map((row) => row.session_key),
            to,
          );
          const still = await imagesStillNamed(trx, f.appId, images);
          const released = images.filter((sha) => !still.has(sha));
          await forgetImages(trx, f.appId, released);
          return { cut, released };
        });
        if (to === 'metrics') report.metrics += cut;
        else report.redacted += cut;
        report.blobsRemoved += await dropUnheldBlobs(db, gateway.blobs, released, log);
      }
    };
    if (r.redactedDays !== null) {
      await fade('full', 'metrics', r.redactedDays);
      await fade('redacted', 'metrics', r.redactedDays);
    }
    if (r.fullDays !== null) await fade('full', 'redacted', r.fullDays);
    if (r.artifactsDays !== null) {
      while (!stopped) {
        const rows = await artifactsCreatedBefore(db, f.appId, cutoff(r.artifactsDays), batch);
        if (!rows.length) break;
        if (!(await another())) {
          stopped = true;
          break;
        }
        const released = await paced((trx) =>
          deleteArtifactsInTransaction(trx, f.appId, rows, 'retention', clock.now()),
        );
        report.artifactsDeleted += rows.length;
        report.blobsRemoved += await dropUnheldBlobs(db, gateway.blobs, released, log);
      }
    }
    finished = !stopped;
  } finally {
    await store.release(db, f.appId, owner, clock.now(), finished);
  }
  if (report.redacted + report.metrics + report.sessionsDeleted + report.artifactsDeleted > 0) {
    await recordAudit(db, clock, {
      orgId: f.orgId,
      actionType: 'retention.applied',
      actor: null,
      targetType: 'app',
      targetId: f.appId,
      targetIdentifier: f.appId,
      details: { ...report, retention: f.retention, finished },
    });
  }
  return report;
}
