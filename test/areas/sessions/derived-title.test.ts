// Issue 45 §2: no session is listed under an id. A session sent without a title gets one at ingest: at the full
// tier the first line of its first prompt from a person (≤ 80 characters, secrets scrubbed), below it the agent,
// branch and turn count. The list, the session read, the export and the title search show it; migration 0028
// gives stored untitled rows theirs. Runs on SQLite, and on PostgreSQL with TEST_DATABASE_URL.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { up } from '../../../src/db/migrations/0028_session_titles_derived.js';

let gw: TestGateway;
let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  gw = await startGateway();
  a = await createTenant(gw);
  b = await createTenant(gw);
});
afterAll(async () => {
  await gw?.close();
});

type Turn = Record<string, unknown>;
function doc(id: string, tier: 'full' | 'redacted' | 'metrics', turns: Turn[], extra: Record<string, unknown> = {}) {
  return {
    schemaVersion: 1,
    id,
    agent: { type: 'claude-code' },
    startedAt: '2026-10-05T10:00:00.000Z',
    models: [],
    env: tier === 'metrics' ? {} : { gitRepo: 'github.com/acme/titles', gitBranch: 'fix/parser' },
    turns: turns.map((t, index) => ({ index, toolCalls: [], ...t })),
    events: [],
    totals: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
    captureTier: tier,
    warnings: [],
    ...extra,
  };
}
const user = (text: string, source = 'human'): Turn => ({ role: 'user', source, text });
const assistant: Turn = { role: 'assistant', text: 'ok' };

// 85 characters on the first line: cut to 79 and an ellipsis (80 in all).
const LONG = 'Refactor the session parser so that chunked uploads merge by turn index and never lose a turn';
const SECRET = 'sk-ant-api03-abcdefghijklmnopqrstuvwx';
const CASES = [
  {
    id: 't-prompt',
    d: doc('t-prompt', 'full', [user('\n  Fix the   flaky login test\nthen run the suite'), assistant]),
    title: 'Fix the flaky login test',
  },
  { id: 't-long', d: doc('t-long', 'full', [user(LONG), assistant]), title: `${LONG.slice(0, 79)}…` },
  {
    id: 't-secret',
    d: doc('t-secret', 'full', [user(`use key ${SECRET} to call the API`), assistant]),
    title: 'use key [REDACTED:anthropic_key] to call the API',
  },
  {
    id: 't-command',
    d: doc('t-command', 'full', [
      user(
        '<command-message>review is ' +
          'running…</command-message>\n<command-name>/review</command-name>\n<command-args>#12</command-args>',
      ),
      assistant,
    ]),
    title: '/review #12',
  },
  {
    id: 't-notify',
    d: doc('t-notify', 'full', [user('a task finished', 'notification'), user('Ship the release notes'), assistant]),
    title: 'Ship the release notes',
  },
  {
    id: 't-redacted',
    d: doc('t-redacted', 'redacted', [{ role: 'user', source: 'human', text: null }, assistant, assistant]),
    title: 'claude-code on fix/parser · 3 turns',
  },
  { id: 't-metrics', d: doc('t-metrics', 'metrics', [assistant]), title: 'claude-code · 1 turn' },
  {
    id: 't-sent',
    d: doc('t-sent', 'full', [user('not this'), assistant], { title: 'Given summary line' }),
    title: 'Given summary line',
  },
];

const list = async (q = '', tenant = a) => {
  const r = await gw.call('GET', `/v1/sessions?repoScope=all&limit=100${q}`, {
    token: tenant.loginToken,
    appId: tenant.appId,
  });
  expect(r.status).toBe(200);
  return r.body.data as { total: number; sessions: { sessionId: string; traceId: string; title: string }[] };
};
const titlesById = async () => Object.fromEntries((await list()).sessions.map((s) => [s.sessionId, s.title]));
const expected = Object.fromEntries(CASES.map((c) => [c.id, c.title]));

describe('derived session titles (issue 45 §2)', () => {
  it('are stored at ingest and shown by the list, the session read and the export', async () => {
    const r = await gw.call('POST', '/v1/agents/sync', {
      token: a.factoryKey,
      appId: a.appId,
      body: { schemaVersion: 1, sessions: CASES.map((c) => c.d) },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.accepted).toHaveLength(CASES.length);
    expect(await titlesById()).toEqual(expected);

    const one = (await list()).sessions.find((s) => s.sessionId === 't-redacted')!;
    const detail = await gw.call('GET', `/v1/sessions/${one.traceId}`, { token: a.loginToken, appId: a.appId });
    expect(detail.body.data.title).toBe('claude-code on fix/parser · 3 turns');

    const csv = await gw.call('GET', '/v1/sessions/export?repoScope=all&format=json', {
      token: a.loginToken,
      appId: a.appId,
    });
    expect(csv.status).toBe(200);
    const exported = JSON.parse(csv.text) as { sessionId: string; title: string }[];
    expect(Object.fromEntries(exported.map((s) => [s.sessionId, s.title]))).toEqual(expected);
  });

  it('are found by the title search', async () => {
    expect((await list('&q=flaky%20login')).sessions.map((s) => s.sessionId)).toEqual(['t-prompt']);
    expect((await list('&q=on%20fix%2Fparser')).sessions.map((s) => s.sessionId)).toEqual(['t-redacted']);
    expect((await list('&q=REDACTED')).sessions.map((s) => s.sessionId)).toEqual(['t-secret']);
    // The secret itself is nowhere in a title.
    expect((await list(`&q=${SECRET.slice(0, 20)}`)).total).toBe(0);
    // Another factory's caller finds none of them.
    expect((await list('&q=flaky', b)).total).toBe(0);
  });

  it('a re-sent session keeps a derived title in step with its document', async () => {
    const grown = doc('t-redacted', 'redacted', [
      { role: 'user', source: 'human', text: null },
      assistant,
      assistant,
      assistant,
    ]);
    const r = await gw.call('POST', '/v1/agents/sync', {
      token: a.factoryKey,
      appId: a.appId,
      body: { schemaVersion: 1, sessions: [grown] },
    });
    expect(r.status).toBe(200);
    expect((await titlesById())['t-redacted']).toBe('claude-code on fix/parser · 4 turns');
    expect((await list('&q=4%20turns')).sessions.map((s) => s.sessionId)).toEqual(['t-redacted']);
  });

  it('migration 0028 gives stored untitled rows theirs, and the search finds them', async () => {
    const db = gw.app.attest.db as unknown as Kysely<unknown>;
    // Put the rows back as the code before this one stored them: no title unless one was sent.
    await sql`update sessions set title = null where app_id = ${a.appId} and session_id <> 't-sent'`.execute(db);
    expect((await list('&q=flaky')).total).toBe(0);
    await up(db, gw.app.attest.dialect);
    expect(await titlesById()).toEqual({ ...expected, 't-redacted': 'claude-code on fix/parser · 4 turns' });
    expect((await list('&q=flaky%20login')).sessions.map((s) => s.sessionId)).toEqual(['t-prompt']);
  });
});
