// GET /v1/sessions and GET /v1/sessions/{traceId} through the real server, on data sent with POST /v1/agents/sync.
import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { canonical, raw, rawNames, variant, type Doc } from './fixtures.js';

let gw: TestGateway;
let a: Tenant;
let b: Tenant;
let readOnlyKey: string;
let ingestKey: string;

async function mintKey(t: Tenant, preset: 'ingest' | 'read-only'): Promise<string> {
  const r = await gw.call('POST', '/v1/api-keys', {
    token: t.loginToken,
    appId: t.appId,
    body: { name: `${preset}-${crypto.randomUUID()}`, preset },
  });
  expect(r.status).toBe(201);
  return r.body.data.plaintext_key;
}

const get = (t: Tenant, query: string, token = t.loginToken) =>
  gw.call('GET', `/v1/sessions${query ? `?${query}` : ''}`, { token, appId: t.appId });

async function ok(t: Tenant, query: string, token?: string): Promise<Doc> {
  const r = await get(t, query, token);
  expect(r.status, `${query}: ${r.text.slice(0, 300)}`).toBe(200);
  return r.body.data;
}

const ids = (data: Doc) => data.sessions.map((s: Doc) => s.sessionId);

interface Spec {
  id: string;
  repo?: string;
  branch?: string;
  model?: string;
  agentType?: string;
  origin?: string;
  entrypoint?: string;
  workerKind?: string;
  title?: string;
  startedAt: string;
  /** uncached input and output tokens of each assistant turn */
  turns: { in: number; out: number; statuses?: ('ok' | 'error' | 'rejected')[] }[];
  humanTurns?: number;
  apiErrors?: number;
}

/** A session built on canonical/full.json with the given shape. */
function build(s: Spec): Doc {
  return variant(canonical('full'), (d) => {
    d.id = s.id;
    d.env = { os: 'linux', ...(s.repo ? { gitRepo: s.repo } : {}), ...(s.branch ? { gitBranch: s.branch } : {}) };
    d.agent = {
      type: s.agentType ?? 'claude-code',
      ...(s.origin ? { origin: s.origin } : {}),
      ...(s.entrypoint ? { entrypoint: s.entrypoint } : {}),
    };
    if (s.workerKind) d.workerKind = s.workerKind;
    if (s.title !== undefined) d.title = s.title;
    else delete d.title;
    d.startedAt = s.startedAt;
    d.endedAt = new Date(Date.parse(s.startedAt) + 60_000).toISOString();
    d.totals.wallClockMs = 60_000;
    const model = s.model ?? 'claude-sonnet-4-6';
    d.models = [model];
    const turns: Doc[] = [];
    for (let h = 0; h < (s.humanTurns ?? 1); h += 1) {
      turns.push({ index: turns.length, role: 'user', source: 'human', toolCalls: [], ts: s.startedAt });
      if (h === 0) {
        for (const t of s.turns) {
          turns.push({
            index: turns.length,
            role: 'assistant',
            model,
            ts: s.startedAt,
            usage: { in: t.in, out: t.out, cacheRead: 0, cacheCreate: 0 },
            toolCalls: (t.statuses ?? []).map((status) => ({ name: 'Edit', isEdit: true, status })),
          });
        }
      }
    }
    d.turns = turns;
    d.events = Array.from({ length: s.apiErrors ?? 0 }, (_, i) => ({ type: 'api_error', seq: i, ts: s.startedAt }));
    delete d.outcome;
  });
}

