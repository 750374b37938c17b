// Issue 41 "People": a session and metrics seen only through Claude Code's telemetry name their person by the
// `user.email` it sends, under the existing pseudonym rules. A member without sessions.read_team (the read and
// write roles) reads `anon-` pseudonyms and `anonymous` wherever the telemetry's person shows (the session list,
// one session, the sessions export, the telemetry metrics by actor), never the email, and may not filter by
// actor; the owner reads the email.
import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';

const EMAIL = 'dev.person@example.com';
const kv = (o: Record<string, string | number>) =>
  Object.entries(o).map(([key, v]) => ({
    key,
    value: typeof v === 'number' ? { doubleValue: v } : { stringValue: v },
  }));

describe('telemetry sessions read without sessions.read_team', () => {
  let gw: TestGateway;
  let a: Tenant;
  let reader: { loginToken: string };
  let writer: { loginToken: string };
  withGatewayAndTenants((s) => ({ gw, a } = s));

  const post = async (url: string, body: unknown) => {
    const r = await gw.app.inject({
      method: 'POST',
      url,
      headers: {
        authorization: `Bearer ${a.factoryKey}`,
        'x-outerlayer-app-id': a.appId,
        'content-type': 'application/json',
      },
      payload: JSON.stringify(body),
    });
    expect(r.statusCode, r.body).toBe(200);
  };
  const pseudonym = (id: string) =>
    `anon-${crypto.createHmac('sha256', gw.app.attest.anonSecret).update(id).digest('hex').slice(0, 16)}`;

  beforeAll(async () => {
    reader = await addMember(gw, a, 'read');
    writer = await addMember(gw, a, 'write');
    const at = Date.parse('2026-11-01T11:00:00Z');
    const record = (ms: number, name: string, attrs: Record<string, string | number>) => ({
      timeUnixNano: String(BigInt(at + ms) * 1_000_000n),
      body: { stringValue: `claude_code.${name}` },
      attributes: kv({
        'event.name': name,
        'event.timestamp': new Date(at + ms).toISOString(),
        'session.id': 'cc-people',
        'user.email': EMAIL,
        'user.account_uuid': 'acc-people',
        ...attrs,
      }),
    });
    await post('/v1/logs', {
      resourceLogs: [
        {
          resource: { attributes: kv({ 'service.name': 'claude-code' }) },
          scopeLogs: [
            {
              logRecords: [
                record(0, 'user_prompt', { prompt_length: 12 }),
                record(1000, 'api_request', { model: 'claude-sonnet-4-5-20250929', cost_usd: 0.25 }),
              ],
            },
          ],
        },
      ],
    });
    const T = String(BigInt(at + 60_000) * 1_000_000n);
    await post('/v1/metrics', {
      resourceMetrics: [
        {
          resource: { attributes: kv({ 'service.name': 'claude-code' }) },
          scopeMetrics: [
            {
              metrics: [
                {
                  name: 'claude_code.lines_of_code.count',
                  sum: {
                    aggregationTemporality: 1,
                    isMonotonic: true,
                    dataPoints: [
                      {
                        asDouble: 7,
                        startTimeUnixNano: T,
                        timeUnixNano: T,
                        attributes: kv({ 'user.email': EMAIL, type: 'added' }),
                      },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    });
  });

  it('the owner reads the email the telemetry sent', async () => {
    const list = await gw.call('GET', '/v1/sessions?repoScope=all', { token: a.loginToken, appId: a.appId });
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.sessions).toEqual([
      expect.objectContaining({ sessionId: 'cc-people', captureSource: 'telemetry', actorId: EMAIL }),
    ]);
    const metrics = await gw.call('GET', '/v1/metrics/telemetry?from=2026-11-01&to=2026-11-01&by=actor', {
      token: a.loginToken,
      appId: a.appId,
    });
    expect(metrics.body.data.rows).toEqual([expect.objectContaining({ key: EMAIL, linesAdded: 7 })]);
  });

  it.each([
    ['read', () => reader],
    ['write', () => writer],
  ])('a %s member reads pseudonyms, never the email, and may not filter by actor', async (_role, who) => {
    const as = { token: who().loginToken, appId: a.appId };
    const anon = pseudonym(EMAIL);
    const list = await gw.call('GET', '/v1/sessions?repoScope=all', as);
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.scope).toBe('self');
    expect(list.body.data.sessions).toEqual([
      expect.objectContaining({ sessionId: 'cc-people', actorId: anon, actorName: 'anonymous' }),
    ]);
    expect(list.body.data.actors).toEqual([anon]);
    expect(list.text).not.toContain(EMAIL);

    const one = await gw.call('GET', `/v1/sessions/${list.body.data.sessions[0].traceId}`, as);
    expect(one.status, one.text).toBe(200);
    expect(one.body.data).toMatchObject({ actorId: anon, actorName: 'anonymous' });
    expect(one.text).not.toContain(EMAIL);

    const csv = await gw.call('GET', '/v1/sessions/export?repoScope=all', as);
    expect(csv.status, csv.text).toBe(200);
    expect(csv.text).toContain(`,${anon},anonymous,`);
    expect(csv.text).not.toContain(EMAIL);

    const metrics = await gw.call('GET', '/v1/metrics/telemetry?from=2026-11-01&to=2026-11-01&by=actor', as);
    expect(metrics.status, metrics.text).toBe(200);
    expect(metrics.body.data.rows).toEqual([expect.objectContaining({ key: anon, linesAdded: 7 })]);
    expect(metrics.text).not.toContain(EMAIL);

    for (const url of [
      `/v1/sessions?repoScope=all&actor=${encodeURIComponent(EMAIL)}`,
      `/v1/metrics/telemetry?from=2026-11-01&to=2026-11-01&actor=${encodeURIComponent(EMAIL)}`,
    ]) {
      const refused = await gw.call('GET', url, as);
      expect(refused.status, url).toBe(400);
      expect(refused.body.error.code).toBe('actor_filter_forbidden');
    }
  });
});
