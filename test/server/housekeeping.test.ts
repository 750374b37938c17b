// Housekeeping (src/server/housekeeping.ts): sign-in links are deleted 7 days after they expire; until then a
// used or expired link still says so. Authorization codes and install states have their own tests
// (test/areas/oauth/authorization-server.test.ts, test/areas/repositories/installations.test.ts).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../helpers/gateway.js';

const DAY = 86_400_000;

describe('housekeeping of sign-in links', () => {
  let gw: TestGateway;
  let a: Tenant;

  beforeAll(async () => {
    gw = await startGateway();
    a = await createTenant(gw);
  });
  afterAll(async () => { await gw?.close(); });

  const makeLink = async () => {
    const r = await gw.call('POST', '/v1/me/dashboard-links', { token: a.loginToken });
    expect(r.status).toBe(201);
    return new URL(r.body.data.url as string).pathname;
  };
  const reasonOf = async (path: string) => (await gw.call('GET', path)).headers.location;
  const stored = async () => Number((await sql<{ n: number | string }>`select count(*) as n from dashboard_links`.execute(gw.app.attest.db)).rows[0]!.n);

  it('keeps used and expired links 7 days past their expiry, then deletes them; live links are never touched', async () => {
    const used = await makeLink();
    expect(await reasonOf(used)).toBe('/');
    const unused = await makeLink();
    expect(await stored()).toBe(2);

    // A day later both have expired: refused, with the reason, and kept.
    gw.clock.advance(DAY);
    expect(await gw.app.attest.housekeeping.run()).toEqual({ signInLinks: 0, oauthCodes: 0, installStates: 0 });
    expect(await reasonOf(used)).toBe('/sign-in?reason=used');
    expect(await reasonOf(unused)).toBe('/sign-in?reason=expired');

    // Seven days after their 10 minutes they are deleted; a link made now stays and still signs in.
    gw.clock.advance(6 * DAY + 10 * 60_000 + 1);
    const live = await makeLink();
    expect(await gw.app.attest.housekeeping.run()).toEqual({ signInLinks: 2, oauthCodes: 0, installStates: 0 });
    expect(await stored()).toBe(1);
    expect(await reasonOf(used)).toBe('/sign-in?reason=invalid');
    expect(await reasonOf(unused)).toBe('/sign-in?reason=invalid');
    expect(await reasonOf(live)).toBe('/');
    expect(await gw.app.attest.housekeeping.run()).toEqual({ signInLinks: 0, oauthCodes: 0, installStates: 0 });
  });

  it('runs concurrently without deleting twice', async () => {
    await makeLink();
    gw.clock.advance(8 * DAY);
    const reports = await Promise.all([gw.app.attest.housekeeping.run(), gw.app.attest.housekeeping.run()]);
    expect(reports.map((r) => r.signInLinks)).toEqual([2, 2]); // one shared run: the live link of the first test and this one
    expect(await stored()).toBe(0);
  });
});