// sonnet-4-6: input 3, output 15 $/Mtok → 1000 in + 100 out = 4500 µ$. gpt-5-codex: 1.25 / 10 → 1000 in + 100 out =
// 2250 µ$.
const SESSIONS: Spec[] = [
  {
    id: 'alpha-1',
    repo: 'https://github.com/Acme/Alpha.git',
    branch: 'main',
    title: 'Fix the Login flow',
    startedAt: '2026-10-01T10:00:00.000Z',
    turns: [{ in: 1000, out: 100, statuses: ['ok', 'error'] }],
    humanTurns: 3,
  },
  {
    id: 'alpha-2',
    repo: 'github.com/acme/alpha',
    branch: 'feat-x',
    entrypoint: 'sdk-ts',
    origin: 'agent',
    title: 'Add export',
    startedAt: '2026-10-02T10:00:00.000Z',
    turns: [
      { in: 1000, out: 100, statuses: ['rejected', 'ok'] },
      { in: 1000, out: 100 },
    ],
  },
  {
    id: 'alpha-3',
    repo: 'git@github.com:acme/alpha.git',
    branch: 'main',
    agentType: 'codex',
    model: 'gpt-5-codex',
    workerKind: 'ci',
    title: 'Nightly cleanup',
    startedAt: '2026-10-03T10:00:00.000Z',
    turns: [{ in: 1000, out: 100, statuses: ['ok', 'ok', 'ok'] }],
    apiErrors: 1,
  },
  {
    id: 'beta-1',
    repo: 'github.com/acme/beta',
    branch: 'release',
    model: 'claude-opus-4-8',
    title: 'Big refactor',
    startedAt: '2026-10-04T10:00:00.000Z',
    turns: [{ in: 100_000, out: 10_000, statuses: ['ok'] }],
  },
  { id: 'loose-1', title: 'Scratch work', startedAt: '2026-10-05T10:00:00.000Z', turns: [{ in: 400, out: 50 }] },
];

let betaTrace = '';
let alphaTrace = '';

withGatewayAndTenants((s) => ({ gw, a, b } = s), { a: { plan: 'paid' }, b: { plan: 'free' } });
beforeAll(async () => {
  readOnlyKey = await mintKey(a, 'read-only');
  ingestKey = await mintKey(a, 'ingest');
  const sub = variant(canonical('subagent-redacted'), (d) => {
    d.subagent.parentSessionId = 'beta-1';
    d.env.gitRepo = 'github.com/acme/beta';
  });
  const r = await gw.call('POST', '/v1/agents/sync', {
    token: ingestKey,
    appId: a.appId,
    body: { schemaVersion: 1, sessions: [...SESSIONS.map(build), sub] },
  });
  expect(r.status).toBe(200);
  expect(r.body.data.rejected).toEqual([]);
  const all = await ok(a, 'repoScope=all');
  betaTrace = all.sessions.find((s: Doc) => s.sessionId === 'beta-1').traceId;
  alphaTrace = all.sessions.find((s: Doc) => s.sessionId === 'alpha-1').traceId;
});

describe('GET /v1/sessions: repo selection (rules 2-5)', () => {
  it('scopes to the dominant repo by total spend, not by session count', async () => {
    const d = await ok(a, '');
    expect(d.repoSelection).toBe('dominant');
    expect(d.repo).toBe('acme/beta');
    expect(ids(d)).toEqual(['beta-1']);
    expect(d.total).toBe(1);
    // beta: 100000 × 5 + 10000 × 25 = 750000 µ$ plus the subagent; alpha: 4500 + 9000 + 2250 = 15750 µ$
    expect(d.repositories).toEqual([
      { repo: 'acme/beta', sessions: 1 },
      { repo: 'acme/alpha', sessions: 3 },
      { repo: '', sessions: 1 },
    ]);
    expect(d.repositoriesTotal).toBe(3);
    expect(d.hiddenRepositories).toBe(2);
    expect(d.hiddenSessions).toBe(4);
  });

  it('pins a repo with repo=, in any spelling of its remote', async () => {
    for (const repo of ['acme/alpha', 'github.com/acme/alpha', 'https://github.com/acme/alpha.git']) {
      const d = await ok(a, `repo=${encodeURIComponent(repo)}`);
      expect(d.repoSelection).toBe('one');
      expect(d.repo).toBe('acme/alpha');
      expect(ids(d)).toEqual(['alpha-3', 'alpha-2', 'alpha-1']);
      expect(d.total).toBe(3);
      expect(d.hiddenSessions).toBe(2);
      expect(d.hiddenRepositories).toBe(2);
    }
  });

  it('targets sessions with no repository with an empty repo=', async () => {
    const d = await ok(a, 'repo=');
    expect(d.repoSelection).toBe('none');
    expect(d.repo).toBe('');
    expect(ids(d)).toEqual(['loose-1']);
    expect(d.hiddenSessions).toBe(4);
  });

  it('lists every repository with repoScope=all, which wins over repo', async () => {
    const d = await ok(a, 'repoScope=all&repo=acme/alpha');
    expect(d.repoSelection).toBe('all');
    expect(d.total).toBe(5);
    expect(ids(d)).toEqual(['loose-1', 'beta-1', 'alpha-3', 'alpha-2', 'alpha-1']);
    expect(d.hiddenSessions).toBe(0);
    expect(d.hiddenRepositories).toBe(0);
  });

  it('leaves subagent sessions out unless includeSubagents=1', async () => {
    const d = await ok(a, 'repo=acme/beta&includeSubagents=1');
    expect(d.total).toBe(2);
    const sub = d.sessions.find((s: Doc) => s.isSubagent);
    expect(sub).toMatchObject({ parentSessionId: 'beta-1', sessionId: canonical('subagent-redacted').id });
  });

  it('shows an unknown repo as empty, with everything hidden', async () => {
    const d = await ok(a, 'repo=acme/nothing');
    expect(d).toMatchObject({ repoSelection: 'one', total: 0, sessions: [], hiddenSessions: 5, hiddenRepositories: 3 });
  });
});

