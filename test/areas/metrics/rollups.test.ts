// The aggregates behind the Overview are kept at write time (issue 46): after syncs, a re-sync that grows and
// moves sessions, PR merges (one of them a revert) and a PR's branch change, every rollup and PR spend sum
// equals what a rebuild from the rows gives, and the Overview's answers from them equal the answers computed
// from the rows (a window shifted by one millisecond has partial days, which are read from the rows).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../helpers/gateway.js';
import { rebuildAllRollups } from '../../../src/areas/metrics/rollup-rebuild.js';
import {
  connectRepository,
  deliver,
  pullRequestDelivery,
  startWithGithub,
  type GithubGateway,
  type PullSpec,
} from '../webhooks/github.js';
import { ingest, sessionDoc, type SessionSpec } from './sessions.js';

const SONNET = 'claude-sonnet-4-5';
const OPUS = 'claude-opus-4-1';
const COUNTERS: Record<string, readonly string[]> = {
  metrics_days: ['sessions', 'subagent_sessions', 'cost_micros', 'top_cost_micros', 'turns', 'tool_calls'],
  metrics_day_actors: ['sessions'],
  metrics_day_models: ['sessions', 'turns', 'cost_micros', 'input_tokens'],
  metrics_day_keys: ['sessions', 'cost_micros', 'turns', 'tool_calls'],
  metrics_day_tools: ['sessions', 'calls', 'errors', 'rejected'],
  spend_prs: ['sessions'],
  spend_shipped_days: ['cost_micros'],
  spend_merged_days: ['cost_micros'],
  spend_merged_pairs: ['cost_micros'],
  spend_sessions: [],
};

