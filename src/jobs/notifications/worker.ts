// The notification worker: on each run it evaluates the budgets of factories whose sessions changed (off the
// sync path: the sync only stores sessions) and then sends the deliveries that are due, each claimed with a
// lease so one replica sends it. Lives above the areas because it joins two of them (budgets, notifications).
import crypto from 'node:crypto';
import os from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Gateway, NotificationRunner } from '../../server/context.js';
import { PeriodicTask } from '../../server/periodic.js';
import { evaluateChangedBudgets } from '../../areas/budgets/service.js';
import { deliverDue } from '../../areas/notifications/service.js';

const BATCH = 50;

export interface NotificationReport {
  notices: number;
  claimed: number;
  succeeded: number;
  retried: number;
  failed: number;
}

export class NotificationWorker implements NotificationRunner {
  readonly owner = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
  private readonly loop: PeriodicTask<NotificationReport>;

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
    const sent = await deliverDue(this.gateway, this.log, this.owner, BATCH);
    return { notices, ...sent };
  }
}