describe('GET /v1/sessions: fields, facets, sorts, filters (rule 7)', () => {
  it('answers every field of a session and the wrapper', async () => {
    const d = await ok(a, 'repo=acme/alpha');
    const s = d.sessions.find((x: Doc) => x.sessionId === 'alpha-1');
    expect(s).toMatchObject({
      traceId: alphaTrace,
      sessionId: 'alpha-1',
      actorId: a.ownerId,
      agentType: 'claude-code',
      branch: 'main',
      repo: 'acme/alpha',
      project: 'alpha',
      title: 'Fix the Login flow',
      origin: 'interactive',
      workerKind: '',
      costStatus: 'complete',
      costUsd: 0.0045,
      unpricedModels: [],
      models: ['claude-sonnet-4-6'],
      startedAt: '2026-10-01T10:00:00.000Z',
      endedAt: '2026-10-01T10:01:00.000Z',
      durationMs: 60000,
      turnCount: 4,
      userTurnCount: 3,
      steeringCount: 2,
      toolCallCount: 2,
      toolErrorCount: 1,
      errorCount: 1,
      rejectedToolCallCount: 0,
      toolErrorRate: 0.5,
      contextSourceVerification: 'absent',
      prOutcomes: [],
      isSubagent: false,
      tokens: { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0, cacheWrite5m: 0, cacheWrite1h: 0 },
    });
    expect(typeof s.actorName).toBe('string');
    expect(s.updatedAt).toBe(new Date(gw.clock.now()).toISOString());
    expect(d.agentTypes).toEqual(['claude-code', 'codex']);
    expect(d.branches).toEqual(['feat-x', 'main']);
    expect(d.models).toEqual(['claude-sonnet-4-6', 'gpt-5-codex']);
    expect(d.workerKinds).toEqual(['ci']);
    expect(d.originCounts).toEqual({ agent: 1, interactive: 1, worker: 1 });
    expect(d.actors).toEqual([a.ownerId]);
    expect(Object.keys(d.actorNames)).toEqual([a.ownerId]);
    expect(d.scope).toBe('team');
  });

  it('sorts by each key, both ways', async () => {
    const q = 'repoScope=all';
    expect(ids(await ok(a, `${q}&sort=startedAt&dir=asc`))).toEqual([
      'alpha-1',
      'alpha-2',
      'alpha-3',
      'beta-1',
      'loose-1',
    ]);
    expect(ids(await ok(a, `${q}&sort=cost&dir=desc`))).toEqual(['beta-1', 'alpha-2', 'alpha-1', 'alpha-3', 'loose-1']);
    expect(ids(await ok(a, `${q}&sort=cost&dir=asc`))).toEqual(['loose-1', 'alpha-3', 'alpha-1', 'alpha-2', 'beta-1']);
    // loose-1: 400 × 3 + 50 × 15 = 1950 µ$; alpha-3 (Codex): 1000 × 1.25 + 100 × 10 = 2250 µ$; beta-1: 750000 µ$
    expect((await ok(a, `${q}&sort=cost&dir=asc`)).sessions.map((s: Doc) => s.costUsd)).toEqual([
      0.00195, 0.00225, 0.0045, 0.009, 0.75,
    ]);
    expect(ids(await ok(a, `${q}&sort=turns&dir=desc`)).slice(0, 2)).toEqual(['alpha-1', 'alpha-2']);
    // alpha-1 has the one failed tool call; alpha-3's API error is apiErrorCount, not an error (issue 15 §5).
    expect(ids(await ok(a, `${q}&sort=errors&dir=desc`))[0]).toBe('alpha-1');
    expect(ids(await ok(a, `${q}&sort=steering&dir=desc`))[0]).toBe('alpha-1');
    expect(ids(await ok(a, `${q}&sort=toolErrorRate&dir=desc`))[0]).toBe('alpha-1');
  });

  it('filters by branch, agentType, model, workerKind, origin, q, from/to and signal', async () => {
    const q = 'repoScope=all';
    expect(ids(await ok(a, `${q}&branch=main`))).toEqual(['alpha-3', 'alpha-1']);
    expect(ids(await ok(a, `${q}&agentType=codex`))).toEqual(['alpha-3']);
    expect(ids(await ok(a, `${q}&model=claude-opus-4-8`))).toEqual(['beta-1']);
    expect(ids(await ok(a, `${q}&workerKind=ci`))).toEqual(['alpha-3']);
    expect(ids(await ok(a, `${q}&origin=agent,worker`))).toEqual(['alpha-3', 'alpha-2']);
    expect(ids(await ok(a, `${q}&q=LOGIN`))).toEqual(['alpha-1']);
    expect(ids(await ok(a, `${q}&q=${encodeURIComponent('100%')}`))).toEqual([]);
    expect(ids(await ok(a, `${q}&from=2026-10-02T00:00:00Z&to=2026-10-04T00:00:00Z`))).toEqual(['alpha-3', 'alpha-2']);
    expect(ids(await ok(a, `${q}&signal=hands-on`))).toEqual(['alpha-1']);
    expect(ids(await ok(a, `${q}&signal=denied`))).toEqual(['alpha-2']);
    expect(ids(await ok(a, `${q}&signal=tool-errors`))).toEqual(['alpha-1']);
    expect(ids(await ok(a, `${q}&signal=provider-errors`))).toEqual(['alpha-3']);
    expect(ids(await ok(a, `${q}&signal=clean`))).toEqual(['loose-1', 'beta-1']);
    const filtered = await ok(a, `${q}&branch=main`);
    expect(filtered.total).toBe(2);
  });

  it('answers the same total from its counters as from counting rows, also after a session changes', async () => {
    const filters = [
      '',
      'branch=main',
      'agentType=codex',
      'model=claude-sonnet-4-6',
      'workerKind=ci',
      'origin=agent,interactive',
      'signal=clean',
      'signal=hands-on',
      `actor=${a.ownerId}`,
    ];
    const check = async () => {
      for (const f of filters) {
        const fromCounters = await ok(a, `repoScope=all&limit=100&${f}`);
        // A from= far in the past changes nothing but makes the list count rows.
        const counted = await ok(a, `repoScope=all&limit=100&from=2000-01-01T00:00:00Z&${f}`);
        expect(fromCounters.total, f).toBe(counted.total);
        expect(fromCounters.total, f).toBe(fromCounters.sessions.length);
      }
    };
    await check();
    // alpha-2 moves to branch main with an error: the counters move with it.
    const moved = build({
      ...SESSIONS[1]!,
      branch: 'main',
      turns: [...SESSIONS[1]!.turns, { in: 10, out: 10, statuses: ['error'] }],
    });
    const r = await gw.call('POST', '/v1/agents/sync', {
      token: ingestKey,
      appId: a.appId,
      body: { schemaVersion: 1, sessions: [moved] },
    });
    expect(r.status).toBe(200);
    expect((await ok(a, 'repoScope=all&branch=main')).total).toBe(3);
    await check();
    const restored = await gw.call('POST', '/v1/agents/sync', {
      token: ingestKey,
      appId: a.appId,
      body: {
        schemaVersion: 1,
        sessions: [build({ ...SESSIONS[1]!, turns: [...SESSIONS[1]!.turns, { in: 0, out: 0 }] })],
      },
    });
    expect(restored.status).toBe(200);
    await check();
  });

  it('pages with limit and offset; total counts every match', async () => {
    const d = await ok(a, 'repoScope=all&sort=startedAt&dir=asc&limit=2&offset=1');
    expect(ids(d)).toEqual(['alpha-2', 'alpha-3']);
    expect(d.total).toBe(5);
    expect((await ok(a, 'repoScope=all&limit=100&offset=10000')).sessions).toEqual([]);
  });
});

