// A session's identity in a factory is its id, and for a subagent transcript its id and agent id. The
// AgentSession schema lets an id hold any character: a top-level session whose id is `k#1` used to share its key
// with subagent `1` of session `k`, and a sync merged the two transcripts into one. Keys escape `%` and `#` now
// (sessions/document.ts), and migration 0026 rewrites the keys stored the old way. A subagent transcript without
// an agent id (the schema lets it be absent) had its parent's key when it carried its parent's id, as Claude Code
// writes them: its key is `<id>#` now, and migration 0027 rewrites the stored ones.
import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Tenant, TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { canonical, variant, type Doc } from './fixtures.js';
import { up as escapeStoredKeys } from '../../../src/db/migrations/0026_session_keys_escaped.js';
import { up as keySubagentsWithoutAgentId } from '../../../src/db/migrations/0027_subagent_keys_without_agent_id.js';

let gw: TestGateway;
let a: Tenant;
let b: Tenant;
withGatewayAndTenants((s) => ({ gw, a, b } = s), { a: { plan: 'paid' }, b: { plan: 'paid' } });

/** A top-level session (no agentId) or a subagent transcript of `id`, titled so each can be told apart. */
function doc(id: string, title: string, agentId?: string, parentSessionId?: string): Doc {
  return variant(canonical('full'), (d) => {
    d.id = id;
    d.title = title;
    if (agentId === undefined) delete d.subagent;
    else d.subagent = { agentId, ...(parentSessionId ? { parentSessionId } : {}) };
  });
}

async function sync(t: Tenant, sessions: Doc[]) {
  const r = await gw.call('POST', '/v1/agents/sync', {
    token: t.factoryKey,
    appId: t.appId,
    body: { schemaVersion: 1, sessions },
  });
  expect(r.status, r.text.slice(0, 300)).toBe(200);
  expect(r.body.data.rejected).toEqual([]);
  return r;
}

async function stored(t: Tenant): Promise<{ key: string; sessionId: string; title: string | null }[]> {
  return gw.app.attest.db
    .selectFrom('sessions')
    .select(['session_key as key', 'session_id as sessionId', 'title'])
    .where('app_id', '=', t.appId)
    .orderBy('title')
    .execute();
}

async function detail(t: Tenant, id: string) {
  return gw.call('GET', `/v1/sessions/${encodeURIComponent(id)}`, { token: t.loginToken, appId: t.appId });
}

const sessions = [
  doc('k', 'A top-level k'),
  doc('k', 'B subagent 1 of k', '1', 'k'),
  doc('k#1', 'C top-level k#1'),
  doc('k%231', 'D top-level k%231'),
  doc('k#1', 'E subagent 2 of k#1', '2', 'k#1'),
  doc('k', 'F subagent 1#2 of k', '1#2', 'k'),
];

describe('session ids holding # and %', () => {
  it('are each a session of their own, sent together or again', async () => {
    await sync(a, sessions);
    const expected = [
      { key: 'k', sessionId: 'k', title: 'A top-level k' },
      { key: 'k#1', sessionId: 'k', title: 'B subagent 1 of k' },
      { key: 'k%231', sessionId: 'k#1', title: 'C top-level k#1' },
      { key: 'k%25231', sessionId: 'k%231', title: 'D top-level k%231' },
      { key: 'k%231#2', sessionId: 'k#1', title: 'E subagent 2 of k#1' },
      { key: 'k#1%232', sessionId: 'k', title: 'F subagent 1#2 of k' },
    ];
    expect(await stored(a)).toEqual(expected);
    // Sent again, each merges into its own row.
    await sync(a, [...sessions].reverse());
    expect(await stored(a)).toEqual(expected);
  });

  it('are found by session id, a subagent names its parent, and another factory sees none of them', async () => {
    const top = await detail(a, 'k#1');
    expect(top.status).toBe(200);
    expect(top.body.data.title).toBe('C top-level k#1');
    expect(top.body.data.subagents.map((s: { title: string }) => s.title)).toEqual(['E subagent 2 of k#1']);
    const literal = await detail(a, 'k%231');
    expect(literal.status).toBe(200);
    expect(literal.body.data.title).toBe('D top-level k%231');
    const k = await detail(a, 'k');
    expect(k.body.data.title).toBe('A top-level k');
    expect(k.body.data.subagents.map((s: { title: string }) => s.title).sort()).toEqual([
      'B subagent 1 of k',
      'F subagent 1#2 of k',
    ]);

    const sub = await detail(a, top.body.data.subagents[0].traceId);
    expect(sub.status).toBe(200);
    expect(sub.body.data.parentTraceId).toBe(top.body.data.traceId);

    const other = await detail(b, 'k#1');
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('session_not_found');
  });
});

