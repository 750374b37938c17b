// GET /v1/sessions?q= on PostgreSQL reads the ids of the first 1,024 matches first: fewer than that are all
// the matches, their number is the total and the page is a slice of them; 1,024 or more and the list pages and
// counts as before (issue 17; SQLite always pages and counts, and must answer the same). Both ways must give the same
// answer: here needles with 1,023, 1,024 and 1,100 matches, and a few, are checked page by page against the titles
// seeded, in the order of the same list without q.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { titledSession, type Doc } from './fixtures.js';

let gw: TestGateway;
let t: Tenant;

const N = 1_130;
/** Words in the first k titles (by index), so each needle has a known number of matches. */
const title = (i: number): string =>
  [`Job ${i}`, i < 1_023 ? 'Alpha' : '', i < 1_024 ? 'BETA' : '', i < 1_100 ? 'gamma' : ''].filter(Boolean).join(' ');
const ids = Array.from({ length: N }, (_, i) => `probe-${String(i).padStart(4, '0')}`);
const titles = new Map(ids.map((id, i) => [id, title(i)]));

async function page(query: Record<string, string>): Promise<{ ids: string[]; total: number }> {
  const qs = new URLSearchParams({ repoScope: 'all', ...query }).toString();
  const r = await gw.call('GET', `/v1/sessions?${qs}`, { token: t.loginToken, appId: t.appId });
  expect(r.status, `${qs}: ${r.text.slice(0, 300)}`).toBe(200);
  return { ids: r.body.data.sessions.map((s: Doc) => s.sessionId), total: r.body.data.total };
}

/** The whole list without q, in its order (pages of 100). */
async function order(query: Record<string, string>): Promise<string[]> {
  const out: string[] = [];
  for (let offset = 0; ; offset += 100) {
    const got = (await page({ ...query, limit: '100', offset: String(offset) })).ids;
    out.push(...got);
    if (got.length < 100) return out;
  }
}

beforeAll(async () => {
  gw = await startGateway();
  t = await createTenant(gw, { plan: 'paid' });
  // Starts spread over ten days, some turns and tool errors, so the orders below are not the ids' order.
  const docs = ids.map((id, i) =>
    titledSession({
      id,
      title: title(i),
      startedAt: new Date(Date.parse('2026-10-01T00:00:00Z') + ((i * 7_919) % N) * 600_000).toISOString(),
      turns: 1 + (i % 5),
      toolError: i % 3 === 0,
    }),
  );
  for (let i = 0; i < docs.length; i += 50) {
    const r = await gw.call('POST', '/v1/agents/sync', {
      token: t.loginToken,
      appId: t.appId,
      body: { schemaVersion: 1, sessions: docs.slice(i, i + 50) },
    });
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    expect(r.body.data.rejected).toEqual([]);
  }
}, 180_000);
afterAll(async () => {
  await gw?.close();
});

describe('GET /v1/sessions?q= on either side of the 1,024 ids read first', () => {
  it('gives every page of the matches in the list order, and their exact total', async () => {
    const sorts: Record<string, string>[] = [
      {},
      { sort: 'turns', dir: 'asc' },
      { from: '2026-10-03T00:00:00Z', to: '2026-10-09T00:00:00Z', sort: 'cost' },
    ];
    for (const sort of sorts) {
      const full = await order(sort);
      expect(full.length).toBeGreaterThan(0);
      for (const [q, matches] of [
        ['alpha', 1_023],
        ['beta', 1_024],
        ['GAMMA', 1_100],
        ['job 11', 41],
        ['job 1129', 1],
        ['nothing', 0],
      ] as const) {
        const expected = full.filter((id) => titles.get(id)!.toLowerCase().includes(q.toLowerCase()));
        if (!sort.from) expect(expected.length).toBe(matches);
        for (const [offset, limit] of [
          [0, 25],
          [0, 100],
          [975, 100],
          [1_000, 24],
          [1_000, 25],
          [1_022, 3],
          [1_090, 20],
          [2_000, 10],
        ] as const) {
          const got = await page({ ...sort, q, limit: String(limit), offset: String(offset) });
          const label = `${JSON.stringify(sort)} q=${q} offset=${offset} limit=${limit}`;
          expect(got.ids, label).toEqual(expected.slice(offset, offset + limit));
          expect(got.total, label).toBe(expected.length);
        }
      }
    }
  }, 180_000);
});