describe('GET /v1/sessions: query bounds (rule 8) and rejected parameters', () => {
  const long = (n: number) => 'x'.repeat(n);
  const cases: [string, string][] = [
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=10001', 'offset'],
    [`q=${long(201)}`, 'q'],
    [`repo=${long(501)}`, 'repo'],
    [`branch=${long(501)}`, 'branch'],
    [`agentType=${long(501)}`, 'agentType'],
    [`model=${long(501)}`, 'model'],
    [`workerKind=${long(501)}`, 'workerKind'],
    [`origin=${long(501)}`, 'origin'],
    [`actor=${long(501)}`, 'actor'],
    ['sort=price', 'sort'],
    ['dir=up', 'dir'],
    ['signal=noisy', 'signal'],
    ['repoScope=some', 'repoScope'],
    ['from=yesterday', 'from'],
    ['to=2026-13-01', 'to'],
    ['origin=robot', 'origin'],
    ['includeSubagents=maybe', 'includeSubagents'],
    ['color=blue', 'color'],
  ];
  it.each(
    cases.map(([query, param]) => [
      query.length > 40 ? `${query.slice(0, 20)}…(${query.length} chars)` : query,
      query,
      param,
    ]),
  )('%s answers 400 invalid_query_params', async (_label, query, param) => {
    const r = await get(a, query);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_query_params');
    expect(JSON.stringify(r.body.error.details)).toContain(param);
  });

  it('accepts each bound at its edge', async () => {
    for (const query of ['limit=1', 'limit=100', 'offset=0', 'offset=10000', `q=${long(200)}`, `branch=${long(500)}`]) {
      expect((await get(a, query)).status, query).toBe(200);
    }
  });

  it('answers 400 invalid_date_range when from is after to', async () => {
    const r = await get(a, 'from=2026-10-05T00:00:00Z&to=2026-10-01T00:00:00Z');
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_date_range');
  });

  it('rejects pr (rule 6), whatever its value', async () => {
    for (const query of ['pr=12', 'pr=', 'repoScope=all&pr=acme/alpha#3']) {
      const r = await get(a, query);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('pr_filter_unsupported');
    }
  });
});

