// Housekeeping: deletes the single-use secrets and ended dashboard sessions the gateway no longer needs to
// remember, which otherwise pile up for ever (a row per sign-in link, dashboard sign-in, OAuth authorization
// code, GitHub App install link used). Each kind is kept past its own end for as long as its row still
// changes an answer:
// - a sign-in link, 7 days: until then a used or expired link says so ("used", "expired"); after, "invalid";
// - a dashboard session (signed out, past its 7 days or idle), 7 days: its cookie is refused with the same
//   401 before and after (one 401 for every refused credential), so the week only keeps when it ended;
// - an OAuth authorization code, 30 days (a refresh token's lifetime): until then a replayed code revokes the
//   grant's tokens (OAuth 2.1 §4.1.3), after it is refused as unknown;
// - a spent install state, at once: its signature carries its expiry, so an expired state is refused anyway.
// Other credentials (API keys, login tokens, OAuth tokens) are not deleted: revoked ones stay listed.
import type { FastifyBaseLogger } from 'fastify';
import * as dashboardStore from '../areas/dashboard/store.js';
import * as oauthStore from '../areas/oauth/store.js';
import { REFRESH_TOKEN_TTL_MS } from '../areas/oauth/provider.js';
import * as repositoriesStore from '../areas/repositories/store.js';
import type { Gateway } from './context.js';
import { PeriodicTask } from './periodic.js';

export const SIGN_IN_LINK_KEPT_MS = 7 * 86_400_000;
export const DASHBOARD_SESSION_KEPT_MS = 7 * 86_400_000;
export const OAUTH_CODE_KEPT_MS = REFRESH_TOKEN_TTL_MS;
/** How long after start-up the first run waits (then every ATTEST_HOUSEKEEPING_MINUTES, default 60). */
const FIRST_RUN_DELAY_MS = 60_000;

export interface HousekeepingReport {
  signInLinks: number;
  dashboardSessions: number;
  oauthCodes: number;
  installStates: number;
}

export class Housekeeping {
  private readonly loop: PeriodicTask<HousekeepingReport>;

  constructor(private readonly gateway: Gateway, private readonly log: FastifyBaseLogger) {
    this.loop = new PeriodicTask(() => this.runOnce(), (err) => this.log.error({ err }, 'housekeeping run failed'));
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
    const { db, clock, config } = this.gateway;
    const now = clock.now();
    const report: HousekeepingReport = {
      signInLinks: await dashboardStore.deleteLinksExpiredBefore(db, now - SIGN_IN_LINK_KEPT_MS),
      dashboardSessions: await dashboardStore.deleteSessionsEndedBefore(db, now - DASHBOARD_SESSION_KEPT_MS, config.dashboardIdleHours * 3_600_000),
      oauthCodes: await oauthStore.deleteCodesExpiredBefore(db, now - OAUTH_CODE_KEPT_MS),
      installStates: await repositoriesStore.deleteSpentStatesExpiredBefore(db, now),
    };
    if (Object.values(report).some((n) => n > 0)) this.log.info({ housekeeping: report }, 'deleted expired single-use secrets and ended dashboard sessions');
    return report;
  }
}
