// The blob sweep (issue 42): removes from the blob store (files or S3) the blobs no factory holds (no session
// image and no artifact of any factory names them), which a deletion that failed half-way, a crash between a
// blob's put and its row's commit, or an upload whose request was then refused leave behind. A blob written
// within the grace period is left alone, so an upload in flight (bytes stored, row not committed yet) is safe;
// a put of bytes already stored counts as a write (FsBlobStore refreshes the file's time, S3 rewrites the
// object). It runs with housekeeping at most once a day, under a lease (retention_runs, key `blob-gc`) so one
// replica lists the store at a time.
import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Gateway } from '../../server/context.js';
import type { Sweep } from '../../server/housekeeping.js';
import { dropUnheldBlobs, heldAnywhere } from './service.js';
import * as store from './store.js';

/** A blob younger than this is never removed: longer than any upload takes to commit its row. */
export const BLOB_GRACE_MS = 24 * 3_600_000;
/** How often the store is listed (each housekeeping run checks whether a day has passed). */
export const BLOB_SWEEP_EVERY_MS = 24 * 3_600_000;
/** The sweep's lease row in retention_runs; factory ids are uuids, so it names no factory. */
export const BLOB_SWEEP_KEY = 'blob-gc';
const LEASE_MS = 30 * 60_000;
/** Blobs checked against the database per query. */
const BATCH = 200;
const OWNER = `blob-gc-${crypto.randomUUID()}`;

export interface BlobSweepReport {
  /** Blobs listed in the store. */
  listed: number;
  /** Unheld blobs past the grace period that were removed. */
  removed: number;
}

export const blobSweep: Sweep = async (gateway, now, log) => (await sweepBlobs(gateway, now, log))?.removed ?? 0;

/** One pass over the blob store; null when it ran within the day (unless `force`) or another replica holds it. */
export async function sweepBlobs(
  gateway: Gateway,
  now: number,
  log: FastifyBaseLogger,
  opts: { force?: boolean } = {},
): Promise<BlobSweepReport | null> {
  const { db, clock, blobs } = gateway;
  const last = await store.lastFinished(db, BLOB_SWEEP_KEY);
  if (!opts.force && last !== null && last > now - BLOB_SWEEP_EVERY_MS) return null;
  if (!(await store.claim(db, BLOB_SWEEP_KEY, OWNER, clock.now(), clock.now() + LEASE_MS))) return null;
  const report: BlobSweepReport = { listed: 0, removed: 0 };
  const cutoff = now - BLOB_GRACE_MS;
  let finished = false;
  try {
    let batch: string[] = [];
    const collect = async () => {
      const held = await heldAnywhere(db, batch);
      report.removed += await dropUnheldBlobs(
        db,
        blobs,
        batch.filter((sha) => !held.has(sha)),
        log,
      );
      batch = [];
      await store.claim(db, BLOB_SWEEP_KEY, OWNER, clock.now(), clock.now() + LEASE_MS);
    };
    for await (const blob of blobs.list()) {
      report.listed++;
      if (blob.writtenAt >= cutoff) continue;
      batch.push(blob.sha256);
      if (batch.length === BATCH) await collect();
    }
    if (batch.length) await collect();
    finished = true;
  } finally {
    await store.release(db, BLOB_SWEEP_KEY, OWNER, clock.now(), finished);
  }
  if (report.removed) log.info({ blobSweep: report }, 'removed blobs no factory holds');
  return report;
}
