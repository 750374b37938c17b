// GET /v1/sessions?q= (title search) through the real server: the trigram index of migration 0003d (FTS5 on
// SQLite, pg_trgm on PostgreSQL) must answer exactly what a case-insensitive substring test of the title does.
import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { listedTitle, titledSession, type Doc, type TitledSessionSpec } from './fixtures.js';

let gw: TestGateway;
let a: Tenant;
let b: Tenant;

type Spec = TitledSessionSpec;
const build = titledSession;

const SESSIONS: Spec[] = [
  { id: 'login-1', title: 'Fix the Login flow', startedAt: '2026-10-01T10:00:00.000Z', toolError: true },
  { id: 'login-2', title: 'LOGIN page redesign', branch: 'feat-x', startedAt: '2026-10-05T10:00:00.000Z' },
  {
    id: 'login-3',
    title: 'relogin loop on beta',
    repo: 'github.com/acme/beta',
    startedAt: '2026-10-10T10:00:00.000Z',
    agentType: 'codex',
  },
  { id: 'login-4', title: 'Old login bug', startedAt: '2026-08-01T10:00:00.000Z' },
  { id: 'pct', title: '100% done_now \\ back', startedAt: '2026-10-02T10:00:00.000Z' },
  { id: 'ops', title: 'say "hi" AND OR NEAR(a b) * end', startedAt: '2026-10-03T10:00:00.000Z' },
  { id: 'quote', title: "it's a 'quoted' title with \"\" inside", startedAt: '2026-10-04T10:00:00.000Z' },
  { id: 'colon', title: 'title: col^umn -minus +plus {x} [y]', startedAt: '2026-10-06T10:00:00.000Z' },
  { id: 'untitled', startedAt: '2026-10-07T10:00:00.000Z' },
  { id: 'empty', title: '', startedAt: '2026-10-08T10:00:00.000Z' },
];

const titleOf = new Map(SESSIONS.map((s) => [s.id, listedTitle(s)]));

async function sync(t: Tenant, sessions: Doc[]): Promise<void> {
  const r = await gw.call('POST', '/v1/agents/sync', {
    token: t.loginToken,
    appId: t.appId,
    body: { schemaVersion: 1, sessions },
  });
  expect(r.status, r.text.slice(0, 300)).toBe(200);
  expect(r.body.data.rejected).toEqual([]);
}

async function list(t: Tenant, query: Record<string, string>): Promise<{ ids: string[]; total: number }> {
  const qs = new URLSearchParams({ repoScope: 'all', limit: '100', ...query }).toString();
  const r = await gw.call('GET', `/v1/sessions?${qs}`, { token: t.loginToken, appId: t.appId });
  expect(r.status, `${qs}: ${r.text.slice(0, 300)}`).toBe(200);
  return { ids: r.body.data.sessions.map((s: Doc) => s.sessionId).sort(), total: r.body.data.total };
}

/** What the list must answer for q over factory a's sessions: ASCII case-insensitive substring of the title. */
function expected(q: string, ids: Iterable<string> = titleOf.keys()): string[] {
  return [...ids].filter((id) => (titleOf.get(id) ?? '').toLowerCase().includes(q.toLowerCase())).sort();
}

withGatewayAndTenants((s) => ({ gw, a, b } = s), { a: { plan: 'paid' }, b: { plan: 'paid' } });
beforeAll(async () => {
  await sync(a, SESSIONS.map(build));
  // Factory b: the same titles under other ids, and one of a's titles on a fresh session.
  await sync(b, [
    build({ id: 'b-login', title: 'Fix the Login flow', startedAt: '2026-10-01T10:00:00.000Z' }),
    build({ id: 'b-pct', title: '100% done_now \\ back', startedAt: '2026-10-02T10:00:00.000Z' }),
  ]);
});

