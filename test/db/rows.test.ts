// Rows as the store answers them (src/db/connection.ts builds SQLite's row objects from libsql's arrays): every
// column an own property with its value, whatever its name, wide rows whole, the last of two equal names wins.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
});

const rows = async (text: string) => (await sql.raw<Record<string, unknown>>(text).execute(gw.app.attest.db)).rows;

describe('row objects', () => {
  it('names that mean something to JavaScript are plain own properties', async () => {
    const [row] = await rows(
      `select 1 as "constructor", 'a' as "toString", 2 as "hasOwnProperty", 3 as "0", 'b' as "a b", 'c' as ` +
        `"q""uote", 'd' as "back\\slash"`,
    );
    expect(row).toEqual({
      constructor: 1,
      toString: 'a',
      hasOwnProperty: 2,
      0: 3,
      'a b': 'b',
      'q"uote': 'c',
      'back\\slash': 'd',
    });
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.keys(row!).sort()).toEqual([
      '0',
      'a b',
      'back\\slash',
      'constructor',
      'hasOwnProperty',
      'q"uote',
      'toString',
    ]);
  });

  it('of two columns with one name, the last one wins', async () => {
    expect(await rows(`select 1 as "a", 2 as "b", 3 as "a"`)).toEqual([{ a: 3, b: 2 }]);
  });

  it('a row of 60 columns comes back whole, and every row of a statement alike', async () => {
    const columns = Array.from({ length: 60 }, (_, i) => `${i} * n as c${i}`).join(', ');
    const read = await rows(
      `select ${columns} from (select 1 as n union all select 2 union all select 3) as t order by c1`,
    );
    expect(read).toHaveLength(3);
    read.forEach((row, r) => {
      expect(Object.keys(row)).toHaveLength(60);
      for (let i = 0; i < 60; i += 1) expect(Number(row[`c${i}`])).toBe(i * (r + 1));
    });
  });
});
