// A sync that re-sends sessions which grew since they were stored (what `attest sync` does as transcripts grow)
// updates every one of their summary rows, each to its own values: on PostgreSQL the rows are updated by one
// statement for the whole sync (db/bulk-insert.ts, updateRowsById). The expected summaries are not computed
// here: another factory receives the same whole transcripts as new sessions (the insert path), and each
// grown session must read exactly as its fresh twin.
import { describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { raw, rawNames, type Doc } from '../sessions/fixtures.js';

let gw: TestGateway;
let grown: Tenant;
let fresh: Tenant;
withGatewayAndTenants((s) => ({ gw, a: grown, b: fresh } = s), { a: { plan: 'paid' }, b: { plan: 'paid' } });

/** Top-level fixture transcripts with more than one turn, each under an id of its own. */
const whole: Doc[] = rawNames()
  .map((name) => raw(name, 'redacted'))
  .filter((d) => d.subagent === undefined && d.turns.length > 1)
  .slice(0, 6)
  .map((d, i) => ({ ...d, id: `grown-${i}` }));
const halves = whole.map((d) => ({ ...d, turns: d.turns.slice(0, Math.ceil(d.turns.length / 2)) }));

async function sync(t: Tenant, sessions: Doc[]) {
  const r = await gw.call('POST', '/v1/agents/sync', {
    token: t.factoryKey,
    appId: t.appId,
    body: { schemaVersion: 1, sessions },
  });
  expect(r.status, r.text.slice(0, 300)).toBe(200);
  expect(r.body.data.rejected).toEqual([]);
}

/**
 * Each session's summary as the list shows it, by session id, without the fields that name the row or its factory (its
 * owner is the actor).
 */
async function summaries(t: Tenant): Promise<Map<string, Record<string, unknown>>> {
  const r = await gw.call('GET', '/v1/sessions?repoScope=all&limit=100', { token: t.loginToken, appId: t.appId });
  expect(r.status).toBe(200);
  return new Map(
    (r.body.data.sessions as Record<string, unknown>[]).map((s) => {
      const { traceId: _t, createdAt: _c, updatedAt: _u, actorId: _a, actorName: _n, ...rest } = s;
      return [String(s.sessionId), rest];
    }),
  );
}

describe('re-sending grown sessions in one sync', () => {
  it('updates every summary to its own whole transcript, as a fresh sync of it reads', async () => {
    expect(whole.length).toBeGreaterThanOrEqual(3);
    await sync(grown, halves);
    const before = await summaries(grown);
    await sync(grown, whole);
    await sync(fresh, whole);

    const after = await summaries(grown);
    const expected = await summaries(fresh);
    expect([...after.keys()].sort()).toEqual(whole.map((d) => d.id).sort());
    for (const d of whole) {
      expect(after.get(d.id), d.id).toEqual(expected.get(d.id));
      // It did grow: the halves read fewer turns.
      expect(Number(before.get(d.id)!.turnCount), d.id).toBeLessThan(Number(after.get(d.id)!.turnCount));
    }
    // The turn counts differ from one transcript to another: a mix-up of rows would show.
    expect(new Set(whole.map((d) => after.get(d.id)!.turnCount)).size).toBeGreaterThan(1);
  });
});