describe('metrics aggregates kept at write time', () => {
  let g: GithubGateway;
  let t: Tenant;
  const as = () => ({ token: t.factoryKey, appId: t.appId });
  const pr = (spec: Partial<PullSpec> & Pick<PullSpec, 'number' | 'updatedAt'>): PullSpec => ({
    repository: 'acme/api',
    title: `PR ${spec.number}`,
    head: `feat/${spec.number}`,
    installationId: g.installation.id,
    ...spec,
  });
  const open = (number: number, extra: Partial<PullSpec> = {}) =>
    deliver(g, 'pull_request', pullRequestDelivery(pr({ number, updatedAt: '2026-10-01T10:00:00Z', ...extra })));
  const merge = (number: number, at: string, extra: Partial<PullSpec> = {}) =>
    deliver(
      g,
      'pull_request',
      pullRequestDelivery(pr({ number, updatedAt: at, state: 'closed', merged: true, ...extra })),
    );

  /** Every aggregate row of the factory, rows of zeros left out (a group whose sessions moved away). */
  const snapshot = async () => {
    const db = g.gw.app.attest.db;
    const out: Record<string, string[]> = {};
    for (const [table, counters] of Object.entries(COUNTERS)) {
      const rows = (await db
        .selectFrom(table as 'metrics_days')
        .selectAll()
        .where('app_id', '=', t.appId)
        .execute()) as Record<string, unknown>[];
      out[table] = rows
        .filter((r) => counters.length === 0 || counters.some((c) => Number(r[c]) !== 0))
        .map((r) => JSON.stringify(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])))
        .sort();
    }
    return out;
  };
  /** The aggregates as kept must equal a rebuild from the rows (which then replaces them, equal). */
  const expectExact = async () => {
    const kept = await snapshot();
    await rebuildAllRollups(g.gw.app.attest.db, t.appId);
    const rebuilt = await snapshot();
    expect(kept).toEqual(rebuilt);
    return kept;
  };
  const get = async (path: string) => {
    const r = await g.gw.call('GET', path, as());
    expect(r.status).toBe(200);
    return r.body.data;
  };
  /** The Overview over whole days (aggregates) equals the same window read from the rows. */
  const expectAnswersFromRows = async () => {
    const days = await get('/v1/metrics/overview?from=2026-10-01&to=2026-10-31');
    const rows = await get('/v1/metrics/overview?from=2026-09-30T23:59:59.999Z&to=2026-10-31T23:59:59.999Z');
    for (const k of ['sessions', 'totalCostUsd', 'mergedPrs', 'costPerMergedPrUsd', 'unshippedCostUsd', 'activeActors'])
      expect([k, days.tiles[k].current]).toEqual([k, rows.tiles[k].current]);
    for (const by of ['branch', 'worker_kind', 'tool', 'model']) {
      const a = await get(`/v1/metrics/breakdown?by=${by}&from=2026-10-01&to=2026-10-31`);
      const b = await get(`/v1/metrics/breakdown?by=${by}&from=2026-09-30T23:59:59.999Z&to=2026-10-31T23:59:59.999Z`);
      expect([by, a.groups, a.rows]).toEqual([by, b.groups, b.rows]);
    }
    return days.tiles;
  };

  const turn = (model: string, tools: SessionSpec['turns'][number]['tools'] = []) => ({
    model,
    in: 1000,
    out: 500,
    tools,
  });
  const s1: SessionSpec = {
    id: 'c0000000-0000-4000-8000-000000000001',
    startedAt: '2026-10-09T08:00:00Z',
    repo: 'acme/api',
    branch: 'feat/31',
    turns: [turn(SONNET, [{ status: 'ok' }])],
  };
  const s2: SessionSpec = {
    id: 'c0000000-0000-4000-8000-000000000002',
    startedAt: '2026-10-10T08:00:00Z',
    repo: 'acme/api',
    branch: 'main',
    prNumber: 32,
    workerKind: 'ci',
    turns: [turn(OPUS), turn(OPUS)],
  };
  // Named PR 32 and on 31's branch: linked to two PRs that merge on different days.
  const s3: SessionSpec = {
    id: 'c0000000-0000-4000-8000-000000000003',
    startedAt: '2026-10-10T09:00:00Z',
    repo: 'acme/api',
    branch: 'feat/31',
    prLinked: [32],
    actorId: 'member-2',
    turns: [turn(SONNET, [{ name: 'Bash', status: 'error' }]), turn(SONNET)],
  };
  const s4: SessionSpec = {
    id: 'c0000000-0000-4000-8000-000000000004',
    startedAt: '2026-10-12T08:00:00Z',
    repo: 'acme/web',
    branch: 'feat/31',
    turns: [turn(SONNET, [{ status: 'rejected' }])],
  };

  beforeAll(async () => {
    g = await startWithGithub();
    t = await createTenant(g.gw);
    await connectRepository(g, t, 'acme/api');
    await open(31);
    await open(32);
    const sub = sessionDoc({ ...s1, turns: [turn(SONNET, [{ name: 'Grep', status: 'ok' }])] });
    sub.subagent = { agentId: 'agent-1', parentSessionId: s1.id };
    await ingest(g.gw, as(), [...[s1, s2, s3, s4].map(sessionDoc), sub]);
  });
  afterAll(async () => {
    await g?.close();
  });

  it('stay exact through syncs, a re-sync, merges, a revert and a branch change', async () => {
    // Synced, nothing merged: nothing shipped.
    let kept = await expectExact();
    expect(kept.metrics_day_keys!.length).toBeGreaterThan(0);
    expect(kept.spend_sessions).toEqual([]);
    let tiles = await expectAnswersFromRows();
    expect(tiles.sessions.current).toBe(4);
    expect(tiles.mergedPrs.current).toBe(0);

    // 31 merges on Oct 11 (s1 and s3 run on its branch before), 32 on Oct 14 (s2 and s3 name it).
    await merge(31, '2026-10-11T12:00:00Z');
    await merge(32, '2026-10-14T12:00:00Z');
    kept = await expectExact();
    expect(kept.spend_sessions).toHaveLength(3);
    expect(kept.spend_merged_pairs!.length).toBeGreaterThan(0); // s3: merged on the 11th and the 14th
    tiles = await expectAnswersFromRows();
    expect(tiles.mergedPrs.current).toBe(2);
    // A window holding only the 14th: 32 and its sessions s2, s3 (s3 once).
    const only14 = await get('/v1/metrics/overview?from=2026-10-14&to=2026-10-14');
    expect(only14.tiles.mergedPrs.current).toBe(1);

    // Re-sync: s1 grows (another model, a failed tool call) and moves to the 12th; s3 leaves 31's branch.
    await ingest(g.gw, as(), [
      sessionDoc({
        ...s1,
        startedAt: '2026-10-12T08:00:00Z',
        turns: [...s1.turns, turn(OPUS, [{ name: 'Bash', status: 'error' }])],
      }),
      sessionDoc({ ...s3, branch: 'other' }),
    ]);
    kept = await expectExact();
    tiles = await expectAnswersFromRows();
    expect(tiles.sessions.current).toBe(4);
    expect(tiles.mergedPrs.current).toBe(1);

    // A revert of 31 merges (it names no session), and 32's head branch changes after the fact.
    await open(33, { title: 'Revert "PR 31"', body: 'Reverts acme/api#31' });
    await merge(33, '2026-10-15T12:00:00Z', { title: 'Revert "PR 31"', body: 'Reverts acme/api#31' });
    await merge(32, '2026-10-16T12:00:00Z', { head: 'main' });
    kept = await expectExact();
    tiles = await expectAnswersFromRows();
    // 31 lost its sessions in the re-sync (s1 now starts after it closed, s3 left its branch): only 32 counts.
    expect(tiles.mergedPrs.current).toBe(1);
  });
});
