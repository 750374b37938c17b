// The PR spend tiles of /v1/metrics/overview and /compare: cost per merged PR and unshipped spend, against
// sums computed here from what was seeded (PRs through the webhooks, sessions through the sync).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../helpers/gateway.js';
import {
  connectRepository,
  deliver,
  pullRequestDelivery,
  startWithGithub,
  type GithubGateway,
  type PullSpec,
} from '../webhooks/github.js';
import { ingest, sessionDoc } from './sessions.js';

const turn = { model: 'claude-sonnet-4-5', in: 1000, out: 500, cacheRead: 2000 };
const turns = (n: number) => Array.from({ length: n }, () => turn);

describe('PR spend tiles', () => {
  let g: GithubGateway;
  let t: Tenant;
  let other: Tenant;
  /** Cost of one assistant turn as the session list reports it (every session here is n such turns). */
  let unit: number;
  const as = (tenant: Tenant) => ({ token: tenant.factoryKey, appId: tenant.appId });
  const pr = (spec: Partial<PullSpec> & Pick<PullSpec, 'number' | 'updatedAt'>): PullSpec => ({
    repository: 'acme/api',
    title: `PR ${spec.number}`,
    head: `feat/${spec.number}`,
    installationId: g.installation.id,
    ...spec,
  });
  const merge = async (number: number, at: string, extra: Partial<PullSpec> = {}) => {
    await deliver(g, 'pull_request', pullRequestDelivery(pr({ number, updatedAt: '2026-10-01T10:00:00Z', ...extra })));
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(pr({ number, updatedAt: at, state: 'closed', merged: true, ...extra })),
    );
  };

  beforeAll(async () => {
    g = await startWithGithub();
    t = await createTenant(g.gw);
    other = await createTenant(g.gw);
    await connectRepository(g, t, 'acme/api');
    await merge(20, '2026-10-05T10:00:00Z'); // prior window
    await merge(21, '2026-10-10T12:00:00Z');
    await merge(22, '2026-10-11T12:00:00Z');
    // stays open
    await deliver(g, 'pull_request', pullRequestDelivery(pr({ number: 23, updatedAt: '2026-10-09T10:00:00Z' })));
    await merge(24, '2026-10-12T12:00:00Z');
    // reverts 24; no session
    await merge(25, '2026-10-13T12:00:00Z', { title: 'Revert "PR 24"', body: 'Reverts acme/api#24' });
    await merge(26, '2026-10-12T13:00:00Z'); // merged, no session
    await deliver(g, 'pull_request', pullRequestDelivery(pr({ number: 27, updatedAt: '2026-10-01T10:00:00Z' })));
    await deliver(
      g,
      'pull_request',
      pullRequestDelivery(pr({ number: 27, updatedAt: '2026-10-12T10:00:00Z', state: 'closed', merged: false })),
    ); // closed unmerged

    await ingest(g.gw, as(t), [
      sessionDoc({
        id: 'b0000000-0000-4000-8000-000000000001',
        startedAt: '2026-10-09T08:00:00Z',
        repo: 'acme/api',
        branch: 'main',
        prNumber: 21,
        prLinked: [22],
        turns: turns(1),
      }),
      sessionDoc({
        id: 'b0000000-0000-4000-8000-000000000002',
        startedAt: '2026-10-09T06:00:00Z',
        repo: 'acme/api',
        branch: 'feat/21',
        turns: turns(2),
      }),
      sessionDoc({
        id: 'b0000000-0000-4000-8000-000000000003',
        startedAt: '2026-10-10T08:00:00Z',
        repo: 'acme/api',
        branch: 'x',
        prLinked: [22],
        turns: turns(3),
      }),
      sessionDoc({
        id: 'b0000000-0000-4000-8000-000000000004',
        startedAt: '2026-10-10T09:00:00Z',
        repo: 'acme/api',
        branch: 'feat/23',
        turns: turns(4),
      }),
      sessionDoc({
        id: 'b0000000-0000-4000-8000-000000000005',
        startedAt: '2026-10-11T08:00:00Z',
        repo: 'acme/api',
        branch: 'y',
        prNumber: 24,
        turns: turns(5),
      }),
      sessionDoc({
        id: 'b0000000-0000-4000-8000-000000000006',
        startedAt: '2026-10-11T09:00:00Z',
        repo: 'acme/api',
        branch: 'y',
        turns: turns(6),
      }),
      // On 21's branch after 21 merged: a reused branch name, not linked.
      sessionDoc({
        id: 'b0000000-0000-4000-8000-000000000007',
        startedAt: '2026-10-11T10:00:00Z',
        repo: 'acme/api',
        branch: 'feat/21',
        turns: turns(7),
      }),
      sessionDoc({
        id: 'b0000000-0000-4000-8000-000000000008',
        startedAt: '2026-10-03T08:00:00Z',
        repo: 'acme/api',
        branch: 'feat/20',
        turns: turns(8),
      }),
      // In the current window, linked to a PR merged in the prior window.
      sessionDoc({
        id: 'b0000000-0000-4000-8000-000000000009',
        startedAt: '2026-10-09T09:00:00Z',
        repo: 'acme/api',
        branch: 'z',
        prLinked: [20],
        turns: turns(9),
      }),
      sessionDoc({
        id: 'b0000000-0000-4000-8000-000000000010',
        startedAt: '2026-10-11T11:00:00Z',
        repo: 'acme/api',
        branch: 'feat/27',
        turns: turns(10),
      }),
      sessionDoc({
        id: 'b0000000-0000-4000-8000-000000000011',
        startedAt: '2026-10-09T10:00:00Z',
        repo: 'acme/web',
        branch: 'main',
        turns: turns(11),
      }),
    ]);
    // Another factory's session naming PR 21: it has no PR state of its own.
    await ingest(g.gw, as(other), [
      sessionDoc({
        startedAt: '2026-10-09T08:00:00Z',
        repo: 'acme/api',
        branch: 'feat/21',
        prNumber: 21,
        turns: turns(12),
      }),
    ]);

    const list = await g.gw.call(
      'GET',
      '/v1/sessions?repoScope=all&limit=100&from=2026-09-01T00:00:00Z&to=2026-11-01T00:00:00Z',
      as(t),
    );
    expect(list.status).toBe(200);
    const costs: { turnCount: number; userTurnCount: number; costUsd: number }[] = list.body.data.sessions;
    expect(costs).toHaveLength(11);
    const assistantTurns = (s: { turnCount: number; userTurnCount: number }) => s.turnCount - s.userTurnCount;
    unit = costs.find((s) => assistantTurns(s) === 1)!.costUsd;
    expect(unit).toBeGreaterThan(0);
    for (const s of costs) expect(s.costUsd).toBeCloseTo(assistantTurns(s) * unit, 6);
  });
  afterAll(async () => {
    await g?.close();
  });

  it('overview: cost per merged PR and unshipped spend, with the prior window', async () => {
    const r = await g.gw.call('GET', '/v1/metrics/overview?from=2026-10-08&to=2026-10-14', as(t));
    expect(r.status).toBe(200);
    const tiles = r.body.data.tiles;
    // Merged in [10-08, 10-15) with sessions: 21 (sessions 1, 2), 22 (1, 3), 24 (5; reverted later, still merged).
    // 25 and 26 merged without sessions. Session 1 names both 21 and 22 and counts once.
    expect(tiles.mergedPrs).toEqual({ current: 3, prior: 1 });
    expect(tiles.costPerMergedPrUsd.current).toBeCloseTo(((1 + 2 + 3 + 5) * unit) / 3, 6);
    // Prior [10-01, 10-08): 20 merged with session 8 (its branch) and 9 (names it, started later).
    expect(tiles.costPerMergedPrUsd.prior).toBeCloseTo(((8 + 9) * unit) / 1, 6);
    // Unshipped now: 4 (open PR), 6 (no PR), 7 (reused branch), 10 (closed unmerged), 11 (other repo, no PR).
    expect(tiles.unshippedCostUsd.current).toBeCloseTo((4 + 6 + 7 + 10 + 11) * unit, 6);
    expect(tiles.unshippedCostUsd.prior).toBe(0);

    const repo = await g.gw.call('GET', '/v1/metrics/overview?from=2026-10-08&to=2026-10-14&repo=acme/api', as(t));
    expect(repo.body.data.tiles.unshippedCostUsd.current).toBeCloseTo((4 + 6 + 7 + 10) * unit, 6);
    expect(repo.body.data.tiles.mergedPrs.current).toBe(3);
    const web = await g.gw.call('GET', '/v1/metrics/overview?from=2026-10-08&to=2026-10-14&repo=acme/web', as(t));
    expect(web.body.data.tiles.mergedPrs.current).toBe(0);
    expect(web.body.data.tiles.costPerMergedPrUsd.current).toBeNull();
    expect(web.body.data.tiles.unshippedCostUsd.current).toBeCloseTo(11 * unit, 6);
  });

  it('compare: both windows and the deltas', async () => {
    const r = await g.gw.call(
      'GET',
      '/v1/metrics/compare?aFrom=2026-10-01&aTo=2026-10-07&bFrom=2026-10-08&bTo=2026-10-14',
      as(t),
    );
    expect(r.status).toBe(200);
    const { a, b, deltas } = r.body.data;
    expect(a.tiles.mergedPrs).toBe(1);
    expect(b.tiles.mergedPrs).toBe(3);
    expect(a.tiles.costPerMergedPrUsd).toBeCloseTo(17 * unit, 6);
    expect(b.tiles.costPerMergedPrUsd).toBeCloseTo((11 * unit) / 3, 6);
    expect(deltas.costPerMergedPrUsd.absolute).toBeCloseTo((11 * unit) / 3 - 17 * unit, 5);
    expect(deltas.unshippedCostUsd).toEqual({ absolute: expect.closeTo(38 * unit, 5), relative: null });
    // A window with no merged PR: null, and so is its delta.
    const empty = await g.gw.call(
      'GET',
      '/v1/metrics/compare?aFrom=2026-09-01&aTo=2026-09-30&bFrom=2026-10-08&bTo=2026-10-14',
      as(t),
    );
    expect(empty.body.data.a.tiles.costPerMergedPrUsd).toBeNull();
    expect(empty.body.data.deltas.costPerMergedPrUsd).toEqual({ absolute: null, relative: null });
  });

  it('another factory sees only its own sessions and no PR of this one', async () => {
    const r = await g.gw.call('GET', '/v1/metrics/overview?from=2026-10-08&to=2026-10-14', as(other));
    expect(r.status).toBe(200);
    expect(r.body.data.tiles.mergedPrs.current).toBe(0);
    expect(r.body.data.tiles.costPerMergedPrUsd.current).toBeNull();
    expect(r.body.data.tiles.unshippedCostUsd.current).toBeCloseTo(12 * unit, 6);
  });

  it('a session committed with an older write time is counted on the very next read (no memo)', async () => {
    // Tiles of a window this file's other tests do not read, so their expectations stay as computed above.
    const url = '/v1/metrics/overview?from=2026-09-10&to=2026-09-16';
    const before = await g.gw.call('GET', url, as(other));
    expect(before.status).toBe(200);
    expect(before.body.data.tiles.unshippedCostUsd.current).toBe(0);
    // A replica whose clock is a minute behind commits a session: its updated_at is older than the latest
    // write of the factory, which a memo keyed on the latest write would not notice.
    const clock = g.gw.clock;
    const now = clock.now();
    clock.set(now - 60_000);
    try {
      await ingest(g.gw, as(other), [
        sessionDoc({ startedAt: '2026-09-12T08:00:00Z', repo: 'acme/api', branch: 'late', turns: turns(2) }),
      ]);
    } finally {
      clock.set(now);
    }
    const after = await g.gw.call('GET', url, as(other));
    expect(after.body.data.tiles.unshippedCostUsd.current).toBeCloseTo(2 * unit, 6);
  });
});
