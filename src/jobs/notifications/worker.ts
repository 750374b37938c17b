// The notification worker: on each run it evaluates the budgets of factories whose sessions changed (off the
// sync path: the sync only stores sessions), looks (at most every WATCH_MS) for hosts gone offline and claims
// whose lease ran out, and then sends the deliveries that are due, each claimed with a lease so one replica
// sends it. Lives above the areas because it joins several (budgets, hosts, work items, notifications). The
// watches run here rather than in hourly housekeeping so a host's silence is told within a minute; they need
// no lease of their own: each occurrence is marked once and its event id is derived from it.
import crypto from 'node:crypto';
import os from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Gateway, NotificationReport, NotificationRunner } from '../../server/context.js';
import { PeriodicTask } from '../../server/periodic.js';
import { evaluateChangedBudgets } from '../../areas/budgets/service.js';
import { deliverDue } from '../../areas/notifications/service.js';
import { announceOfflineHosts } from '../../areas/hosts/service.js';
import { announceExpiredClaims } from '../../areas/work-items/service.js';

const BATCH = 50;
/** The offline-host and expired-claim watches run at most this often (by the gateway's clock). */
export const WATCH_MS = 30_000;

export class NotificationWorker implements NotificationRunner {
  readonly owner = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
  private readonly loop: PeriodicTask<NotificationReport>;
  private watchedAt: number | null = null;

  constructor(
    private readonly gateway: Gateway,
    private readonly log: FastifyBaseLogger,
  ) {
    this.loop = new PeriodicTask(
      () => this.runOnce(),
      (err) => this.log.error({ err }, 'notification worker run failed'),
    );
  }

  start(intervalMs: number): void {
    this.loop.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Evaluate budgets, then send what is due now (by the gateway's clock); concurrent calls share one run. */
  runDueJobs(): Promise<NotificationReport> {
    return this.loop.run();
  }

  private async runOnce(): Promise<NotificationReport> {
    const notices = await evaluateChangedBudgets(this.gateway, this.log);
    const now = this.gateway.clock.now();
    let hostsOffline = 0;
    let claimsExpired = 0;
    // A clock set back (tests) watches again at once.
    if (this.watchedAt === null || now - this.watchedAt >= WATCH_MS || now < this.watchedAt) {
      this.watchedAt = now;
      hostsOffline = await announceOfflineHosts(this.gateway, now);
      claimsExpired = await announceExpiredClaims(this.gateway, now);
    }
    const sent = await deliverDue(this.gateway, this.log, this.owner, BATCH);
    return { notices, hostsOffline, claimsExpired, ...sent };
  }
}
