// The AgentSession schema leaves its strings unbounded, and the gateway keeps some of them in indexed columns
// (the session key, the list's repository and branch indexes, facet, usage and tool keys, the repository of a
// named PR). PostgreSQL's btree refuses an index entry over 2,704 bytes: one long id, branch, model or tool name
// answered 500 for the whole sync there, while SQLite stored it. Those strings are bounded now (200 characters,
// 500 for a PR URL): at the bound, in 4-byte characters, a session is stored and read back on both stores; one
// character more and it alone is rejected with a reason naming the field.
import { describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { canonical, variant, type Doc } from '../sessions/fixtures.js';

let gw: TestGateway;
let a: Tenant;
let b: Tenant;
withGatewayAndTenants((s) => ({ gw, a, b } = s), { a: { plan: 'paid' }, b: { plan: 'paid' } });

/** A character of four UTF-8 bytes (two UTF-16 units), so n of them are n characters and 4n bytes. */
const wide = (n: number) => '𝄞'.repeat(n);
/** A PR URL of exactly n characters, its repository in four-byte characters. */
const prUrl = (n: number) => {
  const half = Math.floor((n - 27) / 2);
  return `https://github.com/${wide(n - 27 - half)}/${wide(half)}/pull/5`;
};

/** A session whose indexed strings are all at their bound, in four-byte characters. */
function sessionAtBounds(id: string): Doc {
  return variant(canonical('full'), (d) => {
    d.id = id;
    d.env.gitRepo = `https://github.com/${wide(90)}/${wide(90)}`;
    d.env.gitBranch = wide(200);
    d.agent.type = wide(200);
    d.models = [wide(200)];
    for (const t of d.turns) {
      if (t.model !== undefined) t.model = wide(200);
      for (const c of t.toolCalls ?? []) c.name = wide(200);
    }
    d.outcome = { prNumber: 5, prUrl: prUrl(500) };
  });
}

async function sync(sessions: Doc[]) {
  const r = await gw.call('POST', '/v1/agents/sync', {
    token: a.factoryKey,
    appId: a.appId,
    body: { schemaVersion: 1, sessions },
  });
  expect(r.status, r.text.slice(0, 300)).toBe(200);
  return r.body.data as { accepted: string[]; rejected: { index: number; id: string | null; reason: string }[] };
}

describe('strings the gateway indexes, at their bound', () => {
  it('are stored and read back on this store, in characters of four bytes', async () => {
    expect([...prUrl(500)].length).toBe(500);
    const id = wide(200);
    const parent = sessionAtBounds(id);
    // A subagent of it: its key is the id, `#` and the agent id with each `#` escaped as %23, 800 + 1 + 600 bytes.
    const sub = variant(sessionAtBounds(id), (d) => {
      d.subagent = { agentId: '#'.repeat(200), parentSessionId: wide(200) };
    });
    const data = await sync([parent, sub]);
    expect(data.rejected).toEqual([]);
    expect(data.accepted).toEqual([id, id]);

    const list = await gw.call(
      'GET',
      `/v1/sessions?repoScope=all&includeSubagents=1&branch=${encodeURIComponent(wide(200))}`,
      { token: a.loginToken, appId: a.appId },
    );
    expect(list.status).toBe(200);
    expect(list.body.data.total).toBe(2);
    const top = list.body.data.sessions.find((s: { isSubagent: boolean }) => !s.isSubagent);
    expect(top.sessionId).toBe(id);
    expect(top.branch).toBe(wide(200));
    expect(top.agentType).toBe(wide(200));
    expect(top.models).toEqual([wide(200)]);
    expect(top.repo).toBe(`${wide(90)}/${wide(90)}`);
    const detail = await gw.call('GET', `/v1/sessions/${top.traceId}`, { token: a.loginToken, appId: a.appId });
    expect(detail.status).toBe(200);
    expect(detail.body.data.subagents.map((s: { subagentId: string }) => s.subagentId)).toEqual(['#'.repeat(200)]);
    // By its own id, 200 characters of two UTF-16 units each (the router's limit counts units): the session, not 414.
    const byId = await gw.call('GET', `/v1/sessions/${encodeURIComponent(id)}`, {
      token: a.loginToken,
      appId: a.appId,
    });
    expect(byId.status, byId.text.slice(0, 200)).toBe(200);
    expect(byId.body.data.traceId).toBe(top.traceId);
    expect(byId.body.data.sessionId).toBe(id);
    // Another factory sees none of it.
    const other = await gw.call('GET', `/v1/sessions/${top.traceId}`, { token: b.loginToken, appId: b.appId });
    expect(other.status).toBe(404);
  });
});

/** The first turn of the fixture that calls a tool. */
const TOOL_TURN = (canonical('full').turns as { toolCalls?: unknown[] }[]).findIndex(
  (t) => (t.toolCalls?.length ?? 0) > 0,
);

describe('one character over the bound', () => {
  const cases: [string, (d: Doc) => void, string][] = [
    [
      'id',
      (d) => {
        d.id = wide(201);
      },
      'id must NOT have more than 200 characters',
    ],
    [
      'agentId',
      (d) => {
        d.subagent = { agentId: wide(201) };
      },
      'subagent.agentId must NOT have more than 200 characters',
    ],
    [
      'parentSessionId',
      (d) => {
        d.subagent = { agentId: 'a', parentSessionId: wide(201) };
      },
      'subagent.parentSessionId must NOT have more than 200 characters',
    ],
    [
      'gitRepo',
      (d) => {
        d.env.gitRepo = `https://github.com/${wide(90)}/${wide(91)}`;
      },
      'env.gitRepo must NOT have more than 200 characters',
    ],
    [
      'gitBranch',
      (d) => {
        d.env.gitBranch = wide(201);
      },
      'env.gitBranch must NOT have more than 200 characters',
    ],
    [
      'agent.type',
      (d) => {
        d.agent.type = wide(201);
      },
      'agent.type must NOT have more than 200 characters',
    ],
    [
      'models',
      (d) => {
        d.models = [wide(201)];
      },
      'models.0 must NOT have more than 200 characters',
    ],
    [
      "a turn's model",
      (d) => {
        d.turns[0]!.model = wide(201);
      },
      'turns.0.model must NOT have more than 200 characters',
    ],
    [
      'a tool name',
      (d) => {
        d.turns[TOOL_TURN].toolCalls[0].name = wide(201);
      },
      `turns.${TOOL_TURN}.toolCalls.0.name must NOT have more than 200 characters`,
    ],
    [
      'outcome.prUrl',
      (d) => {
        d.outcome = { prNumber: 5, prUrl: prUrl(501) };
      },
      'outcome.prUrl must NOT have more than 500 characters',
    ],
    [
      'outcome.prs[].prUrl',
      (d) => {
        d.outcome = { prs: [{ prNumber: 6, prUrl: prUrl(501) }] };
      },
      'outcome.prs.0.prUrl must NOT have more than 500 characters',
    ],
    [
      "a pr_linked event's prUrl",
      (d) => {
        d.events = [
          { type: 'pr_linked', seq: 1, ts: '2026-07-01T14:41:00.000Z', data: { prNumber: 7, prUrl: prUrl(501) } },
        ];
      },
      'events.0.data.prUrl must NOT have more than 500 characters',
    ],
  ];
  it.each(cases)(
    "%s: that session alone is rejected with a reason naming the field, the sync's others are stored",
    async (name, change, reason) => {
      const bad = variant(canonical('full'), (d) => {
        d.id = `over-${name}`;
        change(d);
      });
      const good = variant(canonical('full'), (d) => {
        d.id = `beside-${name}`;
      });
      const data = await sync([good, bad]);
      expect(data.accepted).toEqual([`beside-${name}`]);
      expect(data.rejected).toEqual([{ index: 1, id: bad.id, reason }]);
    },
  );
});