describe('GET /v1/sessions: actor privacy (rule 1)', () => {
  const pseudonym = (id: string) =>
    `anon-${crypto.createHmac('sha256', gw.app.attest.anonSecret).update(id).digest('hex').slice(0, 16)}`;

  it('anonymizes actors for a credential without sessions.read_team, stably', async () => {
    const d = await ok(a, 'repoScope=all', readOnlyKey);
    expect(d.scope).toBe('self');
    for (const s of d.sessions) {
      expect(s.actorId).toMatch(/^anon-[0-9a-f]{16}$/);
      expect(s.actorId).toBe(pseudonym(a.ownerId));
      expect(s.actorName).toBe('anonymous');
    }
    expect(d.actors).toEqual([pseudonym(a.ownerId)]);
    expect(d.actorNames).toEqual({ [pseudonym(a.ownerId)]: 'anonymous' });
    expect(JSON.stringify(d)).not.toContain(a.ownerId);
    const again = await ok(a, 'repoScope=all', readOnlyKey);
    expect(again.sessions[0].actorId).toBe(d.sessions[0].actorId);
  });

  it('rejects an actor filter without sessions.read_team', async () => {
    const r = await get(a, `actor=${pseudonym(a.ownerId)}`, readOnlyKey);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('actor_filter_forbidden');
  });

  it('shows real identities and filters by actor with sessions.read_team', async () => {
    const d = await ok(a, `repoScope=all&actor=${a.ownerId}`);
    expect(d.scope).toBe('team');
    expect(d.total).toBe(5);
    expect(d.actorNames[a.ownerId]).toMatch(/^Owner /);
    expect((await ok(a, `repoScope=all&actor=${crypto.randomUUID()}`)).total).toBe(0);
  });
});

