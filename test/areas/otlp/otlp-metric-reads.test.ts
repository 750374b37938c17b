// GET /v1/metrics/telemetry (issue 41): the telemetry metrics filtered and broken down by actor, model and custom
// resource attribute (team=payments), with figures computed by hand.
import { describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';

const T = '1793530860000000000'; // 2026-11-01T11:01:00Z

/** One delta sum point of a metric from a resource with `team`, for `email`. */
function metric(team: string, email: string, name: string, value: number, attrs: Record<string, string> = {}) {
  const kv = (o: Record<string, string>) => Object.entries(o).map(([key, v]) => ({ key, value: { stringValue: v } }));
  return {
    resource: { attributes: kv({ 'service.name': 'claude-code', team }) },
    scopeMetrics: [
      {
        metrics: [
          {
            name: `claude_code.${name}`,
            sum: {
              aggregationTemporality: 1,
              isMonotonic: true,
              dataPoints: [
                {
                  asDouble: value,
                  startTimeUnixNano: T,
                  timeUnixNano: T,
                  attributes: kv({ 'user.email': email, ...attrs }),
                },
              ],
            },
          },
        ],
      },
    ],
  };
}

describe('telemetry metric reads by actor and attribute', () => {
  let gw: TestGateway;
  let a: Tenant;
  let b: Tenant;
  withGatewayAndTenants((s) => ({ gw, a, b } = s));

  const read = (t: Tenant, q: string, token = t.loginToken) =>
    gw.call('GET', `/v1/metrics/telemetry?from=2026-11-01&to=2026-11-01&${q}`, { token, appId: t.appId });

  it('filters and breaks down lines, active time, acceptance and cost by actor and team', async () => {
    const body = {
      resourceMetrics: [
        metric('payments', 'ann@example.com', 'lines_of_code.count', 10, { type: 'added' }),
        metric('payments', 'ann@example.com', 'cost.usage', 1.5, { model: 'm1' }),
        metric('payments', 'ann@example.com', 'code_edit_tool.decision', 3, { decision: 'accept' }),
        metric('payments', 'ann@example.com', 'code_edit_tool.decision', 1, { decision: 'reject' }),
        metric('search', 'bob@example.com', 'lines_of_code.count', 4, { type: 'added' }),
        metric('search', 'bob@example.com', 'cost.usage', 0.5, { model: 'm1' }),
        metric('search', 'bob@example.com', 'active_time.total', 60, { type: 'cli' }),
      ],
    };
    const r = await gw.app.inject({
      method: 'POST',
      url: '/v1/metrics',
      headers: {
        authorization: `Bearer ${a.factoryKey}`,
        'x-outerlayer-app-id': a.appId,
        'content-type': 'application/json',
      },
      payload: JSON.stringify(body),
    });
    expect(r.statusCode, r.body).toBe(200);

    const all = await read(a, 'by=attribute:team');
    expect(all.status, all.text).toBe(200);
    // Whole factory: 14 lines, 60 s, 3 of 4 accepted, $2.00; payments first (costlier).
    expect(all.body.data.totals).toEqual({
      linesAdded: 14,
      linesRemoved: 0,
      activeTimeSeconds: 60,
      editDecisions: 4,
      editAcceptanceRate: 0.75,
      costUsd: 2,
    });
    expect(all.body.data.rows).toEqual([
      {
        key: 'payments',
        linesAdded: 10,
        linesRemoved: 0,
        activeTimeSeconds: 0,
        editDecisions: 4,
        editAcceptanceRate: 0.75,
        costUsd: 1.5,
      },
      {
        key: 'search',
        linesAdded: 4,
        linesRemoved: 0,
        activeTimeSeconds: 60,
        editDecisions: 0,
        editAcceptanceRate: null,
        costUsd: 0.5,
      },
    ]);
    const team = await read(a, 'attribute=team=search&by=actor');
    expect(team.body.data.totals).toMatchObject({ linesAdded: 4, activeTimeSeconds: 60, costUsd: 0.5 });
    expect(team.body.data.rows).toEqual([expect.objectContaining({ key: 'bob@example.com', linesAdded: 4 })]);
    const ann = await read(a, `actor=${encodeURIComponent('ann@example.com')}`);
    expect(ann.body.data.totals).toMatchObject({ linesAdded: 10, editAcceptanceRate: 0.75, costUsd: 1.5 });

    const bad = await read(a, 'by=attribute:team&attribute=env=prod');
    expect(bad.status).toBe(400);
    expect((await read(a, 'by=team')).status).toBe(400);
    expect((await gw.call('GET', '/v1/metrics/telemetry', { appId: a.appId })).status).toBe(401);
    // Another factory sees nothing.
    expect((await read(b, 'by=actor')).body.data).toMatchObject({ totals: null, rows: [] });
  });
});
