// GET /v1/sessions/{traceId} links a session to its family: a subagent names its parent's traceId, a parent
// lists its subagent sessions. Scoped to the factory: another factory's session of the same id is no link.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { canonical, variant, type Doc } from './fixtures.js';

let gw: TestGateway;
let a: Tenant;
let b: Tenant;

const PARENT = canonical('full');
const SUB = canonical('subagent-redacted');
const SUB2 = variant(SUB, (d) => {
  d.subagent.agentId = 'ffff000011112222';
  d.startedAt = '2026-07-01T14:20:00.000Z';
});

async function sync(t: Tenant, sessions: Doc[]): Promise<void> {
  const r = await gw.call('POST', '/v1/agents/sync', {
    token: t.factoryKey,
    appId: t.appId,
    body: { schemaVersion: 1, sessions },
  });
  expect(r.status, r.text).toBe(200);
  expect(r.body.data.rejected).toEqual([]);
}

async function list(t: Tenant): Promise<Doc[]> {
  const r = await gw.call('GET', '/v1/sessions?includeSubagents=1&repoScope=all', {
    token: t.loginToken,
    appId: t.appId,
  });
  expect(r.status).toBe(200);
  return r.body.data.sessions;
}

const detail = async (t: Tenant, traceId: string) => {
  const r = await gw.call('GET', `/v1/sessions/${traceId}`, { token: t.loginToken, appId: t.appId });
  expect(r.status, r.text).toBe(200);
  return r.body.data;
};

withGatewayAndTenants((s) => ({ gw, a, b } = s));
beforeAll(async () => {
  await sync(a, [PARENT, SUB, SUB2]);
  await sync(b, [SUB]); // b has the subagent, not its parent
});

describe('session family links', () => {
  it('a parent lists its subagents, oldest first; each subagent names its parent', async () => {
    const rows = await list(a);
    expect(rows).toHaveLength(3);
    const parent = rows.find((r) => !r.isSubagent)!;
    const subs = rows.filter((r) => r.isSubagent);
    const p = await detail(a, parent.traceId);
    expect(p.parentTraceId).toBeNull();
    // SUB starts at 14:10 (fixture), SUB2 at 14:20: oldest first.
    expect(p.subagents.map((s: Doc) => s.subagentId)).toEqual(['a1b2c3d4e5f60718', 'ffff000011112222']);
    expect(new Set(p.subagents.map((s: Doc) => s.traceId))).toEqual(new Set(subs.map((s) => s.traceId)));
    for (const s of subs) {
      const d = await detail(a, s.traceId);
      expect(d.parentTraceId).toBe(parent.traceId);
      expect(d.subagents).toEqual([]);
    }
  });

  it("another factory's parent of the same id is never linked", async () => {
    const [sub] = await list(b);
    const d = await detail(b, sub!.traceId);
    expect(d.parentSessionId).toBe(PARENT.id);
    expect(d.parentTraceId).toBeNull();
  });
});