describe('GET /v1/sessions: credentials and rate limit', () => {
  it('answers 401 without a credential or with a wrong one, 403 without sessions.read', async () => {
    expect((await gw.call('GET', '/v1/sessions', { appId: a.appId })).status).toBe(401);
    expect((await gw.call('GET', '/v1/sessions', { token: 'sk_outerlayer_wrong', appId: a.appId })).status).toBe(401);
    const r = await get(a, '', ingestKey);
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'forbidden', required_permission: 'sessions.read' });
  });

  it("shows another factory nothing of this one's sessions", async () => {
    const d = await ok(b, 'repoScope=all', b.factoryKey);
    expect(d).toMatchObject({ total: 0, sessions: [], repositories: [], actors: [], models: [] });
    expect((await gw.call('GET', '/v1/sessions', { token: b.factoryKey, appId: a.appId })).status).toBe(401);
  });

  it('counts against the observability-read bucket (1000/min paid, 100/min free)', async () => {
    const paid = await get(a, '');
    expect(paid.headers['x-ratelimit-limit']).toBe('1000');
    const free = await get(b, '', b.factoryKey);
    expect(free.headers['x-ratelimit-limit']).toBe('100');
    expect(Number(free.headers['x-ratelimit-remaining'])).toBeLessThan(100);
  });
});

describe('GET /v1/sessions/{traceId}', () => {
  it('returns the full transcript: fields, turns with tool calls, events, per-model usage', async () => {
    const full = canonical('full');
    const r = await gw.call('POST', '/v1/agents/sync', {
      token: a.factoryKey,
      appId: a.appId,
      body: { schemaVersion: 1, sessions: [full] },
    });
    expect(r.status).toBe(200);
    const listed = (await ok(a, 'repo=acme/acme-api')).sessions[0];
    const d = await gw.call('GET', `/v1/sessions/${listed.traceId}`, { token: a.loginToken, appId: a.appId });
    expect(d.status).toBe(200);
    expect(d.headers['x-ratelimit-limit']).toBe('300');
    const s = d.body.data;
    expect(s).toMatchObject({
      ...listed,
      env: full.env,
      outcome: full.outcome,
      subagent: null,
      chunk: { of: null, partsReceived: [] },
    });
    expect(s.turns).toEqual(full.turns);
    expect(s.events).toEqual(full.events);
    expect(s.warnings).toEqual(full.warnings);
    expect(s.modelUsage).toEqual([
      {
        model: 'claude-opus-4-8',
        turns: 1,
        costUsd: 0.03226,
        tokens: { input: 9, output: 412, cacheRead: 18230, cacheWrite: 2048, cacheWrite5m: 2048, cacheWrite1h: 0 },
      },
    ]);
    // The body's actor (id, email) is not an identity the gateway reports.
    expect(JSON.stringify(s)).not.toContain('dev@example.com');
  });

  it('reports contextSourceVerification from the synced context commits', async () => {
    const synced = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
    const ctxSync = await gw.call('POST', '/v1/context/sync', {
      token: a.factoryKey,
      appId: a.appId,
      body: {
        commitSha: synced,
        files: [{ path: '.outerlayer/README.md', content: Buffer.from('hi').toString('base64') }],
      },
    });
    expect(ctxSync.status).toBe(201);
    const withCommit = (id: string, sha: string) =>
      variant(
        build({ id, repo: 'github.com/acme/ctx', startedAt: '2026-10-06T10:00:00.000Z', turns: [{ in: 1, out: 1 }] }),
        (d) => {
          d.env.commitSha = sha;
        },
      );
    const r = await gw.call('POST', '/v1/agents/sync', {
      token: a.factoryKey,
      appId: a.appId,
      body: {
        schemaVersion: 1,
        sessions: [withCommit('ctx-verified', synced), withCommit('ctx-unverified', 'f'.repeat(40))],
      },
    });
    expect(r.status).toBe(200);
    const d = await ok(a, 'repo=acme/ctx');
    const bySession = Object.fromEntries(d.sessions.map((s: Doc) => [s.sessionId, s.contextSourceVerification]));
    expect(bySession).toEqual({ 'ctx-verified': 'verified', 'ctx-unverified': 'unverified' });
    const detail = await gw.call(
      'GET',
      `/v1/sessions/${d.sessions.find((s: Doc) => s.sessionId === 'ctx-verified').traceId}`,
      { token: a.loginToken, appId: a.appId },
    );
    expect(detail.body.data.contextSourceVerification).toBe('verified');
  });

  it('reads a converted raw transcript whole', async () => {
    const doc = raw(rawNames().find((n) => n.startsWith('s05'))!, 'full');
    const r = await gw.call('POST', '/v1/agents/sync', {
      token: a.factoryKey,
      appId: a.appId,
      body: { schemaVersion: 1, sessions: [doc] },
    });
    expect(r.status).toBe(200);
    const listed = (await ok(a, 'repoScope=all&limit=100')).sessions.find((s: Doc) => s.sessionId === doc.id);
    const d = await gw.call('GET', `/v1/sessions/${listed.traceId}`, { token: a.loginToken, appId: a.appId });
    expect(d.status).toBe(200);
    expect(d.body.data.turns).toEqual(JSON.parse(JSON.stringify(doc.turns)));
    expect(d.body.data.turnCount).toBe(doc.turns.length);
  });

  it('anonymizes the actor without sessions.read_team', async () => {
    const d = await gw.call('GET', `/v1/sessions/${betaTrace}`, { token: readOnlyKey, appId: a.appId });
    expect(d.status).toBe(200);
    expect(d.body.data.actorId).toMatch(/^anon-[0-9a-f]{16}$/);
    expect(d.body.data.actorName).toBe('anonymous');
  });

  it("answers 404 session_not_found for another factory's session and for an unknown id", async () => {
    const other = await gw.call('GET', `/v1/sessions/${betaTrace}`, { token: b.factoryKey, appId: b.appId });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('session_not_found');
    const unknown = await gw.call('GET', `/v1/sessions/${crypto.randomUUID()}`, {
      token: a.loginToken,
      appId: a.appId,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('session_not_found');
  });

  it('answers 400 for a malformed id, 401 without a credential, 403 without sessions.read', async () => {
    // Any id up to 200 characters may be a session's own sessionId (issue 15 §6): unknown is 404, too long 400.
    const notFound = await gw.call('GET', '/v1/sessions/not-a-uuid', { token: a.loginToken, appId: a.appId });
    expect(notFound.status).toBe(404);
    const bad = await gw.call('GET', `/v1/sessions/${'x'.repeat(201)}`, { token: a.loginToken, appId: a.appId });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
    expect((await gw.call('GET', `/v1/sessions/${betaTrace}`, { appId: a.appId })).status).toBe(401);
    const denied = await gw.call('GET', `/v1/sessions/${betaTrace}`, { token: ingestKey, appId: a.appId });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'sessions.read' });
  });

  it('is rate limited in the session-detail bucket (30 a minute on the free plan)', async () => {
    const fresh = await createTenant(gw, { plan: 'free' });
    let last = await gw.call('GET', `/v1/sessions/${crypto.randomUUID()}`, {
      token: fresh.factoryKey,
      appId: fresh.appId,
    });
    expect(last.headers['x-ratelimit-limit']).toBe('30');
    for (let i = 1; i < 31; i += 1)
      last = await gw.call('GET', `/v1/sessions/${crypto.randomUUID()}`, {
        token: fresh.factoryKey,
        appId: fresh.appId,
      });
    expect(last.status).toBe(429);
    expect(last.body.error.code).toBe('rate_limited');
    // The list has its own bucket.
    expect((await get(fresh, '', fresh.factoryKey)).status).toBe(200);
  });
});

