// The ingest path's multi-row INSERTs (src/db/bulk-insert.ts) on the real store: every value is bound (text that
// looks like SQL or a placeholder is stored as it is), the tail clause applies, RETURNING answers, and rows of
// different shapes are refused before anything reaches the store.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertRows } from '../../src/db/bulk-insert.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
});

interface Ref {
  app_id: string;
  session_id: string;
  repository: string;
  number: number;
}

async function stored(appId: string): Promise<Ref[]> {
  const r = await sql<Ref>`select app_id, session_id, repository, number from session_pr_refs where app_id = ${appId}
    order by session_id, number`.execute(gw.app.attest.db);
  return r.rows.map((row) => ({ ...row, number: Number(row.number) }));
}

describe('insertRows', () => {
  it('binds every value: quotes, placeholders and SQL in the text are stored as they are', async () => {
    const rows: Ref[] = [
      { app_id: 'app-bind', session_id: "s'1", repository: 'acme/$1 ?', number: 1 },
      { app_id: 'app-bind', session_id: 's2"); drop table sessions; --', repository: 'acme/api', number: 2 },
      { app_id: 'app-bind', session_id: 's3', repository: '', number: 3 },
    ];
    await insertRows(gw.app.attest.db, 'session_pr_refs', rows);
    expect(await stored('app-bind')).toEqual([rows[0], rows[1], rows[2]]);
  });

  it('stores what JSON must escape, integers to 2^53 - 1 and nulls exactly (PostgreSQL gets JSON rows)', async () => {
    const odd = [
      'q"uote',
      'back\\slash \\u0041',
      'line\nbreak\ttab',
      'é ñ 漢字 🦀',
      'sep\u2028par\u2029',
      '{"json":[1,2]}',
      'null',
      ' ',
    ];
    const refs = odd.map((repository, i) => ({
      app_id: 'app-json',
      session_id: `s${i}`,
      repository,
      number: i === 0 ? 2 ** 31 - 1 : i,
    }));
    await insertRows(gw.app.attest.db, 'session_pr_refs', refs);
    expect(await stored('app-json')).toEqual(refs);

    const tools = [
      {
        session_id: 's1',
        org_id: 'o',
        app_id: 'app-json',
        tool: 'Bash',
        started_at: Number.MAX_SAFE_INTEGER,
        repo: '',
        is_subagent: 0,
        calls: 3,
        errors: 0,
        rejected: 1,
      },
    ];
    await insertRows(gw.app.attest.db, 'session_tool_usage', tools);
    const tool = (
      await sql<{
        started_at: number | string;
        calls: number | string;
      }>`select started_at, calls from session_tool_usage where app_id = 'app-json'`.execute(gw.app.attest.db)
    ).rows;
    expect(tool.map((r) => [String(r.started_at), Number(r.calls)])).toEqual([['9007199254740991', 3]]);

    const facets = [
      { app_id: 'app-json', repo: 'acme/api', kind: 'branch', value: 'main', label: null, sessions: 2 },
      { app_id: 'app-json', repo: 'acme/api', kind: 'actor', value: 'u1', label: 'Ada "the" Lovelace', sessions: -1 },
    ];
    await insertRows(gw.app.attest.db, 'session_facets', facets);
    const read = (
      await sql<{
        value: string;
        label: string | null;
        sessions: number | string;
      }>`select value, label, sessions from session_facets
      where app_id = 'app-json' order by value`.execute(gw.app.attest.db)
    ).rows;
    expect(read.map((r) => [r.value, r.label, Number(r.sessions)])).toEqual([
      ['main', null, 2],
      ['u1', 'Ada "the" Lovelace', -1],
    ]);
  });

  it('applies the tail: on conflict do nothing keeps the first row, and the same shape runs again', async () => {
    const first = { app_id: 'app-tail', session_id: 's1', repository: 'acme/api', number: 7 };
    await insertRows(gw.app.attest.db, 'session_pr_refs', [first], 'on conflict do nothing');
    await insertRows(gw.app.attest.db, 'session_pr_refs', [first, { ...first, number: 8 }], 'on conflict do nothing');
    await insertRows(
      gw.app.attest.db,
      'session_pr_refs',
      [
        { ...first, number: 9 },
        { ...first, number: 7 },
      ],
      'on conflict do nothing',
    );
    expect((await stored('app-tail')).map((r) => r.number)).toEqual([7, 8, 9]);
  });

  it('answers the rows of a RETURNING tail', async () => {
    const rows = [1, 2, 3].map((number) => ({
      app_id: 'app-ret',
      session_id: `s${number}`,
      repository: 'acme/api',
      number,
    }));
    const returned = await insertRows<{ session_id: string }>(
      gw.app.attest.db,
      'session_pr_refs',
      rows,
      'returning "session_id"',
    );
    expect(returned.map((r) => r.session_id).sort()).toEqual(['s1', 's2', 's3']);
  });

  it('refuses rows whose columns differ, before anything is stored', async () => {
    const good = { app_id: 'app-shape', session_id: 's1', repository: 'acme/api', number: 1 };
    await expect(
      insertRows(gw.app.attest.db, 'session_pr_refs', [
        good,
        { app_id: 'app-shape', session_id: 's2', repository: 'acme/api' },
      ]),
    ).rejects.toThrow(/differ/);
    await expect(
      insertRows(gw.app.attest.db, 'session_pr_refs', [
        good,
        { app_id: 'app-shape', session_id: 's2', repository: 'acme/api', numbr: 2 },
      ]),
    ).rejects.toThrow(/lacks number/);
    expect(await stored('app-shape')).toEqual([]);
    expect(await insertRows(gw.app.attest.db, 'session_pr_refs', [])).toEqual([]);
  });
});
