// Issue 15 §1 through the server: a session captured from a Claude Code transcript whose cache writes are
// split by TTL, synced, then read back from the list, the detail, the per-model metrics and the MCP twin.
// The expected figures are computed by hand in test/helpers/cache-ttl.ts from the published per-MTok prices.
import { describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { parseClaudeCodeTranscript, type AgentSessionV1 } from '../../../src/capture/index.js';
import { TTL_COSTS_MICROS, ttlTranscript } from '../../helpers/cache-ttl.js';

let gw: TestGateway;
let a: Tenant;
let b: Tenant;

withGatewayAndTenants((s) => ({ gw, a, b } = s));

const sync = (t: Tenant, sessions: unknown[]) =>
  gw.call('POST', '/v1/agents/sync', { token: t.factoryKey, appId: t.appId, body: { schemaVersion: 1, sessions } });
const get = (t: Tenant, url: string) => gw.call('GET', url, { token: t.loginToken, appId: t.appId });
const JULY = 'from=2026-07-01T00:00:00.000Z&to=2026-07-02T00:00:00.000Z';

async function listed(t: Tenant, sessionId: string) {
  const r = await get(t, '/v1/sessions?repoScope=all&limit=100');
  expect(r.status).toBe(200);
  return r.body.data.sessions.find((s: { sessionId: string }) => s.sessionId === sessionId);
}

/** What the capture sent before it kept the split: the same turns without `cacheCreate1h`. */
function withoutSplit(doc: AgentSessionV1): AgentSessionV1 {
  const copy = structuredClone(doc);
  for (const t of copy.turns) if (t.usage) delete t.usage.cacheCreate1h;
  return copy;
}

describe('cache writes by TTL through POST /v1/agents/sync', () => {
  it('prices a 5-minute-only, a 1-hour-only and a mixed turn at their rates and shows the writes by TTL', async () => {
    const doc = parseClaudeCodeTranscript(ttlTranscript('ttl-sync-1'), { tier: 'redacted' });
    const r = await sync(a, [doc]);
    expect(r.status).toBe(200);
    expect(r.body.data.accepted).toEqual(['ttl-sync-1']);

    const s = await listed(a, 'ttl-sync-1');
    // 25530 + 34530 + 28905 = 88965 µ$
    expect(s.costUsd).toBe(TTL_COSTS_MICROS.session / 1e6);
    expect(s.tokens).toEqual({
      input: 30,
      output: 900,
      cacheRead: 60_000,
      cacheWrite: 12_000,
      cacheWrite5m: 6500,
      cacheWrite1h: 5500,
    });

    const d = await get(a, `/v1/sessions/${s.traceId}`);
    expect(d.status).toBe(200);
    expect(d.body.data.modelUsage).toEqual([
      {
        model: 'claude-sonnet-4-6',
        turns: 3,
        costUsd: 0.088965,
        tokens: {
          input: 30,
          output: 900,
          cacheRead: 60_000,
          cacheWrite: 12_000,
          cacheWrite5m: 6500,
          cacheWrite1h: 5500,
        },
      },
    ]);
    // The document keeps the split as sent.
    expect(
      d.body.data.turns
        .filter((t: { role: string }) => t.role === 'assistant')
        .map((t: { usage: { cacheCreate1h?: number } }) => t.usage.cacheCreate1h),
    ).toEqual([undefined, 4000, 1500]);

    const m = await get(a, `/v1/metrics/models?${JULY}`);
    expect(m.status).toBe(200);
    expect(m.body.data.models).toEqual([
      expect.objectContaining({
        model: 'claude-sonnet-4-6',
        cacheWriteTokens: 12_000,
        cacheWrite5mTokens: 6500,
        cacheWrite1hTokens: 5500,
        costMicros: 88_965,
      }),
    ]);
    expect(m.body.data.totals).toMatchObject({
      cacheWriteTokens: 12_000,
      cacheWrite5mTokens: 6500,
      cacheWrite1hTokens: 5500,
      costMicros: 88_965,
    });

    // Another factory sees none of it.
    expect((await get(b, `/v1/metrics/models?${JULY}`)).body.data.models).toEqual([]);
    expect(await listed(b, 'ttl-sync-1')).toBeUndefined();
  });

  it('recomputes the cost of a session synced before the change when it is synced again', async () => {
    const doc = parseClaudeCodeTranscript(ttlTranscript('ttl-resync'), { tier: 'redacted' });
    // As the older capture sent it: every write priced at the five-minute rate, 3 × 25530 = 76590 µ$.
    expect((await sync(a, [withoutSplit(doc)])).status).toBe(200);
    const before = await listed(a, 'ttl-resync');
    expect(before.costUsd).toBe(TTL_COSTS_MICROS.sessionBefore / 1e6);
    expect(before.tokens).toMatchObject({ cacheWrite: 12_000, cacheWrite5m: 12_000, cacheWrite1h: 0 });
    const day = `/v1/metrics/models?${JULY}`;
    const costBefore = (await get(a, day)).body.data.totals.costMicros;

    // The same session re-synced (later) by a capture that keeps the split: one row, the new cost, the counters moved.
    gw.clock.advance(60_000);
    expect((await sync(a, [doc])).status).toBe(200);
    const after = await listed(a, 'ttl-resync');
    expect(after.traceId).toBe(before.traceId);
    expect(after.costUsd).toBe(TTL_COSTS_MICROS.session / 1e6);
    expect(after.tokens).toMatchObject({ cacheWrite: 12_000, cacheWrite5m: 6500, cacheWrite1h: 5500 });
    expect((await get(a, day)).body.data.totals.costMicros).toBe(
      costBefore - TTL_COSTS_MICROS.sessionBefore + TTL_COSTS_MICROS.session,
    );
    const overview = await get(a, `/v1/metrics/overview?${JULY}`);
    expect(overview.status).toBe(200);
    expect(overview.body.data.tiles.totalCostUsd.current).toBeCloseTo((TTL_COSTS_MICROS.session * 2) / 1e6, 9);
  });

  it('rejects a session whose one-hour part exceeds its cache write, and stores the others', async () => {
    const good = parseClaudeCodeTranscript(ttlTranscript('ttl-good'), { tier: 'metrics' });
    const bad = parseClaudeCodeTranscript(ttlTranscript('ttl-bad'), { tier: 'metrics' });
    bad.turns[2]!.usage!.cacheCreate1h = 4001;
    const negative = parseClaudeCodeTranscript(ttlTranscript('ttl-negative'), { tier: 'metrics' });
    (negative.turns[1]!.usage as unknown as Record<string, unknown>).cacheCreate1h = -1;
    const r = await sync(a, [good, bad, negative]);
    expect(r.status).toBe(200);
    expect(r.body.data.accepted).toEqual(['ttl-good']);
    expect(r.body.data.rejected).toEqual([
      { index: 1, id: 'ttl-bad', reason: 'turns.2.usage.cacheCreate1h must not exceed cacheCreate (4000)' },
      { index: 2, id: 'ttl-negative', reason: 'turns.1.usage.cacheCreate1h must be a non-negative integer' },
    ]);
  });
});
