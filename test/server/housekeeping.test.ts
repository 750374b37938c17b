// Housekeeping (src/server/housekeeping.ts): sign-in links are deleted 7 days after they expire (until then a
// used or expired link still says so), dashboard sessions 7 days after they end. Authorization codes and install
// states have their own tests (test/areas/oauth/authorization-server.test.ts,
// test/areas/repositories/installations.test.ts).
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../helpers/gateway.js';
import { withGatewayAndTenants } from '../helpers/gateway-fixture.js';

const DAY = 86_400_000;

describe('housekeeping of sign-in links and dashboard sessions', () => {
  let gw: TestGateway;
  let a: Tenant;

  withGatewayAndTenants((s) => ({ gw, a } = s));

  const makeLink = async () => {
    const r = await gw.call('POST', '/v1/me/dashboard-links', { token: a.loginToken });
    expect(r.status).toBe(201);
    return new URL(r.body.data.url as string).pathname;
  };
  const reasonOf = async (path: string) => (await gw.call('GET', path)).headers.location;
  const stored = async () =>
    Number(
      (await sql<{ n: number | string }>`select count(*) as n from dashboard_links`.execute(gw.app.attest.db)).rows[0]!
        .n,
    );

  it('keeps used and expired links 7 days past their expiry, then deletes them; live links are never touched', async () => {
    const used = await makeLink();
    expect(await reasonOf(used)).toBe('/');
    const unused = await makeLink();
    expect(await stored()).toBe(2);

    // A day later both have expired: refused, with the reason, and kept.
    gw.clock.advance(DAY);
    expect(await gw.app.attest.housekeeping.run()).toEqual({
      signInLinks: 0,
      dashboardSessions: 0,
      oauthCodes: 0,
      installStates: 0,
      notificationBodies: 0,
      retention: 0,
      invitations: 0,
      signInFlows: 0,
      githubUserTokens: 0,
    });
    expect(await reasonOf(used)).toBe('/sign-in?reason=used');
    expect(await reasonOf(unused)).toBe('/sign-in?reason=expired');

    // Seven days after their 10 minutes they are deleted; a link made now stays and still signs in.
    gw.clock.advance(6 * DAY + 10 * 60_000 + 1);
    const live = await makeLink();
    expect(await gw.app.attest.housekeeping.run()).toEqual({
      signInLinks: 2,
      dashboardSessions: 0,
      oauthCodes: 0,
      installStates: 0,
      notificationBodies: 0,
      retention: 0,
      invitations: 0,
      signInFlows: 0,
      githubUserTokens: 0,
    });
    expect(await stored()).toBe(1);
    expect(await reasonOf(used)).toBe('/sign-in?reason=invalid');
    expect(await reasonOf(unused)).toBe('/sign-in?reason=invalid');
    expect(await reasonOf(live)).toBe('/');
    expect(await gw.app.attest.housekeeping.run()).toEqual({
      signInLinks: 0,
      dashboardSessions: 0,
      oauthCodes: 0,
      installStates: 0,
      notificationBodies: 0,
      retention: 0,
      invitations: 0,
      signInFlows: 0,
      githubUserTokens: 0,
    });
  });

  it('runs concurrently without deleting twice', async () => {
    await makeLink();
    gw.clock.advance(8 * DAY);
    const reports = await Promise.all([gw.app.attest.housekeeping.run(), gw.app.attest.housekeeping.run()]);
    expect(reports.map((r) => r.signInLinks)).toEqual([2, 2]); // one shared run: the live link of the first test and this one
    expect(await stored()).toBe(0);
  });

  it('deletes dashboard sessions a week after they ended (signed out, idle or past their 7 days); their cookies get the same 401 throughout', async () => {
    const sessions = async () =>
      Number(
        (
          await sql<{
            n: number | string;
          }>`select count(*) as n from credentials where kind = 'dashboard_session'`.execute(gw.app.attest.db)
        ).rows[0]!.n,
      );
    await gw.app.attest.housekeeping.run(); // the sessions of the tests above, long ended
    expect(await sessions()).toBe(0);
    const cookieOf = async () => {
      const r = await gw.call('GET', await makeLink());
      return /^attest_session=([^;]*)/.exec(String(r.headers['set-cookie']))![1]!;
    };
    const me = (cookie: string) =>
      gw.call('GET', '/v1/dashboard/session', { headers: { cookie: `attest_session=${cookie}` } });
    const signedOut = await cookieOf();
    expect(
      (
        await gw.call('DELETE', '/v1/dashboard/session', {
          headers: { cookie: `attest_session=${signedOut}`, 'x-attest-dashboard': '1' },
        })
      ).status,
    ).toBe(204);
    const idle = await cookieOf();
    expect((await me(idle)).status).toBe(200);
    expect((await me(signedOut)).status).toBe(401);

    // Idle for 13 hours (the limit is 12): ended, refused, kept for now.
    gw.clock.advance(13 * 3_600_000);
    expect((await me(idle)).status).toBe(401);
    expect((await gw.app.attest.housekeeping.run()).dashboardSessions).toBe(0);
    expect(await sessions()).toBe(2);

    // A week after: both deleted; a session signed in now stays and works; the old cookies are refused alike.
    gw.clock.advance(7 * DAY);
    const live = await cookieOf();
    expect((await gw.app.attest.housekeeping.run()).dashboardSessions).toBe(2);
    expect(await sessions()).toBe(1);
    expect((await me(live)).status).toBe(200);
    for (const old of [signedOut, idle]) {
      const r = await me(old);
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('unauthorized');
    }
  });
});
