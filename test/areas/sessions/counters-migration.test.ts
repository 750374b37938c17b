// Issue 15 §5: errorCount and origin as the reference implementation means them, and migration 0012_3 that
// recomputes rows stored by the old rules. What this proves: the current ingest writes the new values; and
// rows (and origin facet counters) put back the way the old code wrote them are corrected by running the
// migration's up() on that store, after which the list, the origin filter, originCounts and the metrics
// breakdown agree. The "old way" rows are produced by SQL that applies the old rules, not by the old code.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { up } from '../../../src/db/migrations/0012_3_session_counters.js';

let gw: TestGateway;
let a: Tenant;

beforeAll(async () => {
  gw = await startGateway();
  a = await createTenant(gw);
});
afterAll(async () => {
  await gw?.close();
});

function doc(
  id: string,
  opts: { origin?: string; workerKind?: string; entrypoint?: string; toolStatuses?: string[]; apiErrors?: number },
) {
  return {
    schemaVersion: 1,
    id,
    env: { gitRepo: 'github.com/acme/counters' },
    startedAt: '2026-10-05T10:00:00.000Z',
    models: [],
    agent: {
      type: 'claude-code',
      ...(opts.origin ? { origin: opts.origin } : {}),
      ...(opts.entrypoint ? { entrypoint: opts.entrypoint } : {}),
    },
    ...(opts.workerKind ? { workerKind: opts.workerKind } : {}),
    turns: [
      {
        index: 0,
        role: 'assistant',
        toolCalls: (opts.toolStatuses ?? []).map((status) => ({ name: 'Bash', status, isEdit: false })),
      },
    ],
    events: Array.from({ length: opts.apiErrors ?? 0 }, (_, seq) => ({ type: 'api_error', seq })),
    totals: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 },
    captureTier: 'metrics',
    warnings: [],
  };
}

// Expected by hand from the rules: errorCount = failed tool calls; origin declared, else cloud/ci → worker, else
// interactive.
const CASES = [
  {
    id: 'c-seat',
    d: doc('c-seat', { workerKind: 'seat', toolStatuses: ['error', 'rejected', 'ok'], apiErrors: 2 }),
    origin: 'interactive',
    errorCount: 1,
    oldOrigin: 'worker',
  },
  {
    id: 'c-shared',
    d: doc('c-shared', { workerKind: 'shared' }),
    origin: 'interactive',
    errorCount: 0,
    oldOrigin: 'worker',
  },
  {
    id: 'c-ci',
    d: doc('c-ci', { workerKind: 'ci', apiErrors: 1 }),
    origin: 'worker',
    errorCount: 0,
    oldOrigin: 'worker',
  },
  {
    id: 'c-cloud',
    d: doc('c-cloud', { workerKind: 'cloud', toolStatuses: ['error', 'error'] }),
    origin: 'worker',
    errorCount: 2,
    oldOrigin: 'worker',
  },
  {
    id: 'c-sdk',
    d: doc('c-sdk', { entrypoint: 'sdk-ts', toolStatuses: ['rejected'] }),
    origin: 'interactive',
    errorCount: 0,
    oldOrigin: 'agent',
  },
  {
    id: 'c-declared',
    d: doc('c-declared', { origin: 'agent', workerKind: 'seat', apiErrors: 3 }),
    origin: 'agent',
    errorCount: 0,
    oldOrigin: 'agent',
  },
];
const OLD_ERRORS: Record<string, number> = {
  'c-seat': 3,
  'c-shared': 0,
  'c-ci': 1,
  'c-cloud': 2,
  'c-sdk': 0,
  'c-declared': 3,
};

const list = async (q = '') => {
  const r = await gw.call('GET', `/v1/sessions?repo=acme/counters&limit=100${q}`, {
    token: a.loginToken,
    appId: a.appId,
  });
  expect(r.status).toBe(200);
  return r.body.data;
};

async function checkNewValues() {
  const data = await list();
  const byId = new Map(data.sessions.map((s: { sessionId: string }) => [s.sessionId, s]));
  for (const c of CASES) expect(byId.get(c.id), c.id).toMatchObject({ origin: c.origin, errorCount: c.errorCount });
  // 3 interactive (seat, shared, sdk), 2 worker (ci, cloud), 1 agent (declared).
  expect(data.originCounts).toEqual({ interactive: 3, worker: 2, agent: 1 });
  expect((await list('&origin=interactive')).total).toBe(3);
  expect((await list('&origin=worker')).total).toBe(2);
  const errorsSorted = (await list('&sort=errors&dir=desc')).sessions.map((s: { errorCount: number }) => s.errorCount);
  expect(errorsSorted).toEqual([2, 1, 0, 0, 0, 0]);
  const bd = await gw.call(
    'GET',
    '/v1/metrics/breakdown?by=origin&from=2026-10-01T00:00:00Z&to=2026-11-01T00:00:00Z&repo=acme/counters',
    { token: a.loginToken, appId: a.appId },
  );
  expect(
    Object.fromEntries(bd.body.data.rows.map((r: { key: string; sessions: number }) => [r.key, r.sessions])),
  ).toEqual({ interactive: 3, worker: 2, agent: 1 });
}

describe('errorCount and origin (issue 15 §5)', () => {
  it('ingest computes them by the new rules', async () => {
    const r = await gw.call('POST', '/v1/agents/sync', {
      token: a.factoryKey,
      appId: a.appId,
      body: { schemaVersion: 1, sessions: CASES.map((c) => c.d) },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.accepted).toHaveLength(CASES.length);
    await checkNewValues();
  });

  it('migration 0012_3 recomputes rows and origin counters written by the old rules', async () => {
    const db = gw.app.attest.db as unknown as Kysely<unknown>;
    // Put the rows back the way the old code wrote them, and the origin facet counters with them.
    for (const c of CASES) {
      await sql`update sessions set origin = ${c.oldOrigin}, error_count = ${OLD_ERRORS[c.id]}
        where app_id = ${a.appId} and session_id = ${c.id}`.execute(db);
    }
    await sql`delete from session_facets
      where app_id = ${a.appId} and repo = 'acme/counters' and kind = 'origin'`.execute(db);
    await sql`insert into session_facets (app_id, repo, kind, value, label, sessions) values
      (${a.appId}, 'acme/counters', 'origin', 'worker', null, 4),
      (${a.appId}, 'acme/counters', 'origin', 'agent', null, 2)`.execute(db);
    const stale = await list();
    expect(stale.originCounts).toEqual({ interactive: 0, worker: 4, agent: 2 });

    await up(db, gw.app.attest.dialect);
    await checkNewValues();
  });
});
