// GET /v1/sessions?q= answers a frequent needle and a rare one by different plans on SQLite (walk the list's
// ordered index testing titles, or read the trigram index's few candidates; issue 17). Whatever the plan, the
// answer must be exactly the titles that hold the needle, in the list's order, with the list's total: here the
// expectation is computed from the seeded titles, and the order from the same list without q.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startGateway, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { listedTitle, titledSession, type Doc, type TitledSessionSpec } from './fixtures.js';

let gw: TestGateway;
let a: Tenant;
let b: Tenant;

interface Spec extends TitledSessionSpec {
  repo: string;
  branch: string;
  turns: number;
  toolError: boolean;
}

const build = titledSession;

// Lower-case ASCII titles hold non-ASCII letters only in lower case, so SQLite's lower() (ASCII only) and
// PostgreSQL's (all of Unicode) agree on them and one expectation serves both stores.
const WORDS = ['login flow', 'Parser', 'café déjà vu', '修复 登录 🚀', '100%_done', 'straße cache'];
const upperAscii = (s: string) => s.replace(/[a-z]/g, (c) => c.toUpperCase());

/** 160 sessions: "fix" is in half the titles (far past the trigram plan's cap), "zebra" in three. */
const SESSIONS: Spec[] = Array.from({ length: 160 }, (_, i) => {
  const branch = i % 5 === 0 ? 'main' : `feat-${i % 3}`;
  let title: string | undefined = i % 2 === 0 ? `Fix ${WORDS[i % 6]} on ${branch}` : `Refactor ${WORDS[i % 6]} #${i}`;
  if ([7, 77, 141].includes(i)) title = `Zebra crossing ${i}`;
  if (i % 4 === 0) title = upperAscii(title);
  if (i % 17 === 0) title = undefined;
  if (i === 34) title = '';
  return {
    id: `plan-${String(i).padStart(3, '0')}`,
    ...(title !== undefined ? { title } : {}),
    repo: i % 4 === 3 ? 'github.com/acme/beta' : 'github.com/acme/alpha',
    branch,
    startedAt: new Date(Date.parse('2026-10-01T00:00:00Z') + i * 3_600_000).toISOString(),
    turns: 1 + (i % 6),
    toolError: i % 3 === 0,
  };
});
const titleOf = new Map(SESSIONS.map((s) => [s.id, listedTitle(s)]));

/** The list's rule: a case-insensitive substring of the title (ASCII case; see WORDS). */
const holds = (id: string, q: string) => (titleOf.get(id) ?? '').toLowerCase().includes(q.toLowerCase());

async function sync(t: Tenant, docs: Doc[]): Promise<void> {
  for (let i = 0; i < docs.length; i += 25) {
    const r = await gw.call('POST', '/v1/agents/sync', {
      token: t.loginToken,
      appId: t.appId,
      body: { schemaVersion: 1, sessions: docs.slice(i, i + 25) },
    });
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    expect(r.body.data.rejected).toEqual([]);
  }
}

async function page(t: Tenant, query: Record<string, string>): Promise<{ ids: string[]; total: number }> {
  const qs = new URLSearchParams(query).toString();
  const r = await gw.call('GET', `/v1/sessions?${qs}`, { token: t.loginToken, appId: t.appId });
  expect(r.status, `${qs}: ${r.text.slice(0, 300)}`).toBe(200);
  return { ids: r.body.data.sessions.map((s: Doc) => s.sessionId), total: r.body.data.total };
}

/** Every row of the list for `query`, in its order (pages of 100), and the total of its first page. */
async function listed(t: Tenant, query: Record<string, string>): Promise<{ ids: string[]; total: number }> {
  const out: string[] = [];
  let total = -1;
  for (let offset = 0; ; offset += 100) {
    const got = await page(t, { ...query, limit: '100', offset: String(offset) });
    if (offset === 0) total = got.total;
    out.push(...got.ids);
    if (got.ids.length < 100) return { ids: out, total };
  }
}

const all = async (t: Tenant, query: Record<string, string>) => (await listed(t, query)).ids;

const SCOPES: Record<string, string>[] = [
  { repoScope: 'all' },
  { repo: 'acme/alpha' },
  { repoScope: 'all', branch: 'main' },
  { repoScope: 'all', from: '2026-10-02T00:00:00Z', to: '2026-10-05T12:00:00Z' },
  { repo: 'acme/alpha', from: '2026-10-03T00:00:00Z', to: '2026-10-07T00:00:00Z', sort: 'turns', dir: 'asc' },
  { repoScope: 'all', sort: 'cost', dir: 'desc' },
  { repo: 'acme/beta', sort: 'startedAt', dir: 'asc' },
  { repoScope: 'all', signal: 'tool-errors', sort: 'turns' },
];