describe('GET /v1/sessions?q= (title search)', () => {
  it('matches substrings of the title case-insensitively, and only those', async () => {
    for (const q of [
      'login',
      'LOGIN',
      'LoGiN',
      'in flo',
      'relogin loop',
      'fix the login flow',
      'ogin pa',
      'nothing like this',
    ]) {
      const r = await list(a, { q });
      expect(r.ids, q).toEqual(expected(q));
      expect(r.total, q).toBe(expected(q).length);
    }
    expect(expected('login')).toEqual(['login-1', 'login-2', 'login-3', 'login-4']);
  });

  it('still works for needles of 1 and 2 characters (no trigram: scanned)', async () => {
    for (const q of ['l', 'L', 'o', 'lo', 'LO', '%', '_', '"', "'", '\\', '*', '%_', '""', ' a', 'x}']) {
      const r = await list(a, { q });
      expect(r.ids, q).toEqual(expected(q));
    }
    expect(expected('lo')).toEqual(['login-1', 'login-2', 'login-3', 'login-4']);
  });

  it('takes %, _, quotes, backslashes and FTS syntax literally, never answering 500', async () => {
    const needles = [
      '100%',
      '0% d',
      '% done',
      'done_now',
      'e_n',
      '%%%',
      '___',
      '\\ back',
      '\\\\',
      '"hi"',
      '"hi" and',
      'AND',
      'and or',
      'OR NEAR',
      'NEAR(a b)',
      'NEAR(',
      ') * end',
      ' * ',
      '***',
      "it's",
      "'quoted'",
      '""',
      '"""',
      'with "" in',
      'title:',
      'col^umn',
      '-minus',
      '+plus',
      '{x}',
      '[y]',
      'a OR b',
      'NOT',
      'login*',
      '"login"',
      'log"in',
      'l%n',
      'l_gin',
      '^fix',
    ];
    for (const q of needles) {
      const r = await list(a, { q });
      expect(r.ids, q).toEqual(expected(q));
    }
    expect(expected('100%')).toEqual(['pct']);
    expect(expected('l_gin')).toEqual([]);
    expect(expected('NEAR(a b)')).toEqual(['ops']);
    expect(expected('with "" in')).toEqual(['quote']);
  });

  it('respects every other filter together with q', async () => {
    const loginIn = (ids: string[]) => expected('login', ids);
    const alpha = SESSIONS.filter((s) => (s.repo ?? 'github.com/acme/alpha').endsWith('alpha')).map((s) => s.id);
    const byRepo = await gw.call('GET', '/v1/sessions?q=login&repo=acme%2Falpha&limit=100', {
      token: a.loginToken,
      appId: a.appId,
    });
    expect(byRepo.status).toBe(200);
    expect(byRepo.body.data.sessions.map((s: Doc) => s.sessionId).sort()).toEqual(loginIn(alpha));
    expect(byRepo.body.data.total).toBe(3);
    expect((await list(a, { q: 'login', branch: 'feat-x' })).ids).toEqual(['login-2']);
    expect((await list(a, { q: 'login', agentType: 'codex' })).ids).toEqual(['login-3']);
    expect((await list(a, { q: 'login', signal: 'tool-errors' })).ids).toEqual(['login-1']);
    const window = await list(a, { q: 'login', from: '2026-10-01T10:00:00Z', to: '2026-10-10T10:00:00Z' });
    expect(window.ids).toEqual(['login-1', 'login-2']);
    expect(window.total).toBe(2);
    // Sort, page and total: newest first, one a page.
    const page1 = await gw.call('GET', '/v1/sessions?repoScope=all&q=LOGIN&limit=1', {
      token: a.loginToken,
      appId: a.appId,
    });
    const page2 = await gw.call('GET', '/v1/sessions?repoScope=all&q=LOGIN&limit=1&offset=1', {
      token: a.loginToken,
      appId: a.appId,
    });
    expect(page1.body.data.sessions.map((s: Doc) => s.sessionId)).toEqual(['login-3']);
    expect(page2.body.data.sessions.map((s: Doc) => s.sessionId)).toEqual(['login-2']);
    expect(page1.body.data.total).toBe(4);
  });

  it("never shows another factory's sessions with the same title", async () => {
    expect((await list(a, { q: 'fix the login' })).ids).toEqual(['login-1']);
    expect((await list(b, { q: 'fix the login' })).ids).toEqual(['b-login']);
    expect((await list(b, { q: 'login' })).ids).toEqual(['b-login']);
    expect((await list(b, { q: 'done_now' })).ids).toEqual(['b-pct']);
    expect((await list(b, { q: 'relogin' })).ids).toEqual([]);
    // Within one repository of the same name in both factories.
    const inRepo = await gw.call('GET', '/v1/sessions?q=fix%20the%20login&repo=acme%2Falpha', {
      token: b.loginToken,
      appId: b.appId,
    });
    expect(inRepo.status).toBe(200);
    expect(inRepo.body.data.sessions.map((x: Doc) => x.sessionId)).toEqual(['b-login']);
    expect(inRepo.body.data.total).toBe(1);
  });

  it('finds a re-synced session by its new title, not by the old one', async () => {
    const id = `retitle-${crypto.randomUUID()}`;
    await sync(a, [build({ id, title: 'Original zebra heading', startedAt: '2026-10-09T10:00:00.000Z', turns: 1 })]);
    expect((await list(a, { q: 'zebra' })).ids).toEqual([id]);
    // A longer version of the same session (it replaces the stored one) with another title.
    await sync(a, [build({ id, title: 'Renamed giraffe heading', startedAt: '2026-10-09T10:00:00.000Z', turns: 2 })]);
    expect((await list(a, { q: 'zebra' })).ids).toEqual([]);
    expect((await list(a, { q: 'giraffe' })).ids).toEqual([id]);
    expect((await list(a, { q: 'ze' })).ids).toEqual([]);
    // Dropping the title removes it from the index too.
    await sync(a, [build({ id, startedAt: '2026-10-09T10:00:00.000Z', turns: 3 })]);
    expect((await list(a, { q: 'giraffe' })).ids).toEqual([]);
    expect((await list(a, { q: 'heading' })).ids).toEqual([]);
    // And a title given back is found again.
    await sync(a, [build({ id, title: 'Okapi heading', startedAt: '2026-10-09T10:00:00.000Z', turns: 4 })]);
    expect((await list(a, { q: 'okapi' })).ids).toEqual([id]);
    expect((await list(a, { q: 'heading' })).ids).toEqual([id]);
  });

  it.runIf(usingPostgres)(
    'PostgreSQL: the trigram index has no pending list (0020), is keyed by factory and repository (0022), ' +
      'and samples more titles for the planner (0023)',
    async () => {
      const { sql } = await import('kysely');
      const r = await sql<{
        options: string[] | null;
      }>`select reloptions as options from pg_class where oid = to_regclass('sessions_title_trgm')`.execute(
        gw.app.attest.db,
      );
      expect(r.rows).toHaveLength(1);
      expect(r.rows[0]!.options).toContain('fastupdate=off');
      // A search within one repository then needs no second bitmap of that repository's window.
      const d = await sql<{ def: string }>`select pg_get_indexdef(to_regclass('sessions_title_trgm')) as def`.execute(
        gw.app.attest.db,
      );
      expect(d.rows[0]!.def).toMatch(
        /USING gin \(app_id, repo, lower\(COALESCE\(title, ''::text\)\) \S*gin_trgm_ops\)/,
      );
      // One title index, not two: the old trigram-only index was replaced, not kept beside it.
      const all = await sql<{
        name: string;
      }>`select indexname as name from pg_indexes
        where schemaname = current_schema() and tablename = 'sessions' and indexdef like '%gin_trgm_ops%'`.execute(
        gw.app.attest.db,
      );
      expect(all.rows.map((x) => x.name)).toEqual(['sessions_title_trgm']);
      // The planner's estimate of a LIKE on the title reads 501 histogram bounds, not 101 (0023).
      const target = await sql<{
        target: number;
      }>`select a.attstattarget as target from pg_attribute a join pg_index i on i.indexrelid = a.attrelid
      where a.attrelid = to_regclass('sessions_title_trgm') and a.attnum = i.indnatts`.execute(gw.app.attest.db);
      expect(target.rows).toEqual([{ target: 500 }]);
    },
  );

  it('keeps the q bound of 200 characters', async () => {
    const r = await gw.call('GET', `/v1/sessions?q=${'x'.repeat(201)}`, { token: a.loginToken, appId: a.appId });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_query_params');
    const atBound = await list(a, { q: 'x'.repeat(200) });
    expect(atBound.ids).toEqual([]);
  });
});
