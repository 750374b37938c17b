// A sync first looks up which of its sessions are already stored (and, on PostgreSQL, locks them). That lookup
// must stay one probe of the unique (app_id, session_key) index per session however many sessions the factory
// holds and whatever the store's statistics say: PostgreSQL used to choose by statistics and, for an app that
// had grown since they were gathered, read every one of its rows on each sync (issue 17). The plan is asked
// of the store for the very statement the sync runs, on an app of 3,000 sessions the planner has never been
// told about (autovacuum off for the table, as when an app grows faster than autovacuum analyzes it).
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres, type Tenant, type TestGateway } from '../../helpers/gateway.js';
import { withGatewayAndTenants } from '../../helpers/gateway-fixture.js';
import { insertBulk, sessionsByKeysQuery, type SessionRow } from '../../../src/areas/sessions/store.js';
import { canonical, variant } from './fixtures.js';
import { readsOf } from '../../helpers/plans.js';

let gw: TestGateway;
let a: Tenant;
let b: Tenant;
withGatewayAndTenants((s) => ({ gw, a, b } = s), { a: { plan: 'paid' }, b: { plan: 'paid' } });
const SEEDED = 3_000;

async function sync(t: Tenant, ids: string[]) {
  const sessions = ids.map((id) =>
    variant(canonical('full'), (d) => {
      d.id = id;
    }),
  );
  return gw.call('POST', '/v1/agents/sync', {
    token: t.loginToken,
    appId: t.appId,
    body: { schemaVersion: 1, sessions },
  });
}

beforeAll(async () => {
  const db = gw.app.attest.db;
  if (usingPostgres) await sql`alter table sessions set (autovacuum_enabled = false)`.execute(db);
  // One real session, then copies of its row under new keys: the app's size is what matters here.
  expect((await sync(a, ['seed-template'])).status).toBe(200);
  const template = await db.selectFrom('sessions').selectAll().where('app_id', '=', a.appId).executeTakeFirstOrThrow();
  const rows: SessionRow[] = Array.from({ length: SEEDED }, (_, i) => ({
    ...template,
    id: `seeded-${String(i).padStart(5, '0')}`,
    session_key: `seeded-key-${i}`,
    session_id: `seeded-key-${i}`,
    started_at: template.started_at + i,
  }));
  await db.transaction().execute((trx) => insertBulk(trx, rows, []));
}, 120_000);

describe('the lookup a sync starts with', () => {
  const keys = Array.from({ length: 25 }, (_, i) => `seeded-key-${i * 97}`)
    .concat(['not-stored-1'])
    .sort();

  it('reads the sessions table only through the unique (app_id, session_key) index, one key at a time', async () => {
    const reads = await readsOf(gw, sessionsByKeysQuery(gw.app.attest.db, a.appId, keys), 'sessions');
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) {
      if (usingPostgres) expect(read).toMatch(/^Index Scan sessions_app_key .*session_key = k\.session_key/);
      else expect(read).toMatch(/^SEARCH sessions USING INDEX sessions_app_key \(app_id=\? AND session_key=\?\)$/);
    }
  });

  it('answers the stored ones among the keys, and a sync of them merges instead of adding', async () => {
    const db = gw.app.attest.db;
    const found = (await db.executeQuery(sessionsByKeysQuery(db, a.appId, keys))).rows.map((r) => r.session_key);
    expect([...found].sort()).toEqual(keys.filter((k) => k.startsWith('seeded-')).sort());
    // Another factory asking for the same keys finds none of them.
    expect((await db.executeQuery(sessionsByKeysQuery(db, b.appId, keys))).rows).toEqual([]);

    const before = await db
      .selectFrom('sessions')
      .select((e) => e.fn.countAll<number | string>().as('n'))
      .where('app_id', '=', a.appId)
      .executeTakeFirstOrThrow();
    const r = await sync(a, ['seeded-key-0', 'seeded-key-97', 'fresh-after-seed']);
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    expect(r.body.data.accepted).toEqual(['seeded-key-0', 'seeded-key-97', 'fresh-after-seed']);
    const after = await db
      .selectFrom('sessions')
      .select((e) => e.fn.countAll<number | string>().as('n'))
      .where('app_id', '=', a.appId)
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n) + 1);
    expect(Number(before.n)).toBe(SEEDED + 1);
  });

  it('finds a session whose id looks like an array literal (PostgreSQL gets the keys as one array)', async () => {
    const db = gw.app.attest.db;
    const odd = ['quote"and,comma', '{braces}', 'back\\slash', 'NULL', 'spaces and ünïcødé 🚀', "it's"];
    expect((await sync(b, odd)).status).toBe(200);
    const count = async () =>
      Number(
        (
          await db
            .selectFrom('sessions')
            .select((e) => e.fn.countAll<number | string>().as('n'))
            .where('app_id', '=', b.appId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count()).toBe(odd.length);
    const found = (await db.executeQuery(sessionsByKeysQuery(db, b.appId, [...odd].sort()))).rows.map(
      (r) => r.session_key,
    );
    expect([...found].sort()).toEqual([...odd].sort());
    // Sent again, they merge into the stored rows: none is taken for new.
    const again = await sync(b, odd);
    expect(again.status).toBe(200);
    expect(again.body.data.accepted).toEqual(odd);
    expect(await count()).toBe(odd.length);
  });
});