const NEEDLES = [
  'fix',
  'FIX',
  'Fix ',
  'on main',
  'fix login',
  'LOGIN FLOW',
  'parser',
  'zebra',
  'ZEBRA CROSSING 77',
  'crossing 1',
  'déjà',
  'CAFÉ',
  'é',
  'straße',
  'ße c',
  '登录',
  '修复 登',
  '🚀',
  '100%',
  '%_d',
  '_done',
  '%',
  '_',
  'e',
  'ix',
  ' #1',
  '#14',
  'nothing like this',
  'refactor',
];

beforeAll(async () => {
  gw = await startGateway();
  a = await createTenant(gw, { plan: 'paid' });
  b = await createTenant(gw, { plan: 'paid' });
  await sync(a, SESSIONS.map(build));
  // Another factory with the same frequent word: the trigram index counts its titles too, never lists them.
  await sync(
    b,
    Array.from({ length: 40 }, (_, i) =>
      build({
        id: `b-${i}`,
        title: `fix zebra ${i}`,
        repo: 'github.com/acme/alpha',
        branch: 'main',
        startedAt: new Date(Date.parse('2026-10-01T00:00:00Z') + i * 3_600_000).toISOString(),
        turns: 1,
        toolError: false,
      }),
    ),
  );
}, 120_000);
afterAll(async () => {
  await gw?.close();
});

describe('GET /v1/sessions?q= with frequent and rare needles', () => {
  it('the seeded titles give the needles the frequencies the plans are chosen by', () => {
    const count = (q: string) => SESSIONS.filter((s) => holds(s.id, q)).length;
    expect(count('fix')).toBeGreaterThan(64);
    expect(count('zebra')).toBe(3);
    expect(count('CAFÉ')).toBeGreaterThan(10);
    expect(count('fix login')).toBeGreaterThan(5);
    expect(count('修复 登')).toBeGreaterThan(10);
  });

  it('answers exactly the matching titles, in list order, with total, for every scope, filter and sort', async () => {
    for (const scope of SCOPES) {
      const unfiltered = await all(a, scope);
      for (const q of NEEDLES) {
        const expected = unfiltered.filter((id) => holds(id, q));
        const got = await listed(a, { ...scope, q });
        expect(got.ids, `${q} ${JSON.stringify(scope)}`).toEqual(expected);
        expect(got.total, `${q} ${JSON.stringify(scope)}`).toBe(expected.length);
      }
    }
  }, 300_000);

  it('pages through a frequent and a rare needle with offsets, no row lost or repeated', async () => {
    const scopes: Record<string, string>[] = [{ repoScope: 'all' }, { repo: 'acme/alpha', sort: 'cost', dir: 'asc' }];
    for (const scope of scopes) {
      const unfiltered = await all(a, scope);
      for (const q of ['fix', 'zebra', 'e']) {
        const expected = unfiltered.filter((id) => holds(id, q));
        const seen: string[] = [];
        for (let offset = 0; offset <= expected.length; offset += 7) {
          const got = await page(a, { ...scope, q, limit: '7', offset: String(offset) });
          expect(got.total).toBe(expected.length);
          seen.push(...got.ids);
        }
        expect(seen, `${q} ${JSON.stringify(scope)}`).toEqual(expected);
      }
    }
  }, 120_000);

  it('exports exactly the matching rows (the keyset path) for a frequent and a rare needle', async () => {
    for (const q of ['fix', 'FIX LOGIN', 'zebra', 'ix']) {
      const scope = { repoScope: 'all', sort: 'startedAt', dir: 'asc' };
      const expected = (await all(a, scope)).filter((id) => holds(id, q));
      const r = await gw.call(
        'GET',
        `/v1/sessions/export?format=json&${new URLSearchParams({ ...scope, q }).toString()}`,
        { token: a.loginToken, appId: a.appId },
      );
      expect(r.status).toBe(200);
      expect(
        r.body.map((s: Doc) => s.sessionId),
        q,
      ).toEqual(expected);
    }
  });

  it("keeps other factories' matching titles out, whichever plan answers", async () => {
    const fixInB = await page(b, { repoScope: 'all', q: 'fix', limit: '100' });
    expect(fixInB.ids.sort()).toEqual(Array.from({ length: 40 }, (_, i) => `b-${i}`).sort());
    expect(fixInB.total).toBe(40);
    const zebraInA = await page(a, { repoScope: 'all', q: 'zebra', limit: '100' });
    expect(zebraInA.ids.sort()).toEqual(['plan-007', 'plan-077', 'plan-141']);
    expect((await page(b, { repoScope: 'all', q: 'crossing', limit: '100' })).ids).toEqual([]);
  });
});
