import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, createTenant, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { recordSessionToolUsage } from '../../../src/areas/metrics/service.js';
import { ingest, sessionDoc, type SessionDoc, type SessionSpec } from './sessions.js';

const SONNET = 'claude-sonnet-4-5';
const GPT = 'gpt-5';
const OCT = { from: '2026-10-01T00:00:00Z', to: '2026-11-01T00:00:00Z' };
const SEP = { from: '2026-09-01T00:00:00Z', to: '2026-10-01T00:00:00Z' };

// October: what the tiles, models, breakdowns and trends must add up to. September: the prior window.
const OCTOBER: SessionSpec[] = [
  {
    startedAt: '2026-10-01T09:00:00Z',
    repo: 'acme/api',
    branch: 'main',
    actorId: 'ana',
    agentType: 'claude-code',
    turns: [
      {
        model: SONNET,
        in: 1200,
        out: 300,
        cacheRead: 5000,
        cacheCreate: 700,
        tools: [{ status: 'ok' }, { name: 'Bash', status: 'error' }],
      },
    ],
  },
  {
    startedAt: '2026-10-01T15:00:00Z',
    repo: 'acme/api',
    branch: 'fix/a',
    actorId: 'bo',
    agentType: 'claude-code',
    humanTurns: 3,
    turns: [
      { model: SONNET, in: 800, out: 900, tools: [{ status: 'ok' }, { name: 'Read', status: 'ok' }] },
      { model: SONNET, in: 400, out: 100 },
    ],
  },
  {
    startedAt: '2026-10-03T10:00:00Z',
    repo: 'acme/web',
    branch: 'main',
    actorId: 'ana',
    agentType: 'codex',
    workerKind: 'ci',
    turns: [
      {
        model: GPT,
        in: 5000,
        out: 2000,
        cacheRead: 1000,
        tools: [
          { name: 'Bash', status: 'rejected' },
          { name: 'Bash', status: 'ok' },
        ],
      },
    ],
  },
  {
    startedAt: '2026-10-03T11:00:00Z',
    repo: 'acme/web',
    branch: 'feat/b',
    actorId: 'cy',
    agentType: 'codex',
    workerKind: 'cloud',
    apiErrors: 1,
    turns: [
      { model: GPT, in: 300, out: 50 },
      { model: SONNET, in: 100, out: 20 },
    ],
  },
  {
    startedAt: '2026-10-10T08:00:00Z',
    actorId: 'cy',
    agentType: 'claude-code',
    humanTurns: 2,
    turns: [{ model: SONNET, in: 50, out: 10, tools: [{ name: 'Read', status: 'ok' }] }],
  },
  {
    startedAt: '2026-10-31T23:59:59Z',
    repo: 'acme/api',
    branch: 'main',
    actorId: 'bo',
    agentType: 'claude-code',
    workerKind: 'seat',
    turns: [{ model: SONNET, in: 10, out: 10 }],
  },
];
const SEPTEMBER: SessionSpec[] = [
  {
    startedAt: '2026-09-15T09:00:00Z',
    repo: 'acme/api',
    branch: 'main',
    actorId: 'ana',
    turns: [{ model: SONNET, in: 100, out: 100, tools: [{ status: 'error' }] }],
  },
  {
    startedAt: '2026-09-20T09:00:00Z',
    repo: 'acme/api',
    branch: 'main',
    actorId: 'ana',
    turns: [{ model: SONNET, in: 100, out: 100 }],
  },
];

interface Listed {
  sessionId: string;
  traceId: string;
  costUsd: number;
  toolCallCount: number;
}

