// Notification channels against a real HTTP receiver on 127.0.0.1 (ATTEST_NOTIFY_ALLOW_PRIVATE=1): the
// webhook's signature checked by the receiver's own code, Slack blocks, retry after a 500 with backoff on the
// test clock, a channel disabled after repeated failures and re-enabled, redelivery with the same event id,
// a delivery whose replica died mid-send, bodies forgotten after 7 days, the SSRF rules with the operator's
// switch off, every error code, and nothing of another factory. The events the gateway notices by itself:
// a session it refused (session.failed_sync), a host gone silent (host.offline, once per spell) and a claim
// whose lease ran out (work_item.claim_expired, once per claim), each to the subscribed channels of its own
// factory only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { foreignCallers, siblingFactory, type Sibling } from '../../helpers/cross-tenant.js';
import { claim, keyWith, newItem } from '../work-items/helpers.js';
import { Receiver, verify } from './receiver.js';
import * as store from '../../../src/areas/notifications/store.js';
import { LEASE_MS } from '../../../src/areas/notifications/service.js';

describe('notification channels', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  let sibling: Sibling;
  const receiver = new Receiver();
  const as = (t: Tenant = a) => ({ token: t.factoryKey, appId: t.appId });
  const run = () => gw.app.attest.notifications.runDueJobs();

  withGatewayAndTenants((s) => ({ gw, a, b } = s), { gateway: { env: { ATTEST_NOTIFY_ALLOW_PRIVATE: '1' } } });
  beforeAll(async () => {
    await receiver.start();
    sibling = await siblingFactory(gw, a);
  });
  afterAll(() => receiver.close());

  const create = async (body: Record<string, unknown>, t: Tenant = a) => {
    const r = await gw.call('POST', '/v1/notification-channels', { ...as(t), body });
    expect(r.status, r.text).toBe(201);
    return r.body.data;
  };
  const deliveries = async (id: string) =>
    (await gw.call('GET', `/v1/notification-channels/${id}/deliveries`, as())).body.data;

  it('a webhook: the secret is shown once, and a test event arrives signed with it', async () => {
    const ch = await create({ name: 'ops', kind: 'webhook', url: `${receiver.url}/ops`, events: ['budget.threshold'] });
    expect(ch.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(ch).toMatchObject({
      kind: 'webhook',
      url: `${receiver.url}/ops`,
      events: ['budget.threshold'],
      enabled: true,
    });
    receiver.expectSecret('/ops', ch.secret);
    const listed = await gw.call('GET', '/v1/notification-channels', as());
    expect(listed.body.data).toHaveLength(1);
    expect(listed.text).not.toContain(ch.secret);
    expect((await gw.call('GET', `/v1/notification-channels/${ch.id}`, as())).body.data.secret).toBeUndefined();

    const test = await gw.call('POST', `/v1/notification-channels/${ch.id}/test`, as());
    expect(test.status).toBe(201);
    expect(test.body.data).toMatchObject({ status: 'succeeded', attempts: 1, responseCode: 200, eventType: 'test' });
    const [got] = receiver.at('/ops');
    expect(got!.signatureValid).toBe(true);
    // The check can fail: another secret, or a changed body, does not verify.
    expect(verify('whsec_other', String(got!.headers['x-attest-signature']), got!.body)).toBe(false);
    expect(verify(ch.secret, String(got!.headers['x-attest-signature']), `${got!.body} `)).toBe(false);
    const t = Math.floor(gw.clock.now() / 1000);
    expect(got!.headers['x-attest-signature']).toMatch(new RegExp(`^t=${t},v1=[0-9a-f]{64}$`));
    expect(got!.headers['x-attest-event']).toBe('test');
    expect(got!.headers['x-attest-event-id']).toBe(test.body.data.eventId);
    expect(got!.json).toMatchObject({ id: test.body.data.eventId, type: 'test', version: 1, appId: a.appId });
    const log = await deliveries(ch.id);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      status: 'succeeded',
      responseCode: 200,
      requestBody: got!.body,
      responseBody: 'ok',
    });
    expect(log[0].latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('a Slack channel gets blocks, and its URL (a credential) is shown cut short', async () => {
    const ch = await create({ name: 'slack', kind: 'slack', url: `${receiver.url}/services/T1/B2/sekrit` });
    expect(ch.secret).toBeNull();
    expect(ch.url).toBe(`${receiver.url}/services/…`);
    const test = await gw.call('POST', `/v1/notification-channels/${ch.id}/test`, as());
    expect(test.body.data.status).toBe('succeeded');
    const [got] = receiver.at('/services/T1/B2/sekrit');
    expect(got!.json).toEqual({
      text: 'A test event from Attest for the channel "slack".',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: 'A test event from Attest for the channel "slack".' } },
      ],
    });
  });

  it('retries after a 500 with backoff, then delivers the same event', async () => {
    const ch = await create({ name: 'flaky', kind: 'webhook', url: `${receiver.url}/flaky` });
    receiver.answer(500);
    const first = (await gw.call('POST', `/v1/notification-channels/${ch.id}/test`, as())).body.data;
    expect(first).toMatchObject({
      status: 'pending',
      attempts: 1,
      responseCode: 500,
      responseBody: 'failing with 500',
    });
    expect(first.nextAttemptAt).toBe(new Date(gw.clock.now() + 30_000).toISOString());
    expect((await gw.call('GET', `/v1/notification-channels/${ch.id}`, as())).body.data.consecutiveFailures).toBe(1);
    gw.clock.advance(29_000);
    expect((await run()).claimed).toBe(0);
    gw.clock.advance(1_000);
    expect(await run()).toMatchObject({ claimed: 1, succeeded: 1 });
    const sent = receiver.at('/flaky');
    expect(sent).toHaveLength(2);
    expect(sent[0]!.headers['x-attest-event-id']).toBe(first.eventId);
    expect(sent[1]!.headers['x-attest-event-id']).toBe(first.eventId);
    const [log] = await deliveries(ch.id);
    expect(log).toMatchObject({ status: 'succeeded', attempts: 2, responseCode: 200 });
    expect((await gw.call('GET', `/v1/notification-channels/${ch.id}`, as())).body.data.consecutiveFailures).toBe(0);
  });

  it('a 4xx is not retried', async () => {
    const ch = await create({ name: 'gone', kind: 'webhook', url: `${receiver.url}/gone` });
    receiver.answer(404);
    const d = (await gw.call('POST', `/v1/notification-channels/${ch.id}/test`, as())).body.data;
    expect(d).toMatchObject({ status: 'failed', attempts: 1, responseCode: 404, nextAttemptAt: null });
  });

  it('disables a channel after 10 failures in a row, says why, and redelivers once re-enabled', async () => {
    const ch = await create({ name: 'dead', kind: 'webhook', url: `${receiver.url}/dead` });
    receiver.answer(...Array(10).fill(503));
    const d = (await gw.call('POST', `/v1/notification-channels/${ch.id}/test`, as())).body.data;
    // Backoff doubles from 30 s: 30, 60, 120, ... 1920 s, then 3600 s at most.
    const waits = [30, 60, 120, 240, 480, 960, 1920, 3600, 3600];
    for (const s of waits) {
      gw.clock.advance(s * 1000 - 1);
      expect((await run()).claimed).toBe(0);
      gw.clock.advance(1);
      expect((await run()).claimed).toBe(1);
    }
    expect(receiver.at('/dead')).toHaveLength(10);
    const read = (await gw.call('GET', `/v1/notification-channels/${ch.id}`, as())).body.data;
    expect(read).toMatchObject({ enabled: false, consecutiveFailures: 10 });
    expect(read.disabledReason).toBe(
      'Disabled after 10 failed deliveries in a row; the last: The receiver answered HTTP 503.',
    );
    // The pending delivery is not sent to a disabled channel: it fails when next due.
    gw.clock.advance(3600_000);
    await run();
    expect(receiver.at('/dead')).toHaveLength(10);
    expect((await deliveries(ch.id))[0]).toMatchObject({ status: 'failed', error: 'The channel is disabled.' });

    const enabled = await gw.call('PATCH', `/v1/notification-channels/${ch.id}`, { ...as(), body: { enabled: true } });
    expect(enabled.body.data).toMatchObject({ enabled: true, disabledReason: null, consecutiveFailures: 0 });
    const again = await gw.call('POST', `/v1/notification-channels/${ch.id}/deliveries/${d.id}/redeliver`, as());
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ status: 'pending', attempts: 0 });
    expect(await run()).toMatchObject({ claimed: 1, succeeded: 1 });
    const all = receiver.at('/dead');
    expect(all).toHaveLength(11);
    expect(all[10]!.headers['x-attest-event-id']).toBe(d.eventId);
  });

  it('a delivery whose replica died mid-send is sent by another once the lease ends', async () => {
    const ch = await create({ name: 'lease', kind: 'webhook', url: `${receiver.url}/lease` });
    receiver.answer(500);
    const d = (await gw.call('POST', `/v1/notification-channels/${ch.id}/test`, as())).body.data;
    gw.clock.advance(30_000);
    const db = gw.app.attest.db;
    expect(await store.claimDelivery(db, d.id, 'replica-that-dies', gw.clock.now(), LEASE_MS)).not.toBeNull();
    expect((await run()).claimed).toBe(0);
    gw.clock.advance(LEASE_MS);
    expect(await run()).toMatchObject({ claimed: 1, succeeded: 1 });
    expect(receiver.at('/lease')).toHaveLength(2);
  });

  it('forgets bodies after 7 days; such a delivery cannot be sent again', async () => {
    const ch = await create({ name: 'old', kind: 'webhook', url: `${receiver.url}/old` });
    const d = (await gw.call('POST', `/v1/notification-channels/${ch.id}/test`, as())).body.data;
    gw.clock.advance(7 * 24 * 3600_000 + 1);
    expect((await gw.app.attest.housekeeping.run()).notificationBodies).toBeGreaterThanOrEqual(1);
    const [log] = await deliveries(ch.id);
    expect(log).toMatchObject({
      id: d.id,
      status: 'succeeded',
      responseCode: 200,
      requestBody: null,
      responseBody: null,
    });
    const r = await gw.call('POST', `/v1/notification-channels/${ch.id}/deliveries/${d.id}/redeliver`, as());
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('delivery_body_expired');
  });

  it('refuses non-https and private targets unless the operator allows them', async () => {
    const refused = async (url: string) => {
      const r = await gw.call('POST', '/v1/notification-channels', {
        ...as(),
        body: { name: 'x', kind: 'webhook', url },
      });
      expect(r.status, url).toBe(400);
      expect(r.body.error.code).toBe('notification_target_refused');
    };
    await refused('ftp://example.com/hook');
    await refused('http://example.com/hook');
    await refused('not a url');
    const ch = await create({ name: 'private', kind: 'webhook', url: `${receiver.url}/private` });
    const config = gw.app.attest.config;
    config.notifyAllowPrivate = false;
    try {
      for (const url of [
        `${receiver.url}/x`,
        'https://127.0.0.1/x',
        'https://10.1.2.3/x',
        'https://169.254.169.254/latest',
        'https://[::1]/x',
        'https://[::ffff:127.0.0.1]/x',
        'https://localhost/x',
        'https://user:pw@hooks.example.com/x',
      ])
        await refused(url);
      expect((await create({ name: 'public', kind: 'slack', url: 'https://hooks.slack.com/services/T/B/X' })).url).toBe(
        'https://hooks.slack.com/services/…',
      );
      const patch = await gw.call('PATCH', `/v1/notification-channels/${ch.id}`, {
        ...as(),
        body: { url: 'https://192.168.1.1/x' },
      });
      expect(patch.body.error.code).toBe('notification_target_refused');
      // A channel made while they were allowed is refused at send time, without a request.
      const d = (await gw.call('POST', `/v1/notification-channels/${ch.id}/test`, as())).body.data;
      expect(d).toMatchObject({ status: 'failed', responseCode: null });
      expect(d.error).toMatch(/https/);
      expect(receiver.at('/private')).toHaveLength(0);
    } finally {
      config.notifyAllowPrivate = true;
    }
  });

  it('answers every documented error', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const [method, path] of [
      ['GET', `/v1/notification-channels/${missing}`],
      ['PATCH', `/v1/notification-channels/${missing}`],
      ['DELETE', `/v1/notification-channels/${missing}`],
      ['POST', `/v1/notification-channels/${missing}/test`],
      ['GET', `/v1/notification-channels/${missing}/deliveries`],
    ] as const) {
      const r = await gw.call(method, path, { ...as(), ...(method === 'PATCH' ? { body: { name: 'n' } } : {}) });
      expect(r.status, path).toBe(404);
      expect(r.body.error.code).toBe('notification_channel_not_found');
    }
    const ch = await create({ name: 'errs', kind: 'webhook', url: `${receiver.url}/errs` });
    const nd = await gw.call('POST', `/v1/notification-channels/${ch.id}/deliveries/${missing}/redeliver`, as());
    expect(nd.body.error.code).toBe('notification_delivery_not_found');
    const bad = await gw.call('POST', '/v1/notification-channels', {
      ...as(),
      body: { name: 'x', kind: 'email', url: 'https://x.test' },
    });
    expect(bad.body.error.code).toBe('invalid_request_body');
    const badEvent = await gw.call('POST', '/v1/notification-channels', {
      ...as(),
      body: { name: 'x', kind: 'webhook', url: 'https://x.test', events: ['nope'] },
    });
    expect(badEvent.body.error.code).toBe('invalid_request_body');
    expect((await gw.call('GET', '/v1/notification-channels', { appId: a.appId })).status).toBe(401);
    expect(
      (await gw.call('GET', '/v1/notification-channels', { token: 'sk_outerlayer_nope', appId: a.appId })).status,
    ).toBe(401);
    const readOnly = await keyWith(gw, a, ['notifications.read']);
    const denied = await gw.call('POST', `/v1/notification-channels/${ch.id}/test`, {
      token: readOnly,
      appId: a.appId,
    });
    expect(denied.status).toBe(403);
    expect(denied.body.error.required_permission).toBe('notifications.write');
    const none = await keyWith(gw, a, ['sessions.read']);
    const deniedRead = await gw.call('GET', '/v1/notification-channels', { token: none, appId: a.appId });
    expect(deniedRead.body.error.required_permission).toBe('notifications.read');
    expect((await gw.call('DELETE', `/v1/notification-channels/${ch.id}`, as())).status).toBe(204);
    expect((await gw.call('GET', `/v1/notification-channels/${ch.id}`, as())).status).toBe(404);
  });

  it('announces a refused session, an offline host, an expired claim once each; not to another factory', async () => {
    const events = ['session.failed_sync', 'host.offline', 'work_item.claim_expired'];
    const ch = await create({ name: 'events', kind: 'webhook', url: `${receiver.url}/events`, events });
    receiver.expectSecret('/events', ch.secret);
    const theirs = await create({ name: 'theirs', kind: 'webhook', url: `${receiver.url}/theirs`, events }, b);
    await create({
      name: 'slack ev',
      kind: 'slack',
      url: `${receiver.url}/services/T9/B9/ev`,
      events: ['host.offline'],
    });
    // Subscribed to budgets only: none of these events.
    await create({ name: 'budgets only', kind: 'webhook', url: `${receiver.url}/budgets-only` });
    const got = (type: string) =>
      receiver
        .at('/events')
        .filter((r) => r.headers['x-attest-event'] === type)
        .map((r) => r.json as { id: string; type: string; version: number; appId: string; data: any });

    // A session the gateway refuses is refused again each time the CLI sends it: one notice.
    const refused = { schemaVersion: 1, sessions: [{ schemaVersion: 1, id: 'broken-1', startedAt: 'not a time' }] };
    const first = await gw.call('POST', '/v1/agents/sync', { ...as(), body: refused });
    expect(first.body.data.rejected).toEqual([{ index: 0, id: 'broken-1', reason: expect.any(String) }]);
    await gw.call('POST', '/v1/agents/sync', { ...as(), body: refused });
    await run();
    const failed = got('session.failed_sync');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ type: 'session.failed_sync', version: 1, appId: a.appId });
    expect(failed[0]!.data).toEqual({
      sessionId: 'broken-1',
      reason: first.body.data.rejected[0].reason,
      actorId: a.ownerId,
      actorName: expect.any(String),
      rejectedAt: new Date(gw.clock.now()).toISOString(),
    });

    // A host is offline after 10 minutes of silence: told once per spell.
    const beat = () =>
      gw.call('POST', '/v1/hosts/heartbeat', {
        ...as(),
        body: {
          hostId: 'h-ev',
          name: 'runner-ev',
          runnerVersion: '1.4.0',
          capacity: 1,
          activeJobs: 0,
          labels: ['gpu'],
        },
      });
    expect((await beat()).status).toBe(200);
    const heard = gw.clock.now();
    gw.clock.advance(600_000 - 30_000);
    await run();
    expect(got('host.offline')).toHaveLength(0);
    gw.clock.advance(30_001);
    expect((await run()).hostsOffline).toBe(1);
    gw.clock.advance(60_000);
    expect((await run()).hostsOffline).toBe(0);
    expect(got('host.offline')).toHaveLength(1);
    expect(got('host.offline')[0]!.data).toEqual({
      hostId: 'h-ev',
      name: 'runner-ev',
      runnerVersion: '1.4.0',
      labels: ['gpu'],
      lastHeartbeatAt: new Date(heard).toISOString(),
      offlineAfterSeconds: 600,
      url: `http://attest.test/f/${a.appId}/hosts`,
    });
    const [slack] = receiver.at('/services/T9/B9/ev');
    const sentence = `Host "runner-ev" has not been heard from since ${new Date(heard).toISOString()}.`;
    expect(slack!.json).toEqual({
      text: sentence,
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'Host offline' } },
        { type: 'section', text: { type: 'mrkdwn', text: sentence } },
        {
          type: 'context',
          elements: [{ type: 'mrkdwn', text: `<http://attest.test/f/${a.appId}/hosts|Open in Attest>` }],
        },
      ],
    });
    // Back, then silent again: a new spell, a new notice, once though two replicas look at the same moment.
    await beat();
    const again = gw.clock.now();
    gw.clock.advance(600_001);
    const replica = await startGateway({ replicaOf: gw, env: { ATTEST_NOTIFY_ALLOW_PRIVATE: '1' } });
    try {
      const [x, y] = await Promise.all([run(), replica.app.attest.notifications.runDueJobs()]);
      expect(x.hostsOffline + y.hostsOffline).toBeGreaterThanOrEqual(1);
      // The webhook and the Slack channel: one delivery each.
      expect(x.succeeded + y.succeeded).toBe(2);
    } finally {
      await replica.close();
    }
    expect(got('host.offline').map((e) => e.data.lastHeartbeatAt)).toEqual([
      new Date(heard).toISOString(),
      new Date(again).toISOString(),
    ]);

    // A claim whose lease runs out without a release: once. One released in time: never.
    const item = await newItem(gw, a);
    const held = await claim(gw, a, item.id, { ttlSeconds: 60 });
    expect(held.status).toBe(201);
    const kept = await newItem(gw, a);
    expect((await claim(gw, a, kept.id, { ttlSeconds: 60 })).status).toBe(201);
    expect((await gw.call('DELETE', `/v1/work-items/${kept.id}/claims/current`, as())).status).toBe(204);
    gw.clock.advance(59_999);
    await run();
    expect(got('work_item.claim_expired')).toHaveLength(0);
    gw.clock.advance(30_001);
    expect((await run()).claimsExpired).toBe(1);
    gw.clock.advance(60_000);
    expect((await run()).claimsExpired).toBe(0);
    const expired = got('work_item.claim_expired');
    expect(expired).toHaveLength(1);
    expect(expired[0]!.data).toEqual({
      workItem: { id: item.id, number: item.number, title: item.title },
      claim: held.body.data.claim,
      url: `http://attest.test/f/${a.appId}/work/${item.id}`,
    });

    expect(receiver.at('/events').every((r) => r.signatureValid === true)).toBe(true);
    expect(new Set(receiver.at('/events').map((r) => r.headers['x-attest-event-id'])).size).toBe(4);
    expect(receiver.at('/theirs')).toEqual([]);
    expect(receiver.at('/budgets-only')).toEqual([]);
    expect((await gw.call('DELETE', `/v1/notification-channels/${theirs.id}`, as(b))).status).toBe(204);
  });

  it('a session the CLI gave up on (sync-failures) is announced once; another factory hears none', async () => {
    const events = ['session.failed_sync'];
    const ch = await create({ name: 'given up', kind: 'webhook', url: `${receiver.url}/given-up`, events });
    receiver.expectSecret('/given-up', ch.secret);
    const theirs = await create(
      { name: 'their given up', kind: 'webhook', url: `${receiver.url}/given-up-b`, events },
      b,
    );
    const reason = 'too large for the gateway even alone (413, limit 8388608 bytes)';
    const report = (body: unknown, who: { token?: string; appId?: string } = as()) =>
      gw.call('POST', '/v1/agents/sync-failures', { ...who, body });

    const first = await report({ failures: [{ sessionId: 'huge-1', reason }] });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ data: { reported: 1 } });
    // The CLI reports it again on every sync that finds the file changed: still one notice.
    expect((await report({ failures: [{ sessionId: 'huge-1', reason }] })).status).toBe(200);
    await run();
    const got = receiver.at('/given-up').map((r) => r.json as { type: string; appId: string; data: unknown });
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ type: 'session.failed_sync', appId: a.appId });
    expect(got[0]!.data).toEqual({
      sessionId: 'huge-1',
      reason,
      actorId: a.ownerId,
      actorName: expect.any(String),
      rejectedAt: new Date(gw.clock.now()).toISOString(),
    });
    expect(receiver.at('/given-up').every((r) => r.signatureValid === true)).toBe(true);
    expect(receiver.at('/given-up-b')).toEqual([]);

    // Bad input is a 400 in the envelope; a missing credential 401; a key without sessions.write 403.
    for (const bad of [
      {},
      { failures: [] },
      { failures: [{ sessionId: '', reason }] },
      { failures: [{ sessionId: 'x' }] },
    ]) {
      const res = await report(bad);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request_body');
    }
    expect((await report({ failures: [{ sessionId: 'x', reason }] }, { appId: a.appId })).status).toBe(401);
    const readOnly = await keyWith(gw, a, ['sessions.read']);
    const denied = await report({ failures: [{ sessionId: 'x', reason }] }, { token: readOnly, appId: a.appId });
    expect(denied.status).toBe(403);
    expect(denied.body.error.required_permission).toBe('sessions.write');

    // Another factory's report reaches its own channel only.
    expect((await report({ failures: [{ sessionId: 'huge-b', reason }] }, as(b))).status).toBe(200);
    await run();
    expect(receiver.at('/given-up')).toHaveLength(1);
    expect(receiver.at('/given-up-b').map((r) => (r.json as { data: { sessionId: string } }).data.sessionId)).toEqual([
      'huge-b',
    ]);
    expect((await gw.call('DELETE', `/v1/notification-channels/${theirs.id}`, as(b))).status).toBe(204);
    expect((await gw.call('DELETE', `/v1/notification-channels/${ch.id}`, as())).status).toBe(204);
  });

  it('another factory sees none of the channels or deliveries, and cannot change or test them', async () => {
    const ch = (await gw.call('GET', '/v1/notification-channels', as())).body.data[0];
    const before = await deliveries(ch.id);
    for (const [who, auth] of foreignCallers(b, sibling)) {
      expect((await gw.call('GET', '/v1/notification-channels', auth)).body.data, who).toEqual([]);
      for (const [method, path] of [
        ['GET', `/v1/notification-channels/${ch.id}`],
        ['PATCH', `/v1/notification-channels/${ch.id}`],
        ['POST', `/v1/notification-channels/${ch.id}/test`],
        ['GET', `/v1/notification-channels/${ch.id}/deliveries`],
        ['POST', `/v1/notification-channels/${ch.id}/deliveries/${before[0].id}/redeliver`],
        ['DELETE', `/v1/notification-channels/${ch.id}`],
      ] as const) {
        const r = await gw.call(method, path, { ...auth, ...(method === 'PATCH' ? { body: { name: 'stolen' } } : {}) });
        expect(r.status, `${who} ${method} ${path}`).toBe(404);
      }
    }
    expect((await gw.call('GET', `/v1/notification-channels/${ch.id}`, as())).body.data.name).toBe(ch.name);
    expect(await deliveries(ch.id)).toEqual(before);
  });
});
