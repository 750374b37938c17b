// Housekeeping: deletes the single-use secrets and ended dashboard sessions the gateway no longer needs to
// remember, which otherwise pile up for ever (a row per sign-in link, dashboard sign-in, OAuth authorization
// code, GitHub App install link used). Each kind is a sweep its area registers (the `sweeps` of its entry in
// src/areas/index.ts), which says how long past its end a row is kept and why; this loop only runs them.
// Each sweep deletes in batches (`inBatches`), so one run never holds a write lock or a long transaction over
// a large backlog, and every purge reads by an index (migration 0042). API keys and OAuth tokens are not deleted
// (revoked ones stay listed); expired or revoked login tokens and item keys are, a while after they ended.
import type { FastifyBaseLogger } from 'fastify';
import type { Gateway } from './context.js';
import { PeriodicTask } from './periodic.js';

/** Deletes the rows of one kind that are past keeping at `now` (the gateway's clock) and says how many. */
export type Sweep = (gateway: Gateway, now: number, log: FastifyBaseLogger) => Promise<number>;

/** Sweeps by the name they are reported under (`signInLinks`, `oauthCodes`, ...). */
export type Sweeps = Readonly<Record<string, Sweep>>;

/** How many rows each sweep deleted in one run, by its name. */
export type HousekeepingReport = Record<string, number>;

/** Rows one batch of a purge deletes. */
export const PURGE_BATCH = 500;

/**
 * Repeats one batch of a purge (`step` deletes at most `limit` rows and says how many) until a batch comes back
 * short; answers the total. Each batch is its own statement, so ingest waits at most one batch's work.
 */
export async function inBatches(step: (limit: number) => Promise<number>, limit = PURGE_BATCH): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await step(limit);
    total += n;
    if (n < limit) return total;
  }
}

/** How long after start-up the first run waits (then every ATTEST_HOUSEKEEPING_MINUTES, default 60). */
const FIRST_RUN_DELAY_MS = 60_000;

export class Housekeeping {
  private readonly loop: PeriodicTask<HousekeepingReport>;

  constructor(
    private readonly gateway: Gateway,
    private readonly log: FastifyBaseLogger,
    private readonly sweeps: Sweeps,
  ) {
    this.loop = new PeriodicTask(
      () => this.runOnce(),
      (err) => this.log.error({ err }, 'housekeeping run failed'),
    );
  }

  /** Run a minute after start-up, then every `intervalMs` (0: never; tests call run themselves). */
  start(intervalMs: number): void {
    this.loop.start(intervalMs, Math.min(FIRST_RUN_DELAY_MS, intervalMs));
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Deletes what is past keeping by the gateway's clock; concurrent calls share one run. */
  run(): Promise<HousekeepingReport> {
    return this.loop.run();
  }

  private async runOnce(): Promise<HousekeepingReport> {
    const now = this.gateway.clock.now();
    const report: HousekeepingReport = {};
    for (const [name, sweep] of Object.entries(this.sweeps)) report[name] = await sweep(this.gateway, now, this.log);
    if (Object.values(report).some((n) => n > 0))
      this.log.info({ housekeeping: report }, 'deleted expired single-use secrets and ended dashboard sessions');
    return report;
  }
}