describe('metrics', () => {
  let gw: TestGateway;
  let t: Tenant;
  let other: Tenant;
  let octDocs: SessionDoc[];
  let subagent: SessionDoc;
  let october: Listed[];
  let september: Listed[];
  const as = (tenant: Tenant) => ({ token: tenant.factoryKey, appId: tenant.appId });
  const get = (url: string, tenant: Tenant = t) => gw.call('GET', url, as(tenant));
  const qs = (q: Record<string, string>) => new URLSearchParams(q).toString();
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const tokens = (docs: SessionDoc[], kind: 'in' | 'out' | 'cacheRead' | 'cacheCreate', model?: string) =>
    sum(
      docs.flatMap((d) =>
        (d.turns as { role: string; model?: string; usage?: Record<string, number> }[])
          .filter((x) => x.role === 'assistant' && (!model || x.model === model))
          .map((x) => x.usage![kind]!),
      ),
    );

  withGatewayAndTenants((s) => ({ gw, a: t, b: other } = s), { a: { plan: 'free' } });
  beforeAll(async () => {
    octDocs = OCTOBER.map(sessionDoc);
    // A subagent transcript of the first October session: its tokens and cost count, it is not a session of its own.
    subagent = sessionDoc({
      ...OCTOBER[0]!,
      id: octDocs[0]!.id as string,
      turns: [{ model: SONNET, in: 2000, out: 400, tools: [{ name: 'Grep', status: 'ok' }] }],
    });
    subagent.subagent = { agentId: 'agent-1', parentSessionId: octDocs[0]!.id };
    // The actor of a session is whoever sends it: ana (the owner's key), bo and cy (their login tokens).
    const bo = await addMember(gw, t, 'write');
    const cy = await addMember(gw, t, 'write');
    const senders: Record<string, { token: string; appId: string }> = {
      ana: as(t),
      bo: { token: bo.loginToken, appId: t.appId },
      cy: { token: cy.loginToken, appId: t.appId },
    };
    for (const actor of Object.keys(senders)) {
      const mine = octDocs.filter((_, i) => OCTOBER[i]!.actorId === actor);
      await ingest(gw, senders[actor]!, actor === 'ana' ? [...mine, subagent, ...SEPTEMBER.map(sessionDoc)] : mine);
    }
    // Another factory's sessions in the same window never show up here.
    await ingest(gw, as(other), [sessionDoc({ ...OCTOBER[0]!, turns: [{ model: SONNET, in: 99999, out: 99999 }] })]);

    const list = async (w: { from: string; to: string }, includeSubagents: boolean) => {
      const r = await get(
        `/v1/sessions?` +
          `${qs({ repoScope: 'all', limit: '100', ...w, ...(includeSubagents ? { includeSubagents: '1' } : {}) })}`,
      );
      expect(r.status).toBe(200);
      return r.body.data.sessions as Listed[];
    };
    october = await list(OCT, true);
    september = await list(SEP, false);
    expect(october).toHaveLength(7);
    expect(september).toHaveLength(2);
    // Tool counters are written at ingest (recordSessionToolUsage); feed them the same documents. The parent
    // and its subagent transcript share a sessionId; the parent made two tool calls, the subagent one.
    const traceOf = (doc: SessionDoc, isSub: boolean) => {
      const rows = october.filter((s) => s.sessionId === doc.id);
      return (rows.length === 1 ? rows[0] : rows.find((s) => s.toolCallCount === (isSub ? 1 : 2)))!.traceId;
    };
    const db = gw.app.attest.db;
    for (const [i, doc] of octDocs.entries()) {
      const spec = OCTOBER[i]!;
      await recordSessionToolUsage(
        db,
        {
          id: traceOf(doc, false),
          orgId: t.orgId,
          appId: t.appId,
          startedAt: Date.parse(spec.startedAt),
          repo: spec.repo ?? '',
          isSubagent: false,
        },
        doc.turns as never,
      );
    }
    await recordSessionToolUsage(
      db,
      {
        id: traceOf(subagent, true),
        orgId: t.orgId,
        appId: t.appId,
        startedAt: Date.parse(OCTOBER[0]!.startedAt),
        repo: 'acme/api',
        isSubagent: true,
      },
      subagent.turns as never,
    );
  });

  it('models: per-model token spend agrees with the sessions ingested', async () => {
    const r = await get(`/v1/metrics/models?${qs(OCT)}`);
    expect(r.status).toBe(200);
    expect(r.headers['x-ratelimit-limit']).toBe('100');
    const { models, totals, window } = r.body.data;
    expect(window).toEqual({ from: '2026-10-01T00:00:00.000Z', to: '2026-11-01T00:00:00.000Z' });
    const docs = [...octDocs, subagent];
    const sonnet = models.find((m: { model: string }) => m.model === SONNET);
    const gpt = models.find((m: { model: string }) => m.model === GPT);
    expect(models).toHaveLength(2);
    expect(sonnet).toMatchObject({
      sessions: 6,
      turns: 7,
      inputTokens: tokens(docs, 'in', SONNET),
      outputTokens: tokens(docs, 'out', SONNET),
      cacheReadTokens: tokens(docs, 'cacheRead', SONNET),
      cacheWriteTokens: tokens(docs, 'cacheCreate', SONNET),
    });
    // OpenAI usage counts cached input inside `in`; the gateway keeps input and cache reads apart (src/pricing).
    expect(gpt).toMatchObject({
      sessions: 2,
      turns: 2,
      inputTokens: 5300 - 1000,
      outputTokens: 2050,
      cacheReadTokens: 1000,
      cacheWriteTokens: 0,
    });
    expect(totals).toMatchObject({
      inputTokens: tokens(docs, 'in') - 1000,
      outputTokens: tokens(docs, 'out'),
      cacheReadTokens: tokens(docs, 'cacheRead'),
      turns: 9,
    });
    // The cost is the sum of what the session list says each session (and subagent transcript) cost.
    expect(totals.costUsd).toBeGreaterThan(0);
    expect(totals.costUsd).toBeCloseTo(sum(october.map((s) => s.costUsd)), 6);
    expect(totals.costMicros).toBe(sonnet.costMicros + gpt.costMicros);

    const api = await get(`/v1/metrics/models?${qs({ ...OCT, repo: 'acme/web' })}`);
    expect(api.body.data.models.map((m: { model: string; sessions: number }) => [m.model, m.sessions]).sort()).toEqual([
      [SONNET, 1],
      [GPT, 2],
    ]);
    const none = await get(`/v1/metrics/models?${qs({ ...OCT, repo: '' })}`);
    expect(none.body.data.totals.inputTokens).toBe(50);
  });

  it('overview: tiles of the window and of the window before it', async () => {
    const r = await get(`/v1/metrics/overview?${qs(OCT)}`);
    expect(r.status).toBe(200);
    const { tiles, priorWindow } = r.body.data;
    // October has 31 days: the prior window is the 31 days before it, which holds September's sessions.
    expect(priorWindow).toEqual({ from: '2026-08-31T00:00:00.000Z', to: '2026-10-01T00:00:00.000Z' });
    expect(tiles.sessions).toEqual({ current: 6, prior: 2 });
    expect(tiles.subagentSessions).toEqual({ current: 1, prior: 0 });
    expect(tiles.totalCostUsd.current).toBeGreaterThan(0);
    expect(tiles.totalCostUsd.current).toBeCloseTo(sum(october.map((s) => s.costUsd)), 6);
    expect(tiles.totalCostUsd.prior).toBeCloseTo(sum(september.map((s) => s.costUsd)), 6);
    // Top-level sessions: 7 tool calls, 1 error, 1 denied; clean = no tool error, provider error or denial.
    expect(tiles.toolCalls).toEqual({ current: 7, prior: 1 });
    expect(tiles.toolErrorRate.current).toBeCloseTo(1 / 7, 10);
    expect(tiles.toolErrorRate.prior).toBe(1);
    expect(tiles.toolDenialRate.current).toBeCloseTo(1 / 7, 10);
    expect(tiles.cleanSessionRate.current).toBeCloseTo(3 / 6, 10);
    expect(tiles.cleanSessionRate.prior).toBeCloseTo(1 / 2, 10);
    expect(tiles.handsOnRate.current).toBeCloseTo(2 / 6, 10);
    expect(tiles.activeActors).toEqual({ current: 3, prior: 1 });
    expect(tiles.modelMix.current.map((m: { model: string }) => m.model).sort()).toEqual([SONNET, GPT]);
    expect(sum(tiles.modelMix.current.map((m: { costShare: number }) => m.costShare))).toBeCloseTo(1, 10);
    expect(tiles.modelMix.prior).toEqual([
      expect.objectContaining({ model: SONNET, sessions: 2, turns: 2, turnShare: 1 }),
    ]);

    // A date-only `to` includes that day; the day before is the prior window.
    const day = await get(`/v1/metrics/overview?${qs({ from: '2026-10-03', to: '2026-10-03' })}`);
    expect(day.body.data.window).toEqual({ from: '2026-10-03T00:00:00.000Z', to: '2026-10-04T00:00:00.000Z' });
    expect(day.body.data.priorWindow).toEqual({ from: '2026-10-02T00:00:00.000Z', to: '2026-10-03T00:00:00.000Z' });
    expect(day.body.data.tiles.sessions).toEqual({ current: 2, prior: 0 });
    expect(day.body.data.tiles.toolErrorRate).toEqual({ current: 0, prior: null });

    // Default window: the last 30 UTC days, today included (the test clock is 2026-11-01T12:00Z).
    const dflt = await get('/v1/metrics/overview');
    expect(dflt.body.data.window).toEqual({ from: '2026-10-03T00:00:00.000Z', to: '2026-11-02T00:00:00.000Z' });
    expect(dflt.body.data.tiles.sessions.current).toBe(4);
    // A window that starts and ends inside days: partial edge days come from the sessions themselves.
    const edges = await get(`/v1/metrics/overview?${qs({ from: '2026-10-01T12:00:00Z', to: '2026-10-31T12:00:00Z' })}`);
    expect(edges.body.data.tiles.sessions.current).toBe(4);
    expect(edges.body.data.tiles.activeActors.current).toBe(3);
    expect(edges.body.data.tiles.toolCalls.current).toBe(2 + 2 + 1);
    const models = await get(`/v1/metrics/models?${qs({ from: '2026-10-01T12:00:00Z', to: '2026-10-31T12:00:00Z' })}`);
    expect(
      models.body.data.models.map((m: { model: string; sessions: number }) => [m.model, m.sessions]).sort(),
    ).toEqual([
      [SONNET, 3],
      [GPT, 2],
    ]);
  });

  it('compare: two arbitrary windows with deltas b − a', async () => {
    const r = await get(`/v1/metrics/compare?${qs({ aFrom: SEP.from, aTo: SEP.to, bFrom: OCT.from, bTo: OCT.to })}`);
    expect(r.status).toBe(200);
    const { a, b, deltas } = r.body.data;
    expect(a.tiles.sessions).toBe(2);
    expect(b.tiles.sessions).toBe(6);
    expect(deltas.sessions).toEqual({ absolute: 4, relative: 2 });
    expect(deltas.totalCostUsd.absolute).toBeCloseTo(b.tiles.totalCostUsd - a.tiles.totalCostUsd, 10);
    expect(deltas.toolErrorRate.absolute).toBeCloseTo(1 / 7 - 1, 10);
    const overview = (await get(`/v1/metrics/overview?${qs(OCT)}`)).body.data.tiles;
    expect(b.tiles.totalCostMicros).toBeGreaterThan(0);
    expect(b.tiles.totalCostUsd).toBe(overview.totalCostUsd.current);
    // Overlapping windows are fine: each is aggregated on its own.
    const overlap = await get(
      `/v1/metrics/compare?${qs({ aFrom: '2026-10-01', aTo: '2026-10-03', bFrom: '2026-10-03', bTo: '2026-10-31' })}`,
    );
    expect(overlap.body.data.a.tiles.sessions).toBe(4);
    expect(overlap.body.data.b.tiles.sessions).toBe(4);
  });

  it('breakdown: by branch, agent_type, worker_kind, repo, origin, model and tool', async () => {
    const by = async (dim: string) => (await get(`/v1/metrics/breakdown?${qs({ ...OCT, by: dim })}`)).body.data;
    const keys = (d: { rows: { key: string | null; sessions: number }[] }) =>
      Object.fromEntries(d.rows.map((r) => [r.key ?? 'null', r.sessions]));
    expect(keys(await by('branch'))).toEqual({ main: 3, 'fix/a': 1, 'feat/b': 1, '': 1 });
    expect(keys(await by('agent_type'))).toEqual({ 'claude-code': 4, codex: 2 });
    expect(keys(await by('worker_kind'))).toEqual({ null: 3, ci: 1, cloud: 1, seat: 1 });
    const repo = await by('repo');
    expect(keys(repo)).toEqual({ 'acme/api': 3, 'acme/web': 2, '': 1 });
    expect(repo.groups).toBe(3);
    // Session groups hold top-level sessions; their costs add up to the tiles' cost minus the subagent's.
    const totalTop = sum(
      october.filter((s) => s.toolCallCount !== 1 || s.sessionId !== octDocs[0]!.id).map((s) => s.costUsd),
    );
    expect(sum(repo.rows.map((r: { costUsd: number }) => r.costUsd))).toBeCloseTo(totalTop, 6);
    expect(keys(await by('model'))).toEqual({ [SONNET]: 6, [GPT]: 2 });
    const tool = await by('tool');
    expect(
      tool.rows.map((r: { key: string; toolCalls: number; toolErrors: number; rejectedToolCalls: number }) => [
        r.key,
        r.toolCalls,
        r.toolErrors,
        r.rejectedToolCalls,
      ]),
    ).toEqual([
      ['Bash', 3, 1, 1],
      ['Edit', 2, 0, 0],
      ['Read', 2, 0, 0],
    ]);
    const limited = (await get(`/v1/metrics/breakdown?${qs({ ...OCT, by: 'branch', limit: '2' })}`)).body.data;
    expect(limited.rows).toHaveLength(2);
    expect(limited.groups).toBe(4);
    for (const q of [{ ...OCT }, { ...OCT, by: 'colour' }, { ...OCT, by: 'repo', limit: '0' }]) {
      const bad = await get(`/v1/metrics/breakdown?${qs(q)}`);
      expect(bad.status, JSON.stringify(q)).toBe(400);
      expect(bad.body.error.code).toBe('invalid_query_params');
    }
  });

  it('trends: one point per UTC day, summing to the window', async () => {
    const r = await get(`/v1/metrics/trends?${qs(OCT)}`);
    expect(r.status).toBe(200);
    const points = r.body.data.points as {
      date: string;
      sessions: number;
      costUsd: number;
      activeActors: number;
      toolErrorRate: number | null;
    }[];
    expect(points).toHaveLength(31);
    expect(points[0]).toMatchObject({ date: '2026-10-01', sessions: 2, activeActors: 2 });
    expect(points[0]!.toolErrorRate).toBeCloseTo(1 / 4, 10);
    expect(points[1]).toMatchObject({ date: '2026-10-02', sessions: 0, costUsd: 0, toolErrorRate: null });
    expect(points[30]).toMatchObject({ date: '2026-10-31', sessions: 1 });
    expect(sum(points.map((p) => p.sessions))).toBe(6);
    expect(sum(points.map((p) => p.costUsd))).toBeCloseTo(sum(october.map((s) => s.costUsd)), 6);
    const long = await get(`/v1/metrics/trends?${qs({ from: '2025-01-01', to: '2026-10-01' })}`);
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe('invalid_query_params');
  });

  it('validates dates and parameters on every route', async () => {
    for (const path of ['models', 'overview', 'breakdown', 'trends']) {
      const extra: Record<string, string> = path === 'breakdown' ? { by: 'repo' } : {};
      const reversed = await get(`/v1/metrics/${path}?${qs({ from: OCT.to, to: OCT.from, ...extra })}`);
      expect(reversed.status, path).toBe(400);
      expect(reversed.body.error.code).toBe('invalid_date_range');
      for (const from of ['yesterday', '2026-02-30', '2026-10-01T10:00:00']) {
        const bad = await get(`/v1/metrics/${path}?${qs({ from, ...extra })}`);
        expect(bad.status, `${path} ${from}`).toBe(400);
        expect(bad.body.error.code).toBe('invalid_query_params');
      }
      const unknown = await get(`/v1/metrics/${path}?${qs({ bogus: '1', ...extra })}`);
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.code).toBe('invalid_query_params');
    }
    for (const q of [
      { aFrom: OCT.to, aTo: OCT.from },
      { bFrom: OCT.to, bTo: OCT.from },
    ] as Record<string, string>[]) {
      const r = await get(`/v1/metrics/compare?${qs(q)}`);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_date_range');
    }
    // An empty window is allowed and empty.
    const empty = await get(`/v1/metrics/overview?${qs({ from: OCT.from, to: OCT.from })}`);
    expect(empty.status).toBe(200);
    expect(empty.body.data.tiles.sessions.current).toBe(0);
  });

  it('needs metrics.read, and keeps factories apart', async () => {
    for (const path of ['models', 'overview', 'compare', 'breakdown?by=repo', 'trends']) {
      const none = await gw.call('GET', `/v1/metrics/${path}`, { appId: t.appId });
      expect(none.status).toBe(401);
      const wrong = await gw.call('GET', `/v1/metrics/${path}`, {
        token: 'sk_outerlayer_000000000000000000000000000000000000aaaaaa',
        appId: t.appId,
      });
      expect(wrong.status).toBe(401);
      expect((await gw.call('GET', `/v1/metrics/${path}`, { token: other.factoryKey, appId: t.appId })).status).toBe(
        401,
      );
    }
    const ingestKey = (
      await gw.call('POST', '/v1/api-keys', {
        token: t.loginToken,
        appId: t.appId,
        body: { name: 'ingest', preset: 'ingest' },
      })
    ).body.data.plaintext_key;
    const denied = await gw.call('GET', '/v1/metrics/overview', { token: ingestKey, appId: t.appId });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'forbidden', required_permission: 'metrics.read' });

    const theirs = (await get(`/v1/metrics/overview?${qs(OCT)}`, other)).body.data.tiles;
    expect(theirs.sessions.current).toBe(1);
    const theirModels = (await get(`/v1/metrics/models?${qs(OCT)}`, other)).body.data.totals;
    expect(theirModels.inputTokens).toBe(99999);
    expect((await get(`/v1/metrics/breakdown?${qs({ ...OCT, by: 'tool' })}`, other)).body.data.rows).toEqual([]);
  });
  it('answers concurrent first reads of a factory with every day of the window, each of them', async () => {
    // Sessions on days that make three separate runs of the rollup (one transaction each): 2, 3-4 and 8 July.
    const days = [
      '2026-07-02T10:00:00Z',
      '2026-07-03T10:00:00Z',
      '2026-07-04T10:00:00Z',
      '2026-07-08T10:00:00Z',
      '2026-07-08T11:00:00Z',
    ];
    const window = qs({ from: '2026-07-01', to: '2026-07-31' });
    for (let round = 0; round < 4; round += 1) {
      // A fresh factory each round: its first reads all find the rollups empty and compute them at once.
      const fresh = await createTenant(gw, { plan: 'paid' });
      const r = await ingest(
        gw,
        as(fresh),
        days.map((startedAt) =>
          sessionDoc({ startedAt, repo: 'acme/api', branch: 'main', turns: [{ model: SONNET, in: 10, out: 10 }] }),
        ),
      );
      expect(r.status).toBe(200);
      const reads = await Promise.all(Array.from({ length: 8 }, () => get(`/v1/metrics/overview?${window}`, fresh)));
      expect(reads.map((x) => x.status)).toEqual(Array(8).fill(200));
      expect(
        reads.map((x) => x.body.data.tiles.sessions.current),
        `round ${round}`,
      ).toEqual(Array(8).fill(days.length));
    }
  });

  it('follows sessions stored after an earlier read (the daily rollups refresh)', async () => {
    const JUL = { from: '2026-07-01', to: '2026-07-31' };
    const tiles = async () => (await get(`/v1/metrics/overview?${qs(JUL)}`)).body.data.tiles;
    expect((await tiles()).sessions.current).toBe(0);
    // Stored at the same instant as everything before it: the count of sessions at the watermark changed.
    const doc = sessionDoc({
      startedAt: '2026-07-10T10:00:00Z',
      repo: 'acme/api',
      branch: 'main',
      turns: [{ model: SONNET, in: 10, out: 10 }],
    });
    await ingest(gw, as(t), [doc]);
    expect((await tiles()).sessions.current).toBe(1);
    expect((await tiles()).turns.current).toBe(2);
    // A longer version of it, stored later, replaces it in the rollups.
    gw.clock.advance(1000);
    const longer = sessionDoc({
      id: doc.id as string,
      startedAt: '2026-07-10T10:00:00Z',
      repo: 'acme/api',
      branch: 'main',
      turns: [
        { model: SONNET, in: 10, out: 10 },
        { model: GPT, in: 10, out: 10 },
      ],
    });
    await ingest(gw, as(t), [longer]);
    const after = await tiles();
    expect(after.sessions.current).toBe(1);
    expect(after.turns.current).toBe(3);
    const models = (await get(`/v1/metrics/models?${qs(JUL)}`)).body.data.models;
    expect(models.map((m: { model: string }) => m.model).sort()).toEqual([SONNET, GPT]);
    const points = (await get(`/v1/metrics/trends?${qs(JUL)}`)).body.data.points;
    expect(points[9]).toMatchObject({ date: '2026-07-10', sessions: 1, turns: 3 });
    // The October figures did not move.
    expect((await get(`/v1/metrics/overview?${qs(OCT)}`)).body.data.tiles.sessions).toEqual({ current: 6, prior: 2 });
  });
});
