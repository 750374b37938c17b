// Housekeeping's purges that test/server/housekeeping.test.ts does not walk through a user's path: OAuth
// authorization codes (30 days past expiry), spent install states (once expired), invitations (7 days after they
// expired, were accepted or were revoked), identity sign-in flows and the CLI's loopback and device codes (a day
// past expiry), GitHub user tokens (once expired) and the bodies of finished notification deliveries (after 7
// days). On the test clock: a row one millisecond past its keeping goes, a row exactly at it and a live row stay.
// The 501 expired codes take the purge past one 500-row batch.
import { describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../helpers/gateway.js';
import { withGatewayAndTenants } from '../helpers/gateway-fixture.js';

const DAY = 86_400_000;

describe('housekeeping purges: only what is past keeping, in batches', () => {
  let gw: TestGateway;
  let a: Tenant;

  withGatewayAndTenants((s) => ({ gw, a } = s));

  it('deletes each kind one millisecond past its keeping, and keeps the boundary and the live rows', async () => {
    const db = gw.app.attest.db;
    const now = gw.clock.now();
    // Per kind: the times a row ended at, named by what must become of it.
    const times = (keptMs: number) => ({ gone: now - keptMs - 1, boundary: now - keptMs, live: now + 600_000 });

    const codes = times(30 * DAY);
    const code = (digest: string, expiresAt: number) => ({
      digest,
      grant_id: 'g',
      redirect_uri: 'https://client.example.com/cb',
      code_challenge: 'c',
      expires_at: expiresAt,
      used_at: null,
      created_at: expiresAt - 600_000,
    });
    await db
      .insertInto('oauth_codes')
      .values(Array.from({ length: 501 }, (_, i) => code(`gone-${i}`, codes.gone)))
      .execute();
    await db
      .insertInto('oauth_codes')
      .values([code('boundary', codes.boundary), code('live', codes.live)])
      .execute();

    const states = times(0);
    await db
      .insertInto('install_states_used')
      .values(
        Object.entries(states).map(([digest, at]) => ({ digest, app_id: a.appId, expires_at: at, used_at: at - 1 })),
      )
      .execute();

    const inv = times(7 * DAY);
    const invitation = (id: string, ended: { expires_at?: number; accepted_at?: number; revoked_at?: number }) => ({
      id,
      org_id: a.orgId,
      digest: `digest-${id}`,
      email: null,
      role: 'member',
      created_by: null,
      created_at: now - 30 * DAY,
      expires_at: ended.expires_at ?? now + DAY,
      accepted_at: ended.accepted_at ?? null,
      accepted_by: null,
      revoked_at: ended.revoked_at ?? null,
    });
    await db
      .insertInto('invitations')
      .values([
        invitation('expired', { expires_at: inv.gone }),
        invitation('accepted', { accepted_at: inv.gone }),
        invitation('revoked', { revoked_at: inv.gone }),
        invitation('accepted-boundary', { accepted_at: inv.boundary }),
        invitation('revoked-boundary', { revoked_at: inv.boundary }),
        invitation('live', {}),
      ])
      .execute();

    const flows = times(DAY);
    for (const [name, at] of Object.entries(flows)) {
      await db
        .insertInto('sign_in_flows')
        .values({
          state_digest: name,
          provider: 'github',
          code_verifier: 'v',
          nonce: null,
          invitation: null,
          next_path: null,
          created_at: at - 600_000,
          expires_at: at,
          used_at: null,
        })
        .execute();
      await db
        .insertInto('cli_login_codes')
        .values({
          code_digest: name,
          user_id: a.ownerId,
          code_challenge: 'c',
          redirect_uri: 'http://127.0.0.1:1/cb',
          client_name: 'attest',
          created_at: at - 600_000,
          expires_at: at,
          used_at: null,
        })
        .execute();
      await db
        .insertInto('cli_device_codes')
        .values({
          device_digest: name,
          user_code_digest: `user-${name}`,
          client_name: 'attest',
          requested_ip: '127.0.0.1',
          interval_ms: 5000,
          polled_at: null,
          user_id: null,
          decided_at: null,
          denied: 0,
          used_at: null,
          created_at: at - 600_000,
          expires_at: at,
        })
        .execute();
    }

    // A GitHub user token goes once expired: at `now` itself it is no longer live.
    const tokens = { gone: now, live: now + 1 };
    for (const [name, at] of Object.entries(tokens)) {
      await db
        .insertInto('users')
        .values({ id: `u-${name}`, email: `${name}@purge.test`, name, created_at: 0 })
        .execute();
      await db
        .insertInto('github_user_tokens')
        .values({ user_id: `u-${name}`, subject: name, token_enc: 'v1.x', created_at: at - DAY, expires_at: at })
        .execute();
    }

    const channel = await gw.call('POST', '/v1/notification-channels', {
      token: a.factoryKey,
      appId: a.appId,
      body: { name: 'ops', kind: 'webhook', url: 'https://hooks.example.com/x', events: ['budget.threshold'] },
    });
    expect(channel.status, channel.text).toBe(201);
    const bodies = times(7 * DAY);
    const deliveries = [
      { id: 'gone', status: 'succeeded', at: bodies.gone },
      { id: 'failed', status: 'failed', at: bodies.gone },
      { id: 'pending', status: 'pending', at: bodies.gone },
      { id: 'boundary', status: 'succeeded', at: bodies.boundary },
    ];
    for (const [i, d] of deliveries.entries())
      await db
        .insertInto('notification_deliveries')
        .values({
          id: `00000000-0000-4000-8000-00000000000${i}`,
          org_id: a.orgId,
          app_id: a.appId,
          channel_id: channel.body.data.id,
          event_id: d.id,
          event_type: 'budget.threshold',
          event: '{}',
          status: d.status,
          attempts: 1,
          next_attempt_at: null,
          lease_owner: null,
          lease_until: null,
          response_code: null,
          latency_ms: null,
          error: null,
          request_body: '{"x":1}',
          response_body: 'ok',
          last_attempt_at: null,
          delivered_at: null,
          created_at: d.at,
        })
        .execute();

    const report = await gw.app.attest.housekeeping.run();
    expect(report).toMatchObject({
      oauthCodes: 501,
      installStates: 1,
      invitations: 3,
      signInFlows: 3,
      githubUserTokens: 1,
      notificationBodies: 2,
    });

    const keys = async <T extends Record<string, unknown>>(rows: Promise<T[]>, key: keyof T) =>
      (await rows).map((r) => String(r[key])).sort();
    expect(await keys(db.selectFrom('oauth_codes').select('digest').execute(), 'digest')).toEqual(['boundary', 'live']);
    expect(await keys(db.selectFrom('install_states_used').select('digest').execute(), 'digest')).toEqual([
      'boundary',
      'live',
    ]);
    expect(await keys(db.selectFrom('invitations').select('id').execute(), 'id')).toEqual([
      'accepted-boundary',
      'live',
      'revoked-boundary',
    ]);
    for (const [table, key] of [
      ['sign_in_flows', 'state_digest'],
      ['cli_login_codes', 'code_digest'],
      ['cli_device_codes', 'device_digest'],
    ] as const)
      expect(await keys(db.selectFrom(table).select(key).execute() as Promise<Record<string, unknown>[]>, key)).toEqual(
        ['boundary', 'live'],
      );
    expect(await keys(db.selectFrom('github_user_tokens').select('subject').execute(), 'subject')).toEqual(['live']);
    const kept = await db
      .selectFrom('notification_deliveries')
      .select(['event_id', 'request_body', 'response_body', 'event'])
      .orderBy('event_id')
      .execute();
    // Every row stays (the deliveries go after 30 days); only the two week-old finished ones lost their bodies.
    expect(kept.map((d) => [d.event_id, d.request_body !== null, d.response_body !== null, d.event !== null])).toEqual([
      ['boundary', true, true, true],
      ['failed', false, false, false],
      ['gone', false, false, false],
      ['pending', true, true, true],
    ]);

    // A second run finds nothing left to do.
    expect(await gw.app.attest.housekeeping.run()).toMatchObject({
      oauthCodes: 0,
      installStates: 0,
      invitations: 0,
      signInFlows: 0,
      githubUserTokens: 0,
      notificationBodies: 0,
    });
  });
});