describe('migration 0026', () => {
  it('rewrites keys stored the old way and leaves every other key as it was', async () => {
    const db = gw.app.attest.db;
    const template = await db
      .selectFrom('sessions')
      .selectAll()
      .where('app_id', '=', a.appId)
      .where('session_key', '=', 'k')
      .executeTakeFirstOrThrow();
    // Rows as the old keys had them, in another factory: top-level `m#1` and `m%1`, subagent `x#y` of `m`, and `plain`.
    const old = [
      { id: 'old-1', session_key: 'm#1', session_id: 'm#1', subagent_id: null, is_subagent: 0 },
      { id: 'old-2', session_key: 'm%1', session_id: 'm%1', subagent_id: null, is_subagent: 0 },
      { id: 'old-3', session_key: 'm#x#y', session_id: 'm', subagent_id: 'x#y', is_subagent: 1 },
      { id: 'old-4', session_key: 'plain', session_id: 'plain', subagent_id: null, is_subagent: 0 },
      // Holds, before the migration, the key another row's will become: no row may take it while it is held.
      { id: 'old-5', session_key: 'm%231', session_id: 'n', subagent_id: null, is_subagent: 0 },
    ];
    await db
      .insertInto('sessions')
      .values(old.map((r) => ({ ...template, ...r, app_id: b.appId, org_id: b.orgId })))
      .execute();
    const before = await db
      .selectFrom('sessions')
      .select(['id', 'session_key'])
      .where('app_id', '=', a.appId)
      .orderBy('id')
      .execute();

    await db.transaction().execute((trx) => escapeStoredKeys(trx as unknown as Kysely<unknown>));

    const keys = await db
      .selectFrom('sessions')
      .select(['id', 'session_key'])
      .where('app_id', '=', b.appId)
      .orderBy('id')
      .execute();
    expect(keys).toEqual([
      { id: 'old-1', session_key: 'm%231' },
      { id: 'old-2', session_key: 'm%251' },
      { id: 'old-3', session_key: 'm#x%23y' },
      { id: 'old-4', session_key: 'plain' },
      { id: 'old-5', session_key: 'n' },
    ]);
    // The keys written by the gateway are already escaped: untouched.
    expect(
      await db
        .selectFrom('sessions')
        .select(['id', 'session_key'])
        .where('app_id', '=', a.appId)
        .orderBy('id')
        .execute(),
    ).toEqual(before);
    expect(
      Number(
        (await sql<{ n: number }>`select count(*) as n from sessions where session_key like ${'\u0001%'}`.execute(db))
          .rows[0]!.n,
      ),
    ).toBe(0);
  });
});

/** A subagent transcript of parent `parentSessionId` that carries no agent id, `turns` of the fixture's turns long. */
function subagentWithoutAgentId(id: string, parentSessionId: string, title: string, turns: number): Doc {
  return variant(canonical('full'), (d) => {
    d.id = id;
    d.title = title;
    d.subagent = { parentSessionId };
    d.turns = d.turns.slice(0, turns);
  });
}