describe('GET /v1/sessions on the raw Claude Code transcripts', () => {
  it('lists the converted transcripts with their dominant repo and counts', async () => {
    const c = await createTenant(gw, { plan: 'paid' });
    const docs = rawNames().map((n) => raw(n, 'redacted'));
    const r = await gw.call('POST', '/v1/agents/sync', {
      token: c.factoryKey,
      appId: c.appId,
      body: { schemaVersion: 1, sessions: docs },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.rejected).toEqual([]);
    const all = await ok(c, 'repoScope=all&includeSubagents=1&limit=100');
    expect(all.total).toBe(docs.length);
    const topLevel = docs.filter((d) => !d.subagent);
    expect((await ok(c, 'repoScope=all')).total).toBe(topLevel.length);
    const dominant = await ok(c, '');
    const repos = new Set(topLevel.map((d) => d.env.gitRepo).filter(Boolean));
    if (repos.size) expect(dominant.repo).not.toBe('');
    const sumMicros = all.sessions.reduce((n: number, s: Doc) => n + Math.round(s.costUsd * 1e6), 0);
    expect(sumMicros).toBeGreaterThan(0);
    expect(all.models).toEqual(expect.arrayContaining(['claude-opus-4-8', 'claude-sonnet-4-6']));
  });
});
