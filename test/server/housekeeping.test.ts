// Housekeeping (src/server/housekeeping.ts): sign-in links are deleted 7 days after they expire (until then a
// used or expired link still says so), dashboard sessions 7 days after they end, login tokens and the item keys
// of ended claims 7 days after they were revoked or expired, finished notification deliveries after 30 days.
// Authorization codes and install states have their own tests (test/areas/oauth/authorization-server.test.ts,
// test/areas/repositories/installations.test.ts).
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../helpers/gateway.js';
import { withGatewayAndTenants } from '../helpers/gateway-fixture.js';
import { claim, newItem } from '../areas/work-items/helpers.js';

const DAY = 86_400_000;

describe('housekeeping of sign-in links and dashboard sessions', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;

  withGatewayAndTenants((s) => ({ gw, a, b } = s));
  const count = async (query: string) =>
    Number((await sql<{ n: number | string }>`${sql.raw(query)}`.execute(gw.app.attest.db)).rows[0]!.n);

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

  it('keeps used and expired links 7 days past expiry, then deletes them; live links are never touched', async () => {
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
      blobs: 0,
      invitations: 0,
      signInFlows: 0,
      githubUserTokens: 0,
      loginTokens: 0,
      claimKeys: 0,
      notificationDeliveries: 0,
      sessionListEntries: 0,
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
      blobs: 0,
      invitations: 0,
      signInFlows: 0,
      githubUserTokens: 0,
      loginTokens: 0,
      claimKeys: 0,
      notificationDeliveries: 0,
      sessionListEntries: 0,
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
      blobs: 0,
      invitations: 0,
      signInFlows: 0,
      githubUserTokens: 0,
      loginTokens: 0,
      claimKeys: 0,
      notificationDeliveries: 0,
      sessionListEntries: 0,
    });
  });

  it('runs concurrently without deleting twice', async () => {
    await makeLink();
    gw.clock.advance(8 * DAY);
    const reports = await Promise.all([gw.app.attest.housekeeping.run(), gw.app.attest.housekeeping.run()]);
    // one shared run: the live link of the first test and this one
    expect(reports.map((r) => r.signInLinks)).toEqual([2, 2]);
    expect(await stored()).toBe(0);
  });

  it('deletes dashboard sessions a week after they end (signed out, idle, 7 days); same 401 throughout', async () => {
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
  it('deletes login tokens a week after they were revoked; live ones stay and still sign in', async () => {
    const mint = async () => {
      const r = await gw.call('POST', `/v1/admin/users/${a.ownerId}/login-tokens`, { token: gw.adminToken });
      expect(r.status).toBe(201);
      return r.body.data as { id: string; token: string };
    };
    const revoked = await mint();
    const live = await mint();
    expect((await gw.call('DELETE', `/v1/admin/login-tokens/${revoked.id}`, { token: gw.adminToken })).status).toBe(
      204,
    );
    const link = (token: string) => gw.call('POST', '/v1/me/dashboard-links', { token });
    expect((await link(revoked.token)).status).toBe(401);

    gw.clock.advance(6 * DAY);
    expect((await gw.app.attest.housekeeping.run()).loginTokens).toBe(0);
    gw.clock.advance(DAY + 1);
    expect((await gw.app.attest.housekeeping.run()).loginTokens).toBe(1);
    expect(await count(`select count(*) as n from credentials where id = '${revoked.id}'`)).toBe(0);
    expect((await link(revoked.token)).status).toBe(401);
    expect((await link(live.token)).status).toBe(201);
    expect((await link(a.loginToken)).status).toBe(201);
  });

  it("deletes a released claim's item key a week later; the claim stays in the item's history", async () => {
    const item = await newItem(gw, a);
    const held = await claim(gw, a, item.id);
    expect(held.status).toBe(201);
    const released = await newItem(gw, a);
    const ended = await claim(gw, a, released.id);
    const auth = { token: a.factoryKey, appId: a.appId };
    expect((await gw.call('DELETE', `/v1/work-items/${released.id}/claims/current`, auth)).status).toBe(204);

    gw.clock.advance(6 * DAY);
    expect((await gw.app.attest.housekeeping.run()).claimKeys).toBe(0);
    gw.clock.advance(DAY + 1);
    expect((await gw.app.attest.housekeeping.run()).claimKeys).toBe(1);
    const renew = (key: string, id: string) => gw.call('PUT', `/v1/work-items/${id}/claims/current`, { token: key });
    expect((await renew(ended.body.data.itemKey, released.id)).status).toBe(401);
    // The open claim's key is live however old (its lease ran out: the claim answers so, not the credential).
    expect((await renew(held.body.data.itemKey, item.id)).body.error.code).toBe('claim_expired');
    const history = await gw.call('GET', `/v1/work-items/${released.id}/claims`, auth);
    expect(history.body.data.map((c: { state: string }) => c.state)).toEqual(['released']);
  });

  it('deletes finished notification deliveries 30 days after they were made, never pending ones', async () => {
    const channel = async (t: Tenant) => {
      const r = await gw.call('POST', '/v1/notification-channels', {
        token: t.factoryKey,
        appId: t.appId,
        body: { name: 'ops', kind: 'webhook', url: 'https://hooks.example.com/x', events: ['budget.threshold'] },
      });
      expect(r.status, r.text).toBe(201);
      return r.body.data.id as string;
    };
    const now = gw.clock.now();
    const rows = [
      { t: a, status: 'succeeded', age: 31 * DAY },
      { t: a, status: 'failed', age: 31 * DAY },
      { t: a, status: 'pending', age: 31 * DAY },
      { t: a, status: 'succeeded', age: 29 * DAY },
      { t: b, status: 'succeeded', age: 31 * DAY },
    ];
    const channels = { [a.appId]: await channel(a), [b.appId]: await channel(b) };
    for (const [i, r] of rows.entries())
      await gw.app.attest.db
        .insertInto('notification_deliveries')
        .values({
          id: `00000000-0000-4000-8000-00000000000${i}`,
          org_id: r.t.orgId,
          app_id: r.t.appId,
          channel_id: channels[r.t.appId]!,
          event_id: `e${i}`,
          event_type: 'budget.threshold',
          event: null,
          status: r.status,
          attempts: 1,
          next_attempt_at: null,
          lease_owner: null,
          lease_until: null,
          response_code: null,
          latency_ms: null,
          error: null,
          request_body: null,
          response_body: null,
          last_attempt_at: null,
          delivered_at: null,
          created_at: now - r.age,
        })
        .execute();
    // Both factories' month-old finished deliveries go; the pending one and the 29-day-old one stay.
    expect((await gw.app.attest.housekeeping.run()).notificationDeliveries).toBe(3);
    const left = await gw.call('GET', `/v1/notification-channels/${channels[a.appId]}/deliveries`, {
      token: a.factoryKey,
      appId: a.appId,
    });
    expect(left.body.data.map((d: { status: string }) => d.status).sort()).toEqual(['pending', 'succeeded']);
    expect(await count('select count(*) as n from notification_deliveries')).toBe(2);
  });
});