describe('a subagent transcript without an agent id', () => {
  it("under its parent's id is a session of its own, not merged into the parent, sent together or again", async () => {
    const parent = doc('p', 'P top-level p');
    const turns = parent.turns.length;
    expect(turns).toBeGreaterThanOrEqual(2);
    // Longer than the parent: merged, it replaced the parent's transcript; shorter, it was dropped as a stale retry.
    const longer = variant(subagentWithoutAgentId('p', 'p', 'Q subagent of p', turns), (d) => {
      d.turns = [...d.turns, ...d.turns.slice(0, 1).map((t: Record<string, unknown>) => ({ ...t, index: turns }))];
    });
    await sync(a, [parent, longer]);
    const rows = () =>
      gw.app.attest.db
        .selectFrom('sessions')
        .select(['session_key as key', 'title', 'turn_count as turns', 'is_subagent as sub'])
        .where('app_id', '=', a.appId)
        .where('session_id', '=', 'p')
        .orderBy('title')
        .execute();
    const expected = [
      { key: 'p', title: 'P top-level p', turns, sub: 0 },
      { key: 'p#', title: 'Q subagent of p', turns: turns + 1, sub: 1 },
    ];
    expect(await rows()).toEqual(expected);
    await sync(a, [longer, parent]);
    // a shorter retry of the subagent: changes nothing
    await sync(a, [subagentWithoutAgentId('p', 'p', 'Q subagent of p', 1)]);
    expect(await rows()).toEqual(expected);

    const top = await detail(a, 'p');
    expect(top.status).toBe(200);
    expect(top.body.data.title).toBe('P top-level p');
    expect(top.body.data.turns).toHaveLength(turns);
    expect(
      top.body.data.subagents.map((s: { title: string; subagentId: string | null }) => [s.title, s.subagentId]),
    ).toEqual([['Q subagent of p', null]]);
    const sub = await detail(a, top.body.data.subagents[0].traceId);
    expect(sub.body.data.turns).toHaveLength(turns + 1);
    expect(sub.body.data.parentTraceId).toBe(top.body.data.traceId);
    expect((await detail(b, 'p')).status).toBe(404);
  });

  it('under an id of its own is found by that id and names its parent', async () => {
    await sync(a, [subagentWithoutAgentId('s-own', 'p', 'R subagent s-own of p', 2)]);
    const own = await detail(a, 's-own');
    expect(own.status).toBe(200);
    expect(own.body.data.isSubagent).toBe(true);
    expect(own.body.data.parentTraceId).toBe((await detail(a, 'p')).body.data.traceId);
    const keys = await gw.app.attest.db
      .selectFrom('sessions')
      .select('session_key as key')
      .where('app_id', '=', a.appId)
      .where('session_id', '=', 's-own')
      .execute();
    expect(keys).toEqual([{ key: 's-own#' }]);
  });
});

describe('migration 0027', () => {
  it('gives stored subagents without an agent id the key `<id>#` and leaves every other key as it was', async () => {
    const db = gw.app.attest.db;
    const template = await db
      .selectFrom('sessions')
      .selectAll()
      .where('app_id', '=', a.appId)
      .where('session_key', '=', 'k')
      .executeTakeFirstOrThrow();
    const old = [
      { id: 'o27-1', session_key: 'q', session_id: 'q', subagent_id: null, is_subagent: 1, parent_session_id: 'q0' },
      {
        id: 'o27-2',
        session_key: 'q%231',
        session_id: 'q#1',
        subagent_id: '',
        is_subagent: 1,
        parent_session_id: 'q0',
      },
      { id: 'o27-3', session_key: 'q#x', session_id: 'q', subagent_id: 'x', is_subagent: 1, parent_session_id: 'q' },
      { id: 'o27-4', session_key: 'q0', session_id: 'q0', subagent_id: null, is_subagent: 0, parent_session_id: null },
    ];
    await db.deleteFrom('sessions').where('app_id', '=', b.appId).execute();
    await db
      .insertInto('sessions')
      .values(old.map((r) => ({ ...template, ...r, app_id: b.appId, org_id: b.orgId })))
      .execute();
    const before = await db
      .selectFrom('sessions')
      .select(['id', 'session_key'])
      .where('app_id', '=', a.appId)
      .orderBy('id')
      .execute();

    await db.transaction().execute((trx) => keySubagentsWithoutAgentId(trx as unknown as Kysely<unknown>));

    expect(
      await db
        .selectFrom('sessions')
        .select(['id', 'session_key'])
        .where('app_id', '=', b.appId)
        .orderBy('id')
        .execute(),
    ).toEqual([
      { id: 'o27-1', session_key: 'q#' },
      { id: 'o27-2', session_key: 'q%231#' },
      { id: 'o27-3', session_key: 'q#x' },
      { id: 'o27-4', session_key: 'q0' },
    ]);
    // The gateway's own keys are already written so: untouched.
    expect(
      await db
        .selectFrom('sessions')
        .select(['id', 'session_key'])
        .where('app_id', '=', a.appId)
        .orderBy('id')
        .execute(),
    ).toEqual(before);
  });
});
